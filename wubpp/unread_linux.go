package wubpp

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unreadBytes is the number of bytes that arrived on c and wait in the
// kernel to be read (0 when c is no socket or the system cannot say).
func unreadBytes(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.SIOCINQ); err == nil {
			n = v
		}
	})
	return n
}
