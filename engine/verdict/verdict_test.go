package verdict_test

import (
	"encoding/json"
	"testing"

	"github.com/reinsh/rein/engine/verdict"
)

func TestRoundTrips(t *testing.T) {
	for _, v := range []verdict.Verdict{verdict.Allow, verdict.Ask, verdict.Deny} {
		p, err := verdict.Parse(v.String())
		if err != nil || p != v {
			t.Errorf("Parse(%s) = %v, %v", v, p, err)
		}
		b, _ := json.Marshal(v)
		var j verdict.Verdict
		if err := json.Unmarshal(b, &j); err != nil || j != v {
			t.Errorf("JSON %s: %v, %v", b, j, err)
		}
		stored, _ := v.Value()
		var s verdict.Verdict
		if err := s.Scan([]byte(stored.(string))); err != nil || s != v {
			t.Errorf("Scan(%s) = %v, %v", stored, s, err)
		}
	}
	var v verdict.Verdict
	if err := v.Scan("maybe"); err == nil || v != verdict.Deny {
		t.Errorf("unknown word: %v, %v", v, err)
	}
	if err := v.Scan(3); err == nil || v != verdict.Deny {
		t.Errorf("a number: %v, %v", v, err)
	}
	if verdict.Allow >= verdict.Ask || verdict.Ask >= verdict.Deny {
		t.Error("larger must be stricter")
	}
}
