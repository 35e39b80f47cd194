//go:build !nonet

package export

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/internal/relpath"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
)

var tinyConfig = torch.Config{Blocks: 1, Channels: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8}

var trainingWYB = wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})

// writeCheckpoint saves an untrained tiny network for game, with optimizer
// state as a training run's checkpoints have.
func writeCheckpoint(t testing.TB, path string, game env.Game, meta torch.Metadata) {
	t.Helper()
	net, err := torch.New(tinyConfig, neural.ShapeOf(game), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	tr, err := torch.NewTrainer(net, torch.DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if meta.Game == "" {
		meta.Game = game.Name()
	}
	if meta.EncodingVersion == 0 {
		meta.EncodingVersion = game.EncodingVersion()
	}
	if err := torch.Save(path, net, tr, meta); err != nil {
		t.Fatal(err)
	}
}

func settings(sims int) neural.Settings {
	s := neural.DefaultSettings()
	s.Simulations = sims
	return s
}

func TestExportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "step-000000012.ckpt")
	writeCheckpoint(t, ckpt, trainingWYB, torch.Metadata{Step: 12, Seed: 77, Config: []byte("run: config\n")})
	out := filepath.Join(dir, "our_agent")
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	search := settings(24)
	search.MoveTime = mcts.Duration(time.Second)
	m, err := Export(Options{Checkpoint: ckpt, Out: out, Search: search, Binary: "bin/zerokit",
		ServeArgs: []string{"-move-time", "2s"}, Created: created})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "wyb-step12" || m.Game != "wyb" || m.Source.Step != 12 || m.Source.Seed != 77 ||
		m.Source.Checkpoint != relpath.ToWorkingDir(ckpt) || !m.Created.Equal(created) || m.Search != search || m.Parameters == 0 {
		t.Errorf("manifest %+v", m)
	}
	for _, f := range []string{neural.ManifestName, neural.WeightsName, AdapterModule, AdapterConfig, PackageInit, ReadmeName} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Only the agent directory is left: no temporary directories.
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("export left %d entries in the parent directory: %v", len(entries), entries)
	}
	// The optimizer state is not exported.
	src, _ := os.Stat(ckpt)
	dst, _ := os.Stat(filepath.Join(out, neural.WeightsName))
	if dst.Size()*2 > src.Size() {
		t.Errorf("weights %d bytes for a %d-byte checkpoint with optimizer state", dst.Size(), src.Size())
	}
	read, err := neural.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if read != m {
		t.Errorf("read back %+v, exported %+v", read, m)
	}

	// The adapter runs the binary on this directory.
	var conf struct {
		Binary string   `json:"binary"`
		Agent  string   `json:"agent"`
		Args   []string `json:"args"`
	}
	b, err := os.ReadFile(filepath.Join(out, AdapterConfig))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &conf); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if conf.Binary != filepath.Join(wd, "bin/zerokit") || conf.Agent != "net:path="+out || strings.Join(conf.Args, " ") != "-game-time 55s -move-time 2s" {
		t.Errorf("adapter config %+v", conf)
	}
	if spec, err := AdapterAgent(out); err != nil || spec != conf.Agent {
		t.Errorf("AdapterAgent = %q, %v; want %q", spec, err, conf.Agent)
	}
	readme, _ := os.ReadFile(filepath.Join(out, ReadmeName))
	for _, want := range []string{"net:path=" + out, "referee.py our_agent", "step 12", "60 s", "-game-time 55s", "sims24-1s", "bin/zerokit play -game wyb -agent net:path=" + out} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}

	// The agent plays the game and its rule variants with the exported search.
	for _, game := range []env.Game{trainingWYB, wyb.New(wyb.Options{})} {
		n, err := neural.Load(out, game, neural.Options{})
		if err != nil {
			t.Fatal(err)
		}
		info := n.Info()
		if info.Settings != search || info.Step != 12 || info.Manifest == nil || info.Name != "wyb-step12" {
			t.Errorf("loaded info %+v", info)
		}
		s := search
		s.MoveTime = 0
		a, err := n.NewAgent(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		st := game.NewInitialState()
		if act, err := a.Act(context.Background(), st); err != nil || !st.IsLegal(act) {
			t.Errorf("exported agent on %s: %v, %v", game.Name(), act, err)
		}
		n.Close()
	}
}

