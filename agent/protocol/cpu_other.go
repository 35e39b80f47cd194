//go:build !unix

package protocol

import "time"

// ProcessCPU returns 0: this system offers no portable CPU-time measure, so
// clocks fall back to wall time.
func ProcessCPU() time.Duration { return 0 }
