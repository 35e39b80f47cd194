package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/gamefile"
	"github.com/zerokit/zerokit/rundir"
	"github.com/zerokit/zerokit/selfplay/gamestore"
)

// runNames names the runs by their directories' base names.
func runNames(dirs []string) []string {
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = filepath.Base(filepath.Clean(d))
	}
	return names
}

// checkRuns checks that each dashboard run is an existing directory. A
// run directory is made by zerokit train as it starts, so a missing one is
// most likely a mistyped path, or a dashboard started before its run: an
// error at start-up names it, where a dashboard would wait for it forever.
func checkRuns(dirs []string) error {
	for _, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("web: -run %s: no such directory (zerokit train makes it as the run starts: start the run first, or check the path)", d)
		case err != nil:
			return fmt.Errorf("web: -run %s: %w", d, err)
		case !st.IsDir():
			return fmt.Errorf("web: -run %s: not a directory (want a training run directory, which holds metrics.jsonl)", d)
		}
	}
	return nil
}

// run finds the run directory of the request's {run}, an index into
// Config.Runs.
func (s *Server) run(r *http.Request) (rundir.Run, error) {
	i, err := strconv.Atoi(r.PathValue("run"))
	if err != nil || i < 0 || i >= len(s.cfg.Runs) {
		return rundir.Run{}, &httpError{http.StatusNotFound, fmt.Errorf("no run %q: this server shows %d runs, numbered from 0", r.PathValue("run"), len(s.cfg.Runs))}
	}
	return rundir.Run{Dir: s.cfg.Runs[i]}, nil
}

// Metrics is a slice of a run's metrics file.
type Metrics struct {
	// Records are the complete lines from the requested offset on, each a
	// JSON object; Offset is where the next request continues.
	Records []json.RawMessage `json:"records"`
	Offset  int64             `json:"offset"`
	// Skipped counts the lines that were not JSON objects.
	Skipped int `json:"skipped,omitempty"`
	// Missing is set while the run has no metrics file yet.
	Missing bool `json:"missing,omitempty"`
	// Modified is when the metrics file last changed and Now the server's
	// time (RFC 3339), so the page can tell a run that stopped writing
	// without trusting its own clock.
	Modified string `json:"modified,omitempty"`
	Now      string `json:"now"`
}

// maxMetricsChunk bounds the bytes one metrics request reads.
const maxMetricsChunk = 8 << 20

// runHandler answers the requests about the run of their {run} with what
// f returns for the run and the request's query.
func (s *Server) runHandler(f func(run rundir.Run, q url.Values) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		run, err := s.run(r)
		if err != nil {
			answer(w, nil, err)
			return
		}
		v, err := f(run, r.URL.Query())
		answer(w, v, err)
	}
}

// metricsOf answers /api/runs/{run}/metrics?offset=N.
func metricsOf(run rundir.Run, q url.Values) (any, error) {
	var off int64
	if o := q.Get("offset"); o != "" {
		var err error
		if off, err = strconv.ParseInt(o, 10, 64); err != nil || off < 0 {
			return nil, badRequest("offset %q: want a byte offset, 0 or more", o)
		}
	}
	if _, err := os.Stat(run.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil, &httpError{http.StatusNotFound, fmt.Errorf("run directory %s no longer exists (moved or deleted?)", run.Dir)}
	}
	return readMetrics(run.Metrics(), off)
}

// readMetrics reads the complete lines of the metrics file at path from
// byte off on. A file shorter than off (a new run in the same place)
// starts again from 0.
func readMetrics(path string, off int64) (Metrics, error) {
	m := Metrics{Records: []json.RawMessage{}, Offset: off, Now: time.Now().UTC().Format(time.RFC3339)}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		m.Missing, m.Offset = true, 0
		return m, nil
	}
	if err != nil {
		return m, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return m, err
	}
	m.Modified = st.ModTime().UTC().Format(time.RFC3339)
	if st.Size() < off {
		off = 0
	}
	buf := make([]byte, min(st.Size()-off, maxMetricsChunk))
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return m, err
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n') + 1 // a partial last line waits
	for _, line := range bytes.Split(buf[:end], []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' || !json.Valid(line) {
			m.Skipped++
			continue
		}
		m.Records = append(m.Records, json.RawMessage(slices.Clone(line)))
	}
	m.Offset = off + int64(end)
	return m, nil
}

// SelfPlayGame summarises one of a run's self-play games.
type SelfPlayGame struct {
	// Ref identifies the game for /api/runs/{run}/game.
	Ref     string     `json:"ref"`
	Game    string     `json:"game"`
	Moves   int        `json:"moves"`
	Returns [2]float32 `json:"returns"`
	Step    int64      `json:"step"`
	Time    string     `json:"time"`
}

var (
	pendingRef = regexp.MustCompile(`^pending/game-[0-9]{12,19}\.zkg$`)
	shardRef   = regexp.MustCompile(`^(shard-[0-9]{6,}\.zk)#([0-9]{1,9})$`)
)

