// Package resident lets rein answer its commands from an engine kept warm
// between commands. The first rein check, rein hook or rein exec finds no
// resident engine, starts one in the background (rein __resident SOCKET,
// which serves until it is idle: package serve), and goes on by itself; the
// next ones hand their arguments, working folder and standard streams to it
// over a unix socket only the user can reach, and end with its status. A
// warm engine has paid the runtime's start, the package initialisations and
// the page faults of a 30 MB program already, keeps the recipe and policy it
// compiled, and starts the next program's sandbox helper between commands.
//
// A resident engine must answer exactly as rein would. So it serves one
// user, one build of rein, one set of namespaces and of what a process's
// children inherit, and one environment (the socket's name is a digest of
// them all), runs one command at a time in its caller's folder, and reads
// and writes its caller's own file descriptors. Commands that talk to
// models or serve agents are never served, nor is anything from a
// terminal but rein check. It serves no caller inside a sandbox: a command
// rein runs must not reach an engine outside it.
//
// This package is the caller's side, and it imports only what has no
// initialisation of its own besides syscall: package answer calls it from
// an init that runs before most of rein's.
package resident

import "errors"

// ServeArg is rein's hidden first argument that makes it a resident engine:
// rein __resident SOCKET.
const ServeArg = "__resident"

// $REIN_RESIDENT: Off keeps rein from using or starting resident engines;
// Require makes a command a resident engine would serve fail when none
// takes it (to test one).
const (
	Off     = "off"
	Require = "require"
)

// DefaultIdle is how long, in seconds, a resident engine waits for its
// next request before it ends ($REIN_RESIDENT_IDLE, a Go duration, sets
// another).
const DefaultIdle = 300

// ErrNoEngine: no resident engine listens on the socket (none was started,
// or it ended as the request came); one may be started for the next.
var ErrNoEngine = errors.New("no resident engine is running")

// ErrRefused: the resident engine did not take the request (it refused
// this caller, or it is busy with another command): rein answers by itself.
var ErrRefused = errors.New("the resident engine refused the request")

// Busy and Withdraw: an engine running a command that may take long (rein
// exec) marks its socket busy, a file named as the socket with this suffix,
// and callers answer by themselves at once. A caller that finds the engine
// busy otherwise (the mark came after it looked) withdraws its request
// after WithdrawAfter: it sends Withdraw, and the engine answers Withdrawn,
// or Accepted if it took the request first.
const (
	BusySuffix    = ".busy"
	LockSuffix    = ".lock" // held by the engine that serves the socket
	Withdraw      = 'w'
	Withdrawn     = 'W'
	WithdrawAfter = 5 // milliseconds
)

// globalValueFlags are rein's global flags that take the next argument as
// their value.
var globalValueFlags = []string{"--recipe", "--preset", "--dir", "--db"}

// Serves reports whether a resident engine may run args (rein's arguments,
// without the program name): rein check; rein hook claude-code, codex or
// gemini, which read an agent's call on standard input; and rein exec. The
// last two not from a terminal: a person typing there would hold the engine
// for every other caller, and a terminal's job control (^C, ^Z) reaches the
// caller, not the engine. Commands that talk to models or serve agents
// (ask, mcp) and every other one run in rein's own process.
func Serves(args []string, stdinTerminal bool) bool { return Command(args, stdinTerminal) != "" }

// Long reports whether the served command args may run for long (it runs a
// program): the engine marks itself busy meanwhile.
func Long(args []string) bool { return Command(args, false) == "exec" }

// Command is the command of rein's that Serves would serve args as
// ("check", "hook" or "exec"; "" for none): the engine's parser knows that
// one alone.
func Command(args []string, stdinTerminal bool) string {
	var words []string
	for i := 0; i < len(args) && len(words) < 2; i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case contains(globalValueFlags, a):
			i++
		case len(a) > 0 && a[0] == '-':
		default:
			words = append(words, a)
		}
	}
	if len(words) == 0 {
		return ""
	}
	switch {
	case words[0] == "check",
		words[0] == "exec" && !stdinTerminal,
		words[0] == "hook" && len(words) == 2 && !stdinTerminal && contains([]string{"claude-code", "codex", "gemini"}, words[1]):
		return words[0]
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// failure is an error of kind (ErrNoEngine, ErrRefused) with its reason.
type failure struct {
	kind error
	why  string
}

func (f *failure) Error() string { return f.kind.Error() + ": " + f.why }
func (f *failure) Unwrap() error { return f.kind }
