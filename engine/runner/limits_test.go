package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/runner"
)

// A result a limit cut says so in limit_reached and limit_message, as a
// model reads it.
func TestResultsSayWhichLimitCutThem(t *testing.T) {
	needUnix(t)
	r, _ := newRunner(t, `{ allow: ['seq *', 'sleep *'], limits: { max_output_bytes: 1024 } }`, nil)
	for _, tt := range []struct {
		command string
		timeout time.Duration
		want    string
	}{
		{"seq 1 5000", 0, "limits.max_output_bytes"},
		{"sleep 5", time.Second, "stopped at its timeout"},
		{"seq 1 3", 0, ""},
	} {
		res := r.Run(context.Background(), tt.command, runner.RunOptions{Timeout: tt.timeout})
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			LimitReached bool   `json:"limit_reached"`
			LimitMessage string `json:"limit_message"`
		}
		json.Unmarshal(b, &got)
		if got.LimitReached != (tt.want != "") || !strings.Contains(got.LimitMessage, tt.want) {
			t.Errorf("%s: %s", tt.command, b)
		}
	}
}
