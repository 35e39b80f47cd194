//go:build !nonet

package cli

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env/tictactoe"
)

// selfplayGolden is the digest of the games TestSelfplayPinned plays (every
// action and the returns of each game, see selfplayDigest); a change of
// behaviour changes it.
const selfplayGolden = "ab8f0caeea642979d50fa953"

// TestSelfplayPinned pins "zerokit selfplay": with a fixed network, seed and
// configuration (one game at a time, one thread, the CPU) it plays the same
// games every time, and the golden ones.
func TestSelfplayPinned(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "net.ckpt")
	writeTinyCheckpoint(t, ckpt, tictactoe.New(), 12)
	var digests []string
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprint("games", i))
		stdout, stderr, err := runCmd(t, runSelfplay, "-checkpoint", ckpt, "-config", "../train/testdata/tictactoe-pinned.yaml",
			"-games", "12", "-seed", "5", "-sims", "6", "-worker", "3", "-out", out, "-quiet")
		if err != nil {
			t.Fatalf("selfplay: %v\n%s", err, stderr)
		}
		if !strings.Contains(stdout, "wrote 12 games") {
			t.Errorf("output:\n%s", stdout)
		}
		digests = append(digests, selfplayDigest(t, out))
	}
	if digests[0] != digests[1] {
		t.Fatalf("two runs with the same seed differ: %s and %s", digests[0], digests[1])
	}
	if digests[0] != selfplayGolden {
		t.Fatalf("zerokit selfplay's games changed: digest %s, want %s\n(if the change of behaviour is meant, set selfplayGolden to the new digest)", digests[0], selfplayGolden)
	}
}

// selfplayDigest digests the games of a directory: each game's seed,
// network step, worker, returns and actions.
func selfplayDigest(t *testing.T, dir string) string {
	t.Helper()
	shards, err := data.ListShards(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n := 0
	for _, sh := range shards {
		recs, err := data.ReadShard(sh.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			fmt.Fprintf(h, "seed %d step %d worker %d returns %v actions %v\n", r.Meta.Seed, r.Meta.NetworkStep, r.Meta.Worker, r.Returns, r.Actions)
			n++
		}
	}
	if n != 12 {
		t.Fatalf("%d games in %s, want 12", n, dir)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// TestSelfplayBadCheckpoint: a checkpoint without a configuration, or a
// file that is no checkpoint, is an error that says so.
func TestSelfplayBadCheckpoint(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "bare.ckpt")
	writeTinyCheckpoint(t, bare, tictactoe.New(), 1)
	junk := filepath.Join(dir, "junk.ckpt")
	if err := os.WriteFile(junk, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{bare, "holds no configuration: give -config"},
		{junk, "not a readable zerokit checkpoint"},
		{filepath.Join(dir, "missing.ckpt"), "no such file"},
	} {
		_, _, err := runCmd(t, runSelfplay, "-checkpoint", tc.path, "-games", "1", "-out", filepath.Join(dir, "out"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("selfplay -checkpoint %s: %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
}
