//go:build nonet

package neural

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env/wyb"
)

// TestNoLibtorchBackend: a -tags nonet build refuses the libtorch backend
// with an error that says what to use instead.
func TestNoLibtorchBackend(t *testing.T) {
	game := wyb.New(wyb.Options{})
	path := filepath.Join(t.TempDir(), "w.ckpt")
	writePureCheckpoint(t, path, game)
	_, err := Load(path, game, Options{Backend: BackendLibtorch})
	if err == nil || !strings.Contains(err.Error(), "use the go backend") {
		t.Fatalf("libtorch backend in a nonet build: %v", err)
	}
}
