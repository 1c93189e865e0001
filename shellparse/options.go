package shellparse

// How a wrapper's own options are read, so that the command after them is
// the one the wrapper runs: GNU getopt_long takes any unambiguous
// abbreviation of a long option (env --uns NAME CMD is env --unset NAME
// CMD), and an option rein does not know leaves the command unknown.

import (
	"fmt"
	"slices"
	"strings"
)

// longOption resolves a written long option name of a wrapper (without
// =VALUE), as resolveLong does.
func (syn *optionSyntax) longOption(name string) (option string, ok bool) {
	return resolveLong(name, syn.longValue, syn.longOther)
}

// resolveLong resolves a written long option name (without =VALUE) among a
// program's options as getopt_long does: the option of that name, or the
// one option it abbreviates. ok is false for a name that is none of them
// or is short for several.
func resolveLong(name string, lists ...[]string) (option string, ok bool) {
	for _, l := range lists {
		if slices.Contains(l, name) {
			return name, true
		}
	}
	for _, l := range lists {
		for _, o := range l {
			if strings.HasPrefix(o, name) {
				if option != "" && option != o {
					return "", false
				}
				option = o
			}
		}
	}
	return option, option != ""
}

// wrapped is what a wrapper's options say: where the command it runs
// starts, and how it runs it.
type wrapped struct {
	next int               // the index of the first word after the options
	env  map[string]string // NAME=VALUE words before the command
	// values are the options given, when asked for ("-d", "--null"; long
	// ones by their full name; "" for flags without a value).
	values map[string]string
	runs   bool // the wrapper runs a command at all
	// unknown is a long option the wrapper does not have, or one short for
	// several of its options: which words are the command is then unknown.
	unknown string
}

// skipOptions reads a wrapper's options as the wrapper does.
func skipOptions(words []Word, syn optionSyntax, keepValues bool) wrapped {
	i := 1
	out := wrapped{runs: true}
	setValue := func(k, v string) {
		if !keepValues {
			return
		}
		if out.values == nil {
			out.values = map[string]string{}
		}
		out.values[k] = v
	}
options:
	for i < len(words) {
		v := words[i].Value
		if words[i].Dynamic && (strings.HasPrefix(v, "-") || strings.HasPrefix(words[i].Raw, "-")) && !staticOption(words[i].Raw) {
			// Only the words it expands to tell what option this is.
			out.unknown = words[i].Raw
			break
		}
		switch {
		case v == "--":
			i++
			break options
		case v == "-" && syn.loneDash && !words[i].Dynamic:
			setValue("-i", "")
			i++
		case strings.HasPrefix(v, "--") && len(v) > 2:
			written, value, has := strings.Cut(v, "=")
			name, ok := syn.longOption(written)
			if !ok {
				out.unknown = v
				break options
			}
			if slices.Contains(syn.noRunLong, name) {
				out.runs = false
			}
			if !has && slices.Contains(syn.longValue, name) && i+1 < len(words) {
				value = words[i+1].Value
				i++
			}
			setValue(name, value)
			i++
		case strings.HasPrefix(v, "-") && len(v) > 1 && !words[i].Dynamic:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte(syn.noRun, c) >= 0 {
					out.runs = false
				}
				if strings.IndexByte(syn.shortValue, c) >= 0 {
					value := v[j+1:]
					if value == "" && i+1 < len(words) {
						value = words[i+1].Value
						i++
					}
					setValue("-"+string(c), value)
					break
				}
				if strings.IndexByte(syn.optValue, c) >= 0 {
					setValue("-"+string(c), v[j+1:])
					break
				}
				if syn.known && strings.IndexByte(syn.shortOther, c) < 0 && !(syn.numbers && c >= '0' && c <= '9') {
					out.unknown = v
					break options
				}
				setValue("-"+string(c), "")
			}
			i++
		case syn.assigns && isAssignment(v) && !words[i].Dynamic:
			if out.env == nil {
				out.env = map[string]string{}
			}
			name, value, _ := strings.Cut(v, "=")
			out.env[name] = value
			i++
		default:
			break options
		}
	}
	out.next = min(i+syn.skip, len(words))
	return out
}

