package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/report"
	"github.com/reinsh/rein/engine/tasks"
)

type checkCmd struct {
	Command []string `arg:"" optional:"" passthrough:"partial" help:"Shell text to vet (quote it). Several arguments are joined with spaces, verbatim: put rein's flags first. Without one, commands are read from standard input, one per line."`
	JSON    bool     `help:"Print the decision as one JSON object (one per line when reading standard input)."`
	Task    string   `help:"Vet a task's steps (and its dependencies') with the policy that task runs under." placeholder:"NAME"`
}

func (c *checkCmd) Help() string {
	return `Exit status: 0 allow, 1 deny, 3 ask, 2 usage or recipe error.
When reading standard input the status is the strictest over all commands.

Examples:
  rein check 'git log --oneline | head'
  rein check --preset strict --json 'wc -l $(git ls-files)'
  git log --format=%s | rein check --json`
}

func (c *checkCmd) Run(g *Globals, e *env) error {
	if c.Task != "" {
		return c.task(g, e)
	}
	p, err := appOf(g).LoadPolicy("check")
	if err != nil {
		return err
	}
	if len(c.Command) == 0 || len(c.Command) == 1 && c.Command[0] == "-" {
		if e.stdinTerminal {
			return errors.New("give a command to check (rein check 'git status'), or pipe commands on standard input")
		}
		return c.bulk(p, e)
	}
	d := p.Check(strings.Join(c.Command, " "))
	if c.JSON {
		if err := writeJSON(e.stdout, d, true); err != nil {
			return err
		}
	} else {
		report.Decision(e.stdout, d)
	}
	return verdictExit(d.Verdict)
}

// bulk checks one command per line of standard input. It reads what the
// input holds, decides those lines on every core, writes their answers in
// order and flushes them before it reads again: a program feeding it a line
// at a time reads each answer at once, and a file of 12,000 lines is
// decided in batches two cores share.
func (c *checkCmd) bulk(p *policy.Policy, e *env) error {
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	in := lineReader{r: e.stdin}
	parts := make([]bytes.Buffer, runtime.GOMAXPROCS(0))
	worsts := make([]policy.Verdict, len(parts))
	for {
		lines, err := in.lines()
		c.decideLines(p, lines, parts, worsts)
		for i := range parts {
			if _, werr := out.Write(parts[i].Bytes()); werr != nil {
				return werr
			}
			parts[i].Reset()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return verdictExit(slices.Max(worsts))
}

// decideLines decides lines into parts, in order: a share of the lines for
// each part, decided at once (a few lines are not worth a goroutine). worsts
// holds each part's strictest verdict so far.
func (c *checkCmd) decideLines(p *policy.Policy, lines []string, parts []bytes.Buffer, worsts []policy.Verdict) {
	n := len(parts)
	if len(lines) < 64 {
		n = 1
	}
	share := (len(lines) + n - 1) / max(n, 1)
	var wg sync.WaitGroup
	for w := range n {
		lo, hi := min(w*share, len(lines)), min((w+1)*share, len(lines))
		wg.Go(func() {
			var buf []byte
			for _, line := range lines[lo:hi] {
				d := p.Check(line)
				worsts[w] = max(worsts[w], d.Verdict)
				if c.JSON {
					// As writeJSON writes it, without reflection (Decision.AppendJSON).
					buf = append(d.AppendJSON(buf[:0]), '\n')
					parts[w].Write(buf)
				} else {
					report.Line(&parts[w], d)
				}
				p.Release(d) // written out: its memory serves the next
			}
		})
	}
	wg.Wait()
}

// lineReader hands out the lines of r a read at a time: the complete lines
// one read brought (the last line at the end of the input), without blank
// ones, each at most maxLine bytes.
type lineReader struct {
	r    io.Reader
	buf  []byte // what was read and not yet handed out
	done bool
}

const maxLine = 1 << 20

func (l *lineReader) lines() ([]string, error) {
	if l.done {
		return nil, io.EOF
	}
	if cap(l.buf)-len(l.buf) < 4<<10 {
		grown := make([]byte, len(l.buf), max(64<<10, 2*cap(l.buf)))
		copy(grown, l.buf)
		l.buf = grown
	}
	n, err := l.r.Read(l.buf[len(l.buf):cap(l.buf)])
	l.buf = l.buf[:len(l.buf)+n]
	end := bytes.LastIndexByte(l.buf, '\n') + 1
	if err == io.EOF {
		end, l.done = len(l.buf), true
	} else if err != nil {
		return nil, err
	}
	if end == 0 && len(l.buf) > maxLine {
		return nil, fmt.Errorf("a line of standard input is longer than %d bytes", maxLine)
	}
	var out []string
	for line := range strings.SplitSeq(string(l.buf[:end]), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	l.buf = l.buf[:copy(l.buf, l.buf[end:])]
	return out, err
}

// writeJSON prints v as JSON, indented or as one line, without HTML escaping
// (commands are full of < > &).
func writeJSON(w io.Writer, v any, indent bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// writeJSONLines writes one JSON object per line, for --json listings.
func writeJSONLines[T any](w io.Writer, items []T) error {
	// One write for many lines, not one each.
	out := bufio.NewWriterSize(w, 64<<10)
	for _, item := range items {
		if err := writeJSON(out, item, false); err != nil {
			return err
		}
	}
	return out.Flush()
}

func verdictExit(v policy.Verdict) error {
	switch v {
	case policy.Deny:
		return codeError(exitDeny)
	case policy.Ask:
		return codeError(exitAsk)
	}
	return nil
}

// task vets every step a task would run, each with its task's policy.
func (c *checkCmd) task(g *Globals, e *env) error {
	r, err := appOf(g).LoadRecipe()
	if err != nil {
		return err
	}
	order, err := tasks.Plan(r, c.Task)
	if err != nil {
		return err
	}
	worst := policy.Allow
	for _, name := range order {
		t := r.Tasks[name]
		p, err := tasks.Policy(r, t)
		if err != nil {
			return err
		}
		if !c.JSON {
			fmt.Fprintf(e.stdout, "task %s", name)
			if len(t.Allow) > 0 {
				fmt.Fprintf(e.stdout, " (also allowed for this task: %s)", strings.Join(t.Allow, ", "))
			}
			fmt.Fprintln(e.stdout)
		}
		for _, step := range tasks.Steps(t) {
			d := p.Check(step)
			worst = max(worst, d.Verdict)
			if c.JSON {
				if err := writeJSON(e.stdout, d, false); err != nil {
					return err
				}
			} else {
				report.Decision(e.stdout, d)
			}
		}
	}
	return verdictExit(worst)
}
