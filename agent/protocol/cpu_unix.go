//go:build unix

package protocol

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user plus system CPU time consumed by this process,
// or 0 if the system cannot say. It is suitable as NewClock's cpu argument.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
