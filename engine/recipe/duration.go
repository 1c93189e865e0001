package recipe

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a length of time, written in a recipe as Go writes one
// ("30s", "1m30s") and held parsed, so that no reader parses it again.
// The schema holds the text to that form before it is decoded.
type Duration time.Duration

// D is d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as the recipe does: "30s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads "30s" (and "" as no duration).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as 30s or 2m, not %s", b)
	}
	if s == "" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 30s or 2m", s)
	}
	*d = Duration(v)
	return nil
}
