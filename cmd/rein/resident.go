package main

import (
	"fmt"

	"github.com/reinsh/rein/engine/app"
	"github.com/reinsh/rein/engine/resident"
	"github.com/reinsh/rein/engine/resident/serve"
)

// serveResident makes this rein the resident engine at socket (package
// answer starts it): each request runs as the same command would in a rein
// of its own, with the caller's folder and standard streams, and the
// recipes and policies it compiled kept for the next (app.Warm).
func serveResident(socket string) int {
	warm := &app.Warm{}
	err := serve.Serve(socket, serve.Idle(), func(r *serve.Request) int {
		e := &env{stdin: r.Stdin, stdinTerminal: r.StdinTerminal, stdout: r.Stdout, stderr: r.Stderr, warm: warm, ctx: r.Context}
		// The parser knows the served command alone: whatever the
		// arguments hold, nothing else can run here.
		cmds := selectCommands(helpArgs(r.Args))
		if len(cmds) != 1 || cmds[0].name != resident.Command(r.Args, r.StdinTerminal) {
			fmt.Fprintf(e.stderr, "rein: internal error: the resident engine was handed %q, which it does not serve\n", r.Args)
			return exitUsage
		}
		code := runWith(r.Args, e, cmds)
		r.EndAfter = e.leftBehind
		if resident.Long(r.Args) {
			r.After = warm.Refill // a sandbox helper for the next one
		}
		return code
	})
	warm.Close()
	if err != nil {
		return exitUsage
	}
	return exitOK
}
