package policy_test

import (
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// Under readonly every way of setting PATH, IFS or LD_* is denied by the
// rule on assignments, not only NAME=value; a variable named at run time is
// denied as such; and a variable that makes programs run code, exported
// before a command, is checked as that command's own prefix would be.
func TestReadonlyHiddenAssignments(t *testing.T) {
	p := presetPolicy(t, "readonly")
	tests := []struct {
		command string
		verdict policy.Verdict
		rule    string // the deciding rule, or one of them
	}{
		{`declare "PATH=/tmp"`, policy.Deny, "no-risky-assignment"},
		{`declare P"ATH=/tmp"`, policy.Deny, "no-risky-assignment"},
		{"export {PATH,x}=/tmp", policy.Deny, "no-risky-assignment"},
		{"declare -n r=PATH; r=/tmp", policy.Deny, "no-risky-assignment"},
		{"local -n r=IFS", policy.Deny, "no-risky-assignment"},
		{"echo ${PATH:=/tmp}", policy.Deny, "no-risky-assignment"},
		{"(( IFS=1 ))", policy.Deny, "no-risky-assignment"},
		{"let IFS=1", policy.Deny, "no-risky-assignment"},
		{`let "IFS=1"`, policy.Deny, "no-risky-assignment"},
		{"echo $((IFS+=1))", policy.Deny, "no-risky-assignment"},
		{"a[IFS=1]=x", policy.Deny, "no-risky-assignment"},
		{"echo ${x:IFS=1:1}", policy.Deny, "no-risky-assignment"},
		{"printf -v IFS %s x", policy.Deny, "no-risky-assignment"},
		{`x=PATH; declare "$x=/tmp"`, policy.Deny, "analysis.dynamic_variable"},
		{"echo ${!x:=/tmp}", policy.Deny, "analysis.dynamic_variable"},
		{`let "a[\$(rm x)]"`, policy.Deny, "danger-rm"},
		{`(( "a[\$(rm x)]" ))`, policy.Deny, "danger-rm"},
		{`[[ "a[\$(rm x)]" -eq 1 ]]`, policy.Deny, "danger-rm"},
		{`(( "1+2" ))`, policy.Allow, ""},
		// bash parses these quoted words again and runs the substitution.
		{`declare -a "x=(\$(rm y))"`, policy.Deny, "danger-rm"},
		{`local -a "x=(\$(rm y))"`, policy.Deny, "danger-rm"},
		{`declare "w[\$(rm y)]=1"`, policy.Deny, "danger-rm"},
		{`printf -v "a[\$(rm y)]" x`, policy.Deny, "danger-rm"},
		{`declare "z=\$(rm y)"`, policy.Allow, ""}, // kept as written
		{`declare -a "x=(a b)"`, policy.Allow, ""},
		{`[[ -v "a[\$(rm y)]" ]]`, policy.Deny, "danger-rm"},
		{`test -v "a[\$(rm y)]"`, policy.Deny, "danger-rm"},
		{`[[ -v a ]]`, policy.Allow, ""},
		{"export LD_PRELOAD=/tmp/x.so; ls", policy.Deny, "analysis.code_execution"},
		{"declare -n r=GIT_DIR; r=/tmp/x; git log", policy.Deny, "analysis.code_execution"},
		{"export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm x'; git log", policy.Deny, "analysis.code_execution"},
		{"export GIT_EXTERNAL_DIFF=cat; git diff", policy.Deny, "env-prefix"},
		{"export GIT_PAGER='rm x'; git log", policy.Deny, "danger-rm"},
		{"export GIT_PAGER=cat; git log", policy.Allow, ""},
		{"export FOO=1; ls", policy.Deny, "env-prefix"},
		{"export HOME=/tmp/evil; git status", policy.Deny, "env-prefix"},
		{`export GIT_CONFIG_PARAMETERS="'core.fsmonitor=rm x'"; git status`, policy.Deny, "analysis.code_execution"},
		{"export LANG=C; ls", policy.Allow, ""},
		{"FOO=1; ls", policy.Allow, ""},
		{"git diff; export GIT_EXTERNAL_DIFF=cat", policy.Allow, ""},
		{"declare -p PATH", policy.Allow, ""},
		{"let x=1 y++", policy.Allow, ""},
		{"echo ${x:-/tmp}", policy.Allow, ""},
	}
	for _, tt := range tests {
		d := p.Check(tt.command)
		if d.Verdict != tt.verdict || !strings.Contains(d.Rule, tt.rule) {
			t.Errorf("%s: %s by %s (%s), want %s by %s", tt.command, d.Verdict, d.Rule, d.Reason, tt.verdict, tt.rule)
		}
	}
}

// The refusals this analysis adds say what to do about them.
func TestHiddenAssignmentRefusalsExplain(t *testing.T) {
	p := presetPolicy(t, "readonly")
	if d := p.Check(`x=PATH; declare "$x=/tmp"`); !strings.Contains(d.Reason, `declare "$x=/tmp" sets a variable whose name is known only at run time`) || !strings.Contains(d.Reason, "write the name out") {
		t.Errorf("dynamic variable: %s", d.Reason)
	}
	if d := p.Check("declare -n r=GIT_DIR; r=/tmp/x; git log"); !strings.HasPrefix(d.Reason, "GIT_DIR, set earlier in the script, makes git load code from outside the command") {
		t.Errorf("code variable set earlier: %s", d.Reason)
	}
	if _, err := p.GuardSearch([]string{"git", "add", "--pathspec-from-file=list"}, nil); err == nil || !strings.Contains(err.Error(), "cannot keep files named like secrets") || !strings.Contains(err.Error(), "name the paths") {
		t.Errorf("git add --pathspec-from-file: %v", err)
	}
}
