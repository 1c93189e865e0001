// Package verdict is the outcome of vetting a command — allow, ask or deny —
// as one type that the policy decides, the audit store keeps and every
// report prints. It has no other job, so that any package can say what a
// verdict is without depending on the one that decides it.
package verdict

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// Verdict is allow, ask or deny. Larger is stricter.
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

// Parse reads "allow", "ask" or "deny".
func Parse(s string) (Verdict, error) {
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

func (v Verdict) MarshalJSON() ([]byte, error) { return json.Marshal(v.String()) }

func (v *Verdict) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := Parse(s)
	*v = p
	return err
}

// Value stores a verdict as its word (database/sql).
func (v Verdict) Value() (driver.Value, error) { return v.String(), nil }

// Scan reads a verdict stored as its word (database/sql). A word it does
// not know reads as deny: the strictest, and an error says which.
func (v *Verdict) Scan(src any) error {
	var s string
	switch x := src.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		*v = Deny
		return fmt.Errorf("a verdict is stored as text, not %T", src)
	}
	p, err := Parse(s)
	*v = p
	return err
}
