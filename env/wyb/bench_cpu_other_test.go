//go:build !unix

package wyb

import "time"

// processCPU reports that the CPU time is not available on this platform.
func processCPU() (time.Duration, bool) { return 0, false }
