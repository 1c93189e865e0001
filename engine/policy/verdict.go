package policy

import "github.com/reinsh/rein/engine/verdict"

// Verdict is the outcome of vetting: allow, ask or deny (package verdict).
type Verdict = verdict.Verdict

const (
	Allow = verdict.Allow
	Ask   = verdict.Ask
	Deny  = verdict.Deny
)

// ParseVerdict reads "allow", "ask" or "deny".
func ParseVerdict(s string) (Verdict, error) { return verdict.Parse(s) }

// mustVerdict is ParseVerdict for values the schema has already checked;
// anything unexpected is treated as deny.
func mustVerdict(s string) Verdict {
	v, err := ParseVerdict(s)
	if err != nil {
		return Deny
	}
	return v
}

// Result is one decision with the rule that made it and why.
type Result struct {
	Verdict Verdict `json:"verdict"`
	Rule    string  `json:"rule"`
	Reason  string  `json:"reason"`
}
