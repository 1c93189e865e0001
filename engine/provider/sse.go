package provider

import (
	"bufio"
	"io"
	"strings"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	Event string
	Data  string
}

// sseReader reads server-sent events, ignoring comment lines (":
// keep-alive") however many there are.
type sseReader struct {
	sc *bufio.Scanner
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	return &sseReader{sc: sc}
}

// Next returns the next event, or io.EOF at the end of the stream.
func (r *sseReader) Next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	for r.sc.Scan() {
		line := strings.TrimSuffix(r.sc.Text(), "\r")
		switch {
		case line == "":
			if len(data) > 0 || ev.Event != "" {
				ev.Data = strings.Join(data, "\n")
				return ev, nil
			}
		case strings.HasPrefix(line, ":"):
			// comment / keep-alive
		case strings.HasPrefix(line, "event:"):
			ev.Event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := r.sc.Err(); err != nil {
		return ev, err
	}
	if len(data) > 0 {
		ev.Data = strings.Join(data, "\n")
		return ev, nil
	}
	return ev, io.EOF
}
