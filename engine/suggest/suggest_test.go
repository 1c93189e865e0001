package suggest

import "testing"

func TestDidYouMean(t *testing.T) {
	for typed, want := range map[string]string{"tset": "test", "vte": "vet", "patern": "pattern", "xyz": "", "arg": "args", "golang": "go"} {
		got := DidYouMean(typed, []string{"test", "vet", "pattern", "bench", "argv", "args", "go", "git"})
		if want == "" && got != "" || want != "" && got != "; did you mean "+want+"?" {
			t.Errorf("%s: %q", typed, got)
		}
	}
}
