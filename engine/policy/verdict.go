package policy

import (
	"encoding/json"
	"fmt"
)

// Verdict is the outcome of vetting: allow, ask or deny. Larger is stricter.
type Verdict int

const (
	Allow Verdict = iota
	Ask
	Deny
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// ParseVerdict reads "allow", "ask" or "deny".
func ParseVerdict(s string) (Verdict, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return Deny, fmt.Errorf("unknown decision %q (want allow, ask or deny)", s)
}

// mustVerdict is ParseVerdict for values the schema has already checked;
// anything unexpected is treated as deny.
func mustVerdict(s string) Verdict {
	v, err := ParseVerdict(s)
	if err != nil {
		return Deny
	}
	return v
}

func (v Verdict) MarshalJSON() ([]byte, error) { return json.Marshal(v.String()) }

func (v *Verdict) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := ParseVerdict(s)
	*v = p
	return err
}

// Result is one decision with the rule that made it and why.
type Result struct {
	Verdict Verdict `json:"verdict"`
	Rule    string  `json:"rule"`
	Reason  string  `json:"reason"`
}
