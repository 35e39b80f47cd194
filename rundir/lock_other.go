//go:build !unix

package rundir

import (
	"errors"
	"os"
)

// tryLock fails: run directories are locked with flock(2), which this
// platform (WebAssembly in a browser, where zerokit only plays) lacks.
func tryLock(*os.File) (busy bool, err error) {
	return false, errors.New("run directory locks need flock(2), which this platform lacks")
}
