//go:build !linux

package wubpp

import "net"

// unreadBytes is 0 where the system cannot say how many bytes wait to be
// read; an unasked message is then caught by its reading time alone.
func unreadBytes(net.Conn) int { return 0 }
