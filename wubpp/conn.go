package wubpp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// line is one line read from a peer (without its newline), or the error
// that ended the peer's input, and when it was read: a line read before
// the server asked the peer for an answer cannot be that answer, however
// the peer's writes were split into packets.
type line struct {
	text string
	err  error
	at   time.Time
}

// errLineTooLong ends the input of a peer that sent a line longer than
// the limit.
var errLineTooLong = errors.New("line too long")

// readLines sends the lines of r on out until an error, which it sends
// last, or until done is closed. A line longer than maxLine bytes ends
// the input with errLineTooLong; a last line without its newline is
// dropped (the input ended mid-message). Before sending a line it adds
// its length (with the newline) to sent.
func readLines(r io.Reader, maxLine int, out chan<- line, done <-chan struct{}, sent *atomic.Int64) {
	br := bufio.NewReaderSize(r, maxLine+1)
	for {
		b, err := br.ReadSlice('\n')
		var l line
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			l.err = fmt.Errorf("%w (more than %d bytes)", errLineTooLong, maxLine)
		case err != nil:
			l.err = err
		default:
			l.text = strings.TrimSuffix(string(b), "\n")
		}
		l.at = time.Now()
		sent.Add(int64(len(b)))
		select {
		case out <- l:
		case <-done:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// remote is a client connection: its reader goroutine (started by
// newRemote) sends its lines on lines until closed.
type remote struct {
	conn net.Conn
	// read counts the bytes read from conn, sent those of the lines
	// handed (or being handed) to lines: the rest are buffered.
	read, sent   atomic.Int64
	lines        chan line
	done         chan struct{}
	writeTimeout time.Duration
	bw           *bufio.Writer
	closeOnce    sync.Once
	onClose      func() // if not nil, called once the connection is closed

	name, key string

	// Handing a waiting client over to the goroutine that pairs it.
	paired    chan struct{} // closed by the pairer
	handedOff chan struct{} // closed by the waiter once it lets go
	back      chan line     // (buffer 1) a line the waiter read but did not handle
}

func newRemote(c net.Conn, maxLine int, writeTimeout time.Duration) *remote {
	r := &remote{
		conn:         c,
		lines:        make(chan line),
		done:         make(chan struct{}),
		writeTimeout: writeTimeout,
		bw:           bufio.NewWriterSize(c, 256),
		paired:       make(chan struct{}),
		handedOff:    make(chan struct{}),
		back:         make(chan line, 1),
	}
	go readLines(countingReader{c, &r.read}, maxLine, r.lines, r.done, &r.sent)
	return r
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// unread reports whether the client sent anything the server has not
// taken yet: bytes waiting in the kernel, read but not yet made a line, or
// a line set aside. Asked for an answer, a client has nothing unread: what
// it sent before it was asked is no answer.
func (r *remote) unread() bool {
	return len(r.back) > 0 || r.read.Load() > r.sent.Load() || unreadBytes(r.conn) > 0
}

// recv returns the channel of the client's lines; a line the waiting
// goroutine set aside comes first.
func (r *remote) recv() <-chan line {
	if len(r.back) > 0 {
		return r.back
	}
	return r.lines
}

// left reports whether the waiting goroutine saw the client disconnect
// (or misbehave) just as it was being paired.
func (r *remote) left() bool {
	select {
	case l := <-r.back:
		if l.err != nil {
			return true
		}
		r.back <- l
	default:
	}
	return false
}

// playerName is the name the client sent with PLAY.
func (r *remote) playerName() string { return r.name }

// finish sends the game's last message and closes the connection (in the
// background: see linger).
func (r *remote) finish(m Message, wg *sync.WaitGroup) {
	r.send(m)
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.linger(lingerTime)
	}()
}

// send writes one message, within the write timeout.
func (r *remote) send(m Message) error {
	if r.writeTimeout > 0 {
		if err := r.conn.SetWriteDeadline(time.Now().Add(r.writeTimeout)); err != nil {
			return err
		}
	}
	r.bw.WriteString(m.String())
	r.bw.WriteByte('\n')
	return r.bw.Flush()
}

// close ends the connection: it stops the reader goroutine and closes the
// socket. Safe to call more than once.
func (r *remote) close() {
	r.closeOnce.Do(func() {
		close(r.done)
		r.conn.Close()
		if r.onClose != nil {
			r.onClose()
		}
	})
}

// linger closes the connection after the last message: it shuts down the
// sending side, so that the client reads everything sent before seeing
// the end, then discards what the client still sends for up to d (closing
// a socket with unread input would reset the connection and could destroy
// the last message in flight) and closes.
func (r *remote) linger(d time.Duration) {
	if cw, ok := r.conn.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
	drain:
		for {
			select {
			case l := <-r.lines:
				if l.err != nil {
					break drain
				}
			case <-t.C:
				break drain
			}
		}
	}
	r.close()
}