// TestExportWithoutCourse exports a game no course referee plays: the
// network, its manifest and the README, and no referee adapter.
func TestExportWithoutCourse(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "step-000000003.ckpt")
	writeCheckpoint(t, ckpt, tictactoe.New(), torch.Metadata{Step: 3, Seed: 1})
	out := filepath.Join(dir, "ttt")
	if _, err := Export(Options{Checkpoint: ckpt, Out: out, Search: settings(8)}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := strings.Join(names, " "), strings.Join([]string{ReadmeName, neural.ManifestName, neural.WeightsName}, " "); got != want {
		t.Errorf("files %s, want %s", got, want)
	}
	n, err := neural.Load(out, tictactoe.New(), neural.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n.Close()
}

func TestExportReplace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "agent")
	for i, step := range []int64{1, 2} {
		ckpt := filepath.Join(dir, "c.ckpt")
		writeCheckpoint(t, ckpt, trainingWYB, torch.Metadata{Step: step})
		_, err := Export(Options{Checkpoint: ckpt, Out: out, Search: settings(8)})
		if i == 1 {
			if err == nil || !strings.Contains(err.Error(), "exists (use -force") {
				t.Fatalf("export over an existing agent: %v", err)
			}
			if _, err = Export(Options{Checkpoint: ckpt, Out: out, Search: settings(8), Force: true}); err != nil {
				t.Fatal(err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
		m, err := neural.ReadManifest(out)
		if err != nil || m.Source.Step != step {
			t.Fatalf("after export %d: step %d, %v", i, m.Source.Step, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries left in the parent directory: %v", len(entries), entries)
	}
}

func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ckpt")
	writeCheckpoint(t, good, trainingWYB, torch.Metadata{})
	chess := filepath.Join(dir, "chess.ckpt")
	writeCheckpoint(t, chess, trainingWYB, torch.Metadata{Game: "chess"})
	future := filepath.Join(dir, "future.ckpt")
	writeCheckpoint(t, future, trainingWYB, torch.Metadata{EncodingVersion: 99})
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"missing", Options{Checkpoint: filepath.Join(dir, "nope.ckpt"), Out: filepath.Join(dir, "a"), Search: settings(8)}, "nope.ckpt"},
		{"unknown game", Options{Checkpoint: chess, Out: filepath.Join(dir, "a"), Search: settings(8)}, `game name "chess"`},
		{"encoding", Options{Checkpoint: future, Out: filepath.Join(dir, "a"), Search: settings(8)}, "encoding version 99"},
		{"comma", Options{Checkpoint: good, Out: filepath.Join(dir, "a,b"), Search: settings(8)}, "comma"},
		{"settings", Options{Checkpoint: good, Out: filepath.Join(dir, "a"), Search: settings(-1)}, "simulations"},
		{"no output", Options{Checkpoint: good, Search: settings(8)}, "no output directory"},
		{"no parent", Options{Checkpoint: good, Out: filepath.Join(dir, "x", "y"), Search: settings(8)}, "no such file"},
	}
	for _, tc := range tests {
		_, err := Export(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Export error = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("failed exports left files: %v", entries)
	}
}

// TestBundleRejected loads damaged and foreign agent directories.
func TestBundleRejected(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "c.ckpt")
	writeCheckpoint(t, ckpt, trainingWYB, torch.Metadata{})
	tttCkpt := filepath.Join(dir, "ttt.ckpt")
	writeCheckpoint(t, tttCkpt, tictactoe.New(), torch.Metadata{})
	fresh := func(t *testing.T, from string) string {
		out := filepath.Join(t.TempDir(), "agent")
		if _, err := Export(Options{Checkpoint: from, Out: out, Search: settings(8)}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	editManifest := func(t *testing.T, out string, edit func(map[string]any)) {
		path := filepath.Join(out, neural.ManifestName)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		if b, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		from   string
		damage func(t *testing.T, out string)
		want   string
	}{
		{"foreign game", tttCkpt, func(*testing.T, string) {}, `trained for game "tictactoe" and cannot play "wyb"`},
		{"flipped weight byte", ckpt, func(t *testing.T, out string) {
			p := filepath.Join(out, neural.WeightsName)
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x40
			os.WriteFile(p, b, 0o644)
		}, "corrupt or was replaced"},
		{"weights missing", ckpt, func(t *testing.T, out string) { os.Remove(filepath.Join(out, neural.WeightsName)) }, "weights file weights.ckpt is missing"},
		{"weights replaced", ckpt, func(t *testing.T, out string) {
			b, _ := os.ReadFile(tttCkpt)
			os.WriteFile(filepath.Join(out, neural.WeightsName), b, 0o644)
		}, "corrupt or was replaced"},
		{"manifest missing", ckpt, func(t *testing.T, out string) { os.Remove(filepath.Join(out, neural.ManifestName)) }, "neither an exported agent"},
		{"manifest not JSON", ckpt, func(t *testing.T, out string) {
			os.WriteFile(filepath.Join(out, neural.ManifestName), []byte("{"), 0o644)
		}, "not a valid agent manifest"},
		{"unknown field", ckpt, func(t *testing.T, out string) {
			editManifest(t, out, func(m map[string]any) { m["colour"] = "red" })
		}, `unknown field "colour"`},
		{"encoding version", ckpt, func(t *testing.T, out string) {
			editManifest(t, out, func(m map[string]any) { m["encoding_version"] = 7 })
		}, "encoding version 7"},
		{"manifest game", ckpt, func(t *testing.T, out string) {
			editManifest(t, out, func(m map[string]any) { m["game"] = "squatter6" })
		}, `trained for game "squatter6"`},
		{"architecture", ckpt, func(t *testing.T, out string) {
			editManifest(t, out, func(m map[string]any) { m["network"].(map[string]any)["blocks"] = 3 })
		}, "network has"},
		{"format version", ckpt, func(t *testing.T, out string) {
			editManifest(t, out, func(m map[string]any) { m["version"] = 9 })
		}, "this program reads version 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := fresh(t, tc.from)
			tc.damage(t, out)
			_, err := neural.Load(out, trainingWYB, neural.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), out) {
				t.Errorf("Load error = %v, want one naming %s and containing %q", err, out, tc.want)
			}
		})
	}
}

// TestExportSquatterJava checks that a Squatter agent gets the Java player
// of the 2015 referee and its settings, that only Squatter may ask for its
// jar, and that a bad course directory fails the export and leaves nothing.
func TestExportSquatterJava(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "sq.ckpt")
	sq, err := squatter.New(6)
	if err != nil {
		t.Fatal(err)
	}
	writeCheckpoint(t, ckpt, sq, torch.Metadata{Step: 3})
	out := filepath.Join(dir, "sq_agent")
	if _, err := Export(Options{Checkpoint: ckpt, Out: out, Search: settings(8), Binary: `/opt/zk\bin/zerokit`,
		GameTime: 10 * time.Second, CPULimit: 12500 * time.Millisecond, ServeArgs: []string{"-move-time", "2s"}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ZerokitPlayer.java", "ZerokitOpponent.java", JavaConfig} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	props, err := os.ReadFile(filepath.Join(out, JavaConfig))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`binary=/opt/zk\\bin/zerokit` + "\n", "agent=net:path=" + out + "\n", "game_time=10\n", "cpu_limit=12.5\n", "args=-move-time 2s\n"} {
		if !strings.Contains(string(props), want) {
			t.Errorf("%s lacks %q:\n%s", JavaConfig, want, props)
		}
	}
	// By default the budget and the limit are the course's for the
	// referee's N, and the README says so; -game-time among the serve
	// flags would be a second setting of the budget.
	def := filepath.Join(dir, "sq_default")
	if _, err := Export(Options{Checkpoint: ckpt, Out: def, Search: settings(8)}); err != nil {
		t.Fatal(err)
	}
	props, _ = os.ReadFile(filepath.Join(def, JavaConfig))
	readme, _ := os.ReadFile(filepath.Join(def, ReadmeName))
	for _, want := range []string{"game_time=course\n", "cpu_limit=course\n", "args=\n"} {
		if !strings.Contains(string(props), want) || (want != "args=\n" && !strings.Contains(string(readme), "    "+want)) {
			t.Errorf("%s or README lacks %q:\n%s\n%s", JavaConfig, want, props, readme)
		}
	}
	if !strings.Contains(string(readme), "about 7.5 s of CPU per game on 6x6 and 10 s on 7x7") {
		t.Errorf("README names no course limit:\n%s", readme)
	}
	if _, args, err := Adapter(def); err != nil || len(args) != 0 {
		t.Errorf("the Python adapter's serve flags %q (%v), want none: its referee is not Squatter's", args, err)
	}
	if _, err := Export(Options{Checkpoint: ckpt, Out: filepath.Join(dir, "two"), Search: settings(8), ServeArgs: []string{"-game-time", "3s"}}); err == nil ||
		!strings.Contains(err.Error(), "one setting") {
		t.Errorf("export with -game-time among the serve flags: %v", err)
	}
	if spec, err := JavaAgent(out); err != nil || spec != "net:path="+out {
		t.Errorf("JavaAgent = %q, %v; want net:path=%s", spec, err, out)
	}
	for _, spec := range []string{`default:sims=4`, `net:path=C:\\agents\\sq`, " lead\nline\r"} {
		if got := unescapeProperty(propertyValue(spec)); got != spec {
			t.Errorf("property value %q reads back as %q", spec, got)
		}
	}
	readme, _ = os.ReadFile(filepath.Join(out, ReadmeName))
	for _, want := range []string{"aiproj.squatter.Referee 6 zerokit.ZerokitPlayer", "zerokit_opponent.KEY", "cpu_limit", "play -game squatter6 -agent"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}
	if _, err := Export(Options{Checkpoint: ckpt, Out: filepath.Join(dir, "bad"), Search: settings(8), JavaReferee: filepath.Join(dir, "nowhere")}); err == nil ||
		!strings.Contains(err.Error(), "not the course's Squatter package") {
		t.Errorf("export with a bad -java-referee: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
		t.Error("a failed export left its directory")
	}
	wybCkpt := filepath.Join(dir, "wyb.ckpt")
	writeCheckpoint(t, wybCkpt, trainingWYB, torch.Metadata{Step: 1})
	if _, err := Export(Options{Checkpoint: wybCkpt, Out: filepath.Join(dir, "w"), Search: settings(8), JavaReferee: dir}); err == nil ||
		!strings.Contains(err.Error(), "for Squatter agents") {
		t.Errorf("a Watch Your Back! export with a Java referee: %v", err)
	}
}
