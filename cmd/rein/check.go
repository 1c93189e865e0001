package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

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

// bulk checks one command per line of standard input.
func (c *checkCmd) bulk(p *policy.Policy, e *env) error {
	// Written in batches, not a write per line: what was decided is
	// flushed whenever rein goes back to its input for more, so that a
	// program feeding it a line at a time reads each answer at once.
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	sc := bufio.NewScanner(flushingReader{e.stdin, out})
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	worst := policy.Allow
	var buf []byte
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		d := p.Check(line)
		worst = max(worst, d.Verdict)
		if c.JSON {
			// As writeJSON writes it, without reflection (Decision.AppendJSON).
			buf = append(d.AppendJSON(buf[:0]), '\n')
			if _, err := out.Write(buf); err != nil {
				return err
			}
		} else {
			report.Line(out, d)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return verdictExit(worst)
}

// flushingReader flushes w before each read of r.
type flushingReader struct {
	r io.Reader
	w *bufio.Writer
}

func (f flushingReader) Read(p []byte) (int, error) {
	if err := f.w.Flush(); err != nil {
		return 0, err
	}
	return f.r.Read(p)
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
