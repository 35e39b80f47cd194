package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/gamefile/gamefiletest"
	"github.com/zerokit/zerokit/selfplay/gamestore"
)

// writeRun makes a run directory with metrics lines and self-play games:
// one compacted shard and one pending game.
func writeRun(t testing.TB, dir string, metrics []string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(strings.Join(metrics, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, err := gamestore.Open(filepath.Join(dir, "games"))
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 3; i++ {
		if err := st.Add(i, gamefiletest.SelfPlayRecord(t, "squatter6", uint64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := st.Compact(3); err != nil {
		t.Fatal(err)
	}
	if err := st.Add(3, gamefiletest.SelfPlayRecord(t, "wyb", 9)); err != nil {
		t.Fatal(err)
	}
}