// staticOption reports whether a dynamic word, as written, is a long option
// whose name is literal and whose value alone is computed (--unset=$X).
func staticOption(raw string) bool {
	name, _, ok := strings.Cut(raw, "=")
	if !ok || !strings.HasPrefix(name, "--") {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// unknownOption is the finding on a wrapper option rein cannot read.
func unknownOption(name, option string, syn optionSyntax) string {
	if strings.ContainsAny(option, "$`\"'\\") {
		return fmt.Sprintf("%s's option %s is computed at run time, so rein cannot tell which command %s runs; write the option literally", name, option, name)
	}
	var matches []string
	written, _, _ := strings.Cut(option, "=")
	for _, l := range [][]string{syn.longValue, syn.longOther} {
		for _, o := range l {
			if strings.HasPrefix(o, written) && !slices.Contains(matches, o) {
				matches = append(matches, o)
			}
		}
	}
	if len(matches) > 1 {
		return fmt.Sprintf("%s %s is short for several of its options (%s), so rein cannot tell which command it runs; write the option out in full", name, option, strings.Join(matches, ", "))
	}
	return fmt.Sprintf("%s %s is not an option rein knows %s to have, so it cannot tell which command %s runs; write the command without it", name, option, name, name)
}

// The options of the wrappers with a syntax of their own, for reading long
// options (and their abbreviations) as they do.
var (
	watchOptions = optionSyntax{shortValue: "nq", optValue: "d", longValue: []string{"--interval", "--equexit"},
		longOther: []string{"--beep", "--color", "--no-color", "--differences", "--errexit", "--chgexit", "--precise", "--no-title", "--no-wrap", "--no-linewrap", "--exec", "--help", "--version"}}
	// flock takes -c/--command only after the lock file (and only spelled
	// so); before it, -c is read as a script all the same, to be safe.
	flockOptions = optionSyntax{shortValue: "wEc", longValue: []string{"--timeout", "--wait", "--conflict-exit-code"},
		longOther: []string{"--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close", "--no-fork", "--fcntl", "--verbose", "--help", "--version"}}
	// parallel has some two hundred options; these are the ones rein reads.
	// Another one leaves its command unknown.
	parallelOptions = optionSyntax{shortValue: "jSadEInNL",
		longValue: []string{"--jobs", "--sshlogin", "--arg-file", "--colsep", "--delimiter", "--joblog", "--results", "--replace", "--max-args", "--max-lines",
			"--basefile", "--env", "--tmpdir", "--workdir", "--timeout", "--delay", "--retries", "--tag-string", "--memfree", "--load", "--halt", "--block", "--header", "--eof"},
		longOther: []string{"--keep-order", "--tag", "--verbose", "--dry-run", "--dryrun", "--quote", "--bar", "--progress", "--eta", "--line-buffer", "--lb",
			"--group", "--ungroup", "--null", "--xargs", "--pipe", "--no-notice", "--will-cite", "--citation", "--trim", "--silent", "--no-run-if-empty", "--halt-on-error", "--tty"}}
)

// wrapperOption reads a word of a wrapper with a syntax of its own (watch,
// flock, parallel) among its options: end when they end there (an
// operand), else a long option's full name (long) or a short option. ok is
// false, the finding made, for an option rein cannot read.
func (a *analyzer) wrapperOption(cmd *Command, w Word, name string, syn optionSyntax) (option string, long, end, ok bool) {
	unknown := ""
	switch {
	case w.Dynamic && (strings.HasPrefix(w.Value, "-") || strings.HasPrefix(w.Raw, "-")):
		unknown = unknownOption(name, w.Raw, syn)
	case !strings.HasPrefix(w.Value, "--") || w.Value == "--":
		return "", false, !strings.HasPrefix(w.Value, "-") || len(w.Value) < 2, true
	default:
		written, _, _ := strings.Cut(w.Value, "=")
		if option, ok = syn.longOption(written); ok {
			return option, true, false, true
		}
		unknown = unknownOption(name, w.Value, syn)
	}
	a.finding(FindingUnknownOption, unknown, cmd.Pos, cmd.Via)
	return "", false, false, false
}