func summary(ref string, rec *data.Record) SelfPlayGame {
	return SelfPlayGame{Ref: ref, Game: rec.Game, Moves: len(rec.Actions), Returns: rec.Returns, Step: rec.Meta.NetworkStep,
		Time: rec.Meta.Time.UTC().Format("2006-01-02 15:04:05")}
}

// gamesOf answers /api/runs/{run}/games?limit=N.
func gamesOf(run rundir.Run, q url.Values) (any, error) {
	limit := 10
	if l := q.Get("limit"); l != "" {
		var err error
		if limit, err = strconv.Atoi(l); err != nil || limit < 1 || limit > 200 {
			return nil, badRequest("limit %q: want 1 to 200", l)
		}
	}
	return newestGames(run.Games(), limit)
}

// newestGames lists up to limit of the newest games of a games directory:
// the pending ones, newest first, then the newest shard's, last first.
func newestGames(dir string, limit int) ([]SelfPlayGame, error) {
	out := []SelfPlayGame{}
	pending, err := filepath.Glob(filepath.Join(dir, "pending", "game-*.zkg"))
	if err != nil {
		return nil, err
	}
	slices.Sort(pending)
	for i := len(pending) - 1; i >= 0 && len(out) < limit; i-- {
		b, err := os.ReadFile(pending[i])
		if err != nil {
			continue // compacted meanwhile
		}
		_, rec, err := gamestore.DecodePending(b)
		if err != nil {
			continue // being written, or damaged: not a game to show
		}
		out = append(out, summary("pending/"+filepath.Base(pending[i]), &rec))
	}
	shards, err := data.ListShards(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for j := len(shards) - 1; j >= 0 && len(out) < limit; j-- {
		recs, err := data.ReadShard(shards[j].Path)
		if err != nil {
			return nil, err
		}
		for k := len(recs) - 1; k >= 0 && len(out) < limit; k-- {
			out = append(out, summary(fmt.Sprintf("%s#%d", filepath.Base(shards[j].Path), k), &recs[k]))
		}
	}
	return out, nil
}

// gameOf answers /api/runs/{run}/game?ref=R: the game, with the run's
// network to analyse it.
func gameOf(run rundir.Run, q url.Values) (any, error) {
	rep, step, err := runGame(run.Games(), q.Get("ref"))
	if err != nil {
		return nil, err
	}
	rep.Network, rep.NetworkTitle = runNetwork(run, step)
	return rep, nil
}

// runNetwork names the network of a run that a self-play game played with
// at step: that step's checkpoint while the run keeps it, else the run's
// latest.
func runNetwork(run rundir.Run, step int64) (spec, title string) {
	name := filepath.Base(filepath.Clean(run.Dir))
	if p := run.Checkpoints().Path(step); fileExists(p) {
		return "net:path=" + p, fmt.Sprintf("run %s's network of step %d, which played this game", name, step)
	}
	latest, ok, err := run.Checkpoints().Latest()
	if err != nil || !ok {
		return "net:path=" + run.Dir, fmt.Sprintf("run %s's latest network", name)
	}
	return "net:path=" + run.Dir, fmt.Sprintf("run %s's latest network (step %d; the game was played at step %d, whose checkpoint the run no longer keeps)", name, latest.Step, step)
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// runGame reads the self-play game ref (as listed by newestGames) of a
// games directory; step is the training step of the network that played
// it.
func runGame(dir, ref string) (rep Replay, step int64, err error) {
	var rec data.Record
	switch m := shardRef.FindStringSubmatch(ref); {
	case pendingRef.MatchString(ref):
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref)))
		if err != nil {
			return Replay{}, 0, &httpError{http.StatusNotFound, fmt.Errorf("game %s: %w (compacted into a shard since: reload the list)", ref, err)}
		}
		if _, rec, err = gamestore.DecodePending(b); err != nil {
			return Replay{}, 0, err
		}
	case m != nil:
		recs, err := data.ReadShard(filepath.Join(dir, m[1]))
		if err != nil {
			return Replay{}, 0, &httpError{http.StatusNotFound, fmt.Errorf("game %s: %w", ref, err)}
		}
		k, _ := strconv.Atoi(m[2])
		if k >= len(recs) {
			return Replay{}, 0, &httpError{http.StatusNotFound, fmt.Errorf("game %s: the shard has %d games", ref, len(recs))}
		}
		rec = recs[k]
	default:
		return Replay{}, 0, badRequest("game reference %q: want pending/game-N.zkg or shard-N.zk#K", ref)
	}
	g, err := gamefile.FromRecord(rec, "self-play game "+strings.TrimPrefix(ref, "pending/"))
	if err != nil {
		return Replay{}, 0, err
	}
	rep, err = NewReplay(g)
	return rep, rec.Meta.NetworkStep, err
}
