//go:build nonet

package neural

import (
	"errors"

	"github.com/zerokit/zerokit/model/ckpt"
)

// openLibtorch fails: this build has no libtorch.
func openLibtorch(path string, want ckpt.Expect) (backendNet, *ckpt.Header, error) {
	return nil, nil, errors.New("the libtorch backend is not in this build (-tags nonet): use the go backend")
}
