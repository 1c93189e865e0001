package policy_test

import (
	"strings"
	"testing"
)

// Commands allowed by vetting that only rein's runner makes safe: bash
// expands, substitutes and opens /dev/tcp where rein's shell checks again,
// and walks secrets rein would leave out.
func TestNeedsRunner(t *testing.T) {
	p, err := loadRecipeText(t, `local rein = import 'rein.libsonnet'; rein.presets.readonly`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ command, why string }{
		{"ls", ""},
		{"git log --oneline -5", ""},
		{"echo $HOME", "expands words at run time"},
		{"grep -rn TOKEN .", "walks folders"},
		{"diff <(ls a) <(ls b)", "process substitution"},
	} {
		d := p.Check(tc.command)
		got := p.NeedsRunner(d, tc.command)
		if tc.why == "" && got != "" || tc.why != "" && !strings.Contains(got, tc.why) {
			t.Errorf("%s (%s): %q, want %q", tc.command, d.Verdict, got, tc.why)
		}
	}
}
