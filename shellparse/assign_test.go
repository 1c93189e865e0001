package shellparse

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// Every way bash sets a variable is an assignment: checked against what
// the interpreter rein runs scripts in really assigns (IFS printed after
// each form).
func TestAssignmentsEveryForm(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // assigned names, in order; "?" for a dynamic_variable finding
	}{
		{"plain", "PATH=.", []string{"PATH"}},
		{"declare", "declare PATH=.", []string{"PATH"}},
		{"declare quoted", `declare "PATH=."`, []string{"PATH"}},
		{"declare partly quoted", `declare P"ATH=."`, []string{"PATH"}},
		{"declare appends", `declare "PATH+=:."`, []string{"PATH"}},
		{"declare array element", `declare "IFS[0]=x"`, []string{"IFS"}},
		{"export brace expansion", "export {PATH,x}=.", []string{"PATH", "x"}},
		{"export bare", "export LD_PRELOAD", []string{"LD_PRELOAD"}},
		{"export quoted bare", `export "LD_PRELOAD"`, []string{"LD_PRELOAD"}},
		{"declare computed", `declare "$x=."`, []string{"?"}},
		{"declare computed word", `declare $x`, []string{"?"}},
		{"name reference", "declare -n r=PATH; r=.", []string{"PATH", "r", "r"}},
		{"name reference cluster", "local -gn r=IFS", []string{"IFS", "r"}},
		{"name reference quoted", `typeset -n "r=IFS"`, []string{"IFS", "r"}},
		{"name reference computed", "declare -n r=$x", []string{"?", "r"}},
		{"nameref builtin", "nameref r=PATH", []string{"PATH", "r"}},
		{"declare -p prints", "declare -p PATH", nil},
		{"declare -f prints", "declare -f PATH", nil},
		{"export -n unexports", "export -n PATH", nil},
		{"export -p prints", "export -p", nil},
		{"default assigns", "echo ${PATH:=.}", []string{"PATH"}},
		{"default assigns unset", ": ${IFS=x}", []string{"IFS"}},
		{"default does not assign", "echo ${PATH:-.}", nil},
		{"indirect default", "echo ${!x:=1}", []string{"?"}},
		{"arithmetic command", "(( IFS=1 ))", []string{"IFS"}},
		{"arithmetic expansion", "echo $((PATH+=1))", []string{"PATH"}},
		{"arithmetic increment", "(( IFS++ ))", []string{"IFS"}},
		{"arithmetic decrement", "(( --IFS ))", []string{"IFS"}},
		{"let", "let IFS=1 x=2", []string{"IFS", "x"}},
		{"let quoted", `let "IFS=1"`, []string{"IFS"}},
		{"let single-quoted", `let 'a[1]=2' "x++"`, []string{"a", "x"}},
		{"let quoted computed", `let "$x"`, nil},
		{"quoted in an arithmetic command", `(( "IFS=1" ))`, []string{"IFS"}},
		{"quoted in an arithmetic expansion", `echo $(( "PATH+=1" ))`, []string{"PATH"}},
		{"quoted operand of -eq", `[[ "IFS=1" -eq 1 ]]`, []string{"IFS"}},
		{"quoted operand of ==", `[[ "IFS=1" == 1 ]]`, nil},
		{"array element in arithmetic", "(( a[1]=2 ))", []string{"a"}},
		{"array index assigns", "a[IFS=12]=1", []string{"IFS", "a"}},
		{"slice offset assigns", "echo ${x:IFS=1:1}", []string{"IFS"}},
		{"c-style for", "for ((i=0; i<3; i++)); do :; done", []string{"i", "i"}},
		{"for", "for PATH in .; do :; done", []string{"PATH"}},
		{"read", "read -r PATH IFS", []string{"PATH", "IFS"}},
		{"read with valued options", "read -p prompt -t 1 -u 3 x", []string{"x"}},
		{"read array", "read -ra IFS", []string{"IFS"}},
		{"read computed", `read "$x"`, []string{"?"}},
		{"mapfile", "mapfile -t PATH < f", []string{"PATH"}},
		{"readarray with options", "readarray -d , -n 2 IFS < f", []string{"IFS"}},
		{"getopts", "getopts ab PATH", []string{"PATH"}},
		{"printf -v", "printf -v IFS %s x", []string{"IFS"}},
		{"printf -v attached", "printf -vIFS %s x", []string{"IFS"}},
		{"printf without -v", "printf %s PATH", nil},
		{"read into an element", `read "IFS[0]"`, []string{"IFS"}},
		{"printf -v into an element", `printf -v "IFS[1]" %s x`, []string{"IFS"}},
		{"read by sudo is another shell's", "sudo read PATH", nil},
		{"inside a substitution", "echo $(PATH=.)", []string{"PATH"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.in)
			if s.ParseError != nil {
				t.Fatalf("%s: %s", tt.in, s.ParseError.Message)
			}
			var got []string
			for _, f := range s.Findings {
				if f.Kind == FindingDynamicVariable {
					got = append(got, "?")
				}
			}
			for _, as := range s.Assignments {
				got = append(got, as.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s: assigns %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A variable that makes programs run code, set anywhere before a command,
// is in that command's environment, as the runner passes it at run time.
func TestCodeVariablesPassOn(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // each command's code variables: "name: VAR=value ..."
	}{
		{"export then command", "export GIT_EXTERNAL_DIFF=x; git diff",
			[]string{"export:", "git: GIT_EXTERNAL_DIFF=x", "x:"}},
		{"command then export", "git diff; export GIT_EXTERNAL_DIFF=x",
			[]string{"git:", "export:"}},
		{"plain assignment", "GIT_DIR=/tmp/x; git log", []string{"git: GIT_DIR=/tmp/x"}},
		{"bare export of an earlier value", "export GIT_DIR; git log", []string{"export:", "git: GIT_DIR=$GIT_DIR"}},
		{"prefix wins", "export GIT_DIR=/a; GIT_DIR=/b git log", []string{"export:", "git: GIT_DIR=/b"}},
		{"name reference", "declare -n r=GIT_DIR; r=/x; git log", []string{"declare:", "git: GIT_DIR=$GIT_DIR"}},
		{"default value", "echo ${GIT_DIR:=/x}; git log", []string{"echo: GIT_DIR=/x", "git: GIT_DIR=/x"}},
		{"ordinary variables stay", "export FOO=1; git log", []string{"export:", "git:"}},
		// The pager's own commands are checked once, not passed the
		// pager again (which would recurse).
		{"pager", "export PAGER=cat; git log", []string{"export:", "git: PAGER=cat", "cat:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.in)
			var got []string
			for _, c := range s.Commands {
				line := c.Name + ":"
				for _, k := range slices.Sorted(maps.Keys(c.Env)) {
					if isCodeEnv(k) {
						line += " " + k + "=" + c.Env[k]
					}
				}
				got = append(got, line)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s:\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// Array indexes bash expands a second time run their substitutions: the
// commands in them are analysed.
func TestReparsedIndexesAreAnalysed(t *testing.T) {
	for _, script := range []string{
		`declare -a "x=(\$(rm y))"`, `declare "w[\$(rm y)]=1"`, `printf -v "a[\$(rm y)]" x`,
		`read "a[\$(rm y)]"`, `unset "a[\$(rm y)]"`, `[[ -v "a[\$(rm y)]" ]]`, `test -v "a[\$(rm y)]"`,
	} {
		s := Analyze(script)
		if !slices.ContainsFunc(s.Commands, func(c *Command) bool { return c.Name == "rm" }) {
			t.Errorf("%s: rm not found among %d commands", script, len(s.Commands))
		}
	}
	for _, script := range []string{`declare "z=\$(rm y)"`, `read "a[1]"`, `test "x" = y`} {
		if s := Analyze(script); slices.ContainsFunc(s.Commands, func(c *Command) bool { return c.Name == "rm" }) {
			t.Errorf("%s: rm found, bash keeps it as written", script)
		}
	}
}

// What a script exports, every command after it receives: the analysis
// gives it to them, as the runner checks them with it.
func TestExportedVariablesPassOn(t *testing.T) {
	for script, want := range map[string]string{
		"export FOO=1; ls":       "1",
		"declare -x FOO=1; ls":   "1",
		"export FOO; FOO=2; ls":  "2",
		"export FOO=1 && ls":     "1",
		"FOO=1; ls":              "",
		"export -n FOO; ls":      "",
		"ls; export FOO=1":       "",
		"export FOO=1; FOO=3 ls": "3",
		"local -x FOO=$x; ls":    "$x",
	} {
		s := Analyze(script)
		var got string
		for _, c := range s.Commands {
			if c.Name == "ls" {
				got = c.Env["FOO"]
			}
		}
		if got != want {
			t.Errorf("%s: ls receives FOO=%q, want %q", script, got, want)
		}
	}
}

// mapfile -C runs its callback: the callback is analysed as a command.
func TestMapfileCallbackIsACommand(t *testing.T) {
	s := Analyze("mapfile -C 'rm -rf x' -c 1 lines < f")
	var names []string
	for _, c := range s.Commands {
		names = append(names, c.Name+" via "+strings.Join(c.Via, ","))
	}
	if !slices.Contains(names, "rm via mapfile -C") {
		t.Errorf("commands %q: the callback is not analysed", names)
	}
	if s = Analyze(`mapfile -C "$cb" lines < f`); !hasFinding(s, FindingDynamicScript) {
		t.Errorf("a computed callback is not a finding: %+v", s.Findings)
	}
}

func hasFinding(s *Script, kind string) bool {
	return slices.ContainsFunc(s.Findings, func(f Finding) bool { return f.Kind == kind })
}
