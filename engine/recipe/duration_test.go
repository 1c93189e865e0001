package recipe

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A recipe's durations are parsed once, when it is read: what the readers
// get is the value, and a cached recipe writes them back as text.
func TestDurationJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		out     string
		wantErr string
	}{
		{`"30s"`, 30 * time.Second, `"30s"`, ""},
		{`"1m30s"`, 90 * time.Second, `"1m30s"`, ""},
		{`"10m"`, 10 * time.Minute, `"10m0s"`, ""},
		{`""`, 0, `"0s"`, ""},
		{`"soon"`, 0, "", `"soon" is not a duration`},
		{`30`, 0, "", "a duration is a string"},
	}
	for _, tc := range tests {
		var d Duration
		err := json.Unmarshal([]byte(tc.in), &d)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || d.D() != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.in, d.D(), err, tc.want)
		}
		if b, _ := json.Marshal(d); string(b) != tc.out {
			t.Errorf("%s: written back as %s, want %s", tc.in, b, tc.out)
		}
	}
}

// A recipe that sets only limits.timeout gives execute_command that
// default too, held within the maximum.
func TestDurationDefaults(t *testing.T) {
	r := &Recipe{Limits: Limits{Timeout: Duration(45 * time.Second)}}
	if err := r.normalize(); err != nil {
		t.Fatal(err)
	}
	l := r.Limits
	if l.Timeout.D() != 45*time.Second || l.MaxTimeout.D() != 10*time.Minute || l.ExecuteTimeout.D() != 45*time.Second || l.ExecuteMaxTimeout.D() != 120*time.Second {
		t.Errorf("limits %+v", l)
	}
}
