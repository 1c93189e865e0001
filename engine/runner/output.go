package runner

import (
	"fmt"
	"io"
	"sync"
)

// capBuffer keeps the first and last bytes written to it, at most limit in
// all, and counts what it drops.
type capBuffer struct {
	limit   int
	head    []byte
	tail    []byte // ring buffer
	tailPos int
	tailLen int
	dropped int64
}

func newCapBuffer(limit int) *capBuffer {
	return &capBuffer{limit: limit}
}

func (b *capBuffer) write(p []byte) {
	headCap := b.limit / 2
	if n := min(headCap-len(b.head), len(p)); n > 0 {
		b.head = append(b.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	tailCap := b.limit - headCap
	if b.tail == nil {
		b.tail = make([]byte, tailCap)
	}
	if len(p) >= tailCap {
		// Everything in the tail so far, and the start of p, is cut.
		b.dropped += int64(b.tailLen + len(p) - tailCap)
		copy(b.tail, p[len(p)-tailCap:])
		b.tailPos, b.tailLen = 0, tailCap
		return
	}
	for _, c := range p {
		if b.tailLen < tailCap {
			b.tail[(b.tailPos+b.tailLen)%tailCap] = c
			b.tailLen++
			continue
		}
		b.tail[b.tailPos] = c
		b.tailPos = (b.tailPos + 1) % tailCap
		b.dropped++
	}
}

// String renders head, a marker saying how much was cut, and tail.
func (b *capBuffer) String() string {
	tailCap := b.limit - b.limit/2
	tail := make([]byte, 0, b.tailLen)
	for i := 0; i < b.tailLen; i++ {
		tail = append(tail, b.tail[(b.tailPos+i)%tailCap])
	}
	if b.dropped == 0 {
		return string(b.head) + string(tail)
	}
	return string(b.head) + fmt.Sprintf("\n[… rein cut %d bytes of output here …]\n", b.dropped) + string(tail)
}

// capture collects a command's output: stdout, stderr and both in order,
// each capped, optionally streamed live, and stopped when it floods far
// past the cap.
type capture struct {
	mu       sync.Mutex
	stdout   *capBuffer
	stderr   *capBuffer
	combined *capBuffer
	total    int64
	flood    int64
	flooded  bool
	onFlood  func()
	liveOut  io.Writer
	liveErr  io.Writer
}

// floodFactor: a command printing this many times the cap is stopped.
const floodFactor = 8

func newCapture(limit int, liveOut, liveErr io.Writer, onFlood func()) *capture {
	return &capture{
		stdout: newCapBuffer(limit), stderr: newCapBuffer(limit), combined: newCapBuffer(limit),
		flood: int64(limit) * floodFactor, onFlood: onFlood, liveOut: liveOut, liveErr: liveErr,
	}
}

type stream struct {
	c   *capture
	err bool
}

func (s stream) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.err {
		c.stderr.write(p)
		if c.liveErr != nil {
			c.liveErr.Write(p)
		}
	} else {
		c.stdout.write(p)
		if c.liveOut != nil {
			c.liveOut.Write(p)
		}
	}
	c.combined.write(p)
	c.total += int64(len(p))
	if c.total > c.flood && !c.flooded {
		c.flooded = true
		if c.onFlood != nil {
			go c.onFlood()
		}
	}
	return len(p), nil
}

func (c *capture) fill(r *Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.Stdout, r.Stderr, r.Combined = c.stdout.String(), c.stderr.String(), c.combined.String()
	r.Truncated = c.stdout.dropped > 0 || c.stderr.dropped > 0 || c.combined.dropped > 0
	if c.flooded {
		r.Stderr += fmt.Sprintf("\n[rein stopped the command: it printed more than %d bytes]\n", c.flood)
	}
}
