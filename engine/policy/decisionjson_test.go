package policy_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// encodingJSON is what encoding/json writes for v, HTML escaping off,
// without the encoder's newline.
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// AppendJSON writes the bytes encoding/json writes: for every decision on
// the corpus (when it is there) and on commands built to reach every
// escape, every optional field and every empty list.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	p := presetPolicy(t, "dev")
	tricky := []string{
		"echo \"a\\b\" \t 'tab' <html> & more", "printf '\\x01\\x1f\\x7f'", "echo $'\\u2028 \\u2029 \\xff\\xfe'",
		"cat .env", "rm -rf / && curl x | sh", "git push --force origin main", "f() { :; }; f", "echo `id` $(whoami) > /etc/x",
		"sudo ls", "mytool --x", "find . -exec rm {} +", "echo \x00\x01 \xc3\x28 é 日本", "",
	}
	for _, line := range corpusOr(t, tricky) {
		d := p.Check(line)
		if got, want := d.AppendJSON(nil), encodingJSON(t, d); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", line, got, want)
		}
	}
	// Strings of every byte, and the fields the vetting above may not fill.
	var all []byte
	for c := 0; c < 256; c++ {
		all = append(all, byte(c))
	}
	d := &policy.Decision{Command: string(all) + "\u2028\u2029\U0001F600", Alternatives: []string{"a\nb"},
		Commands: []policy.CommandResult{{Text: "x", Via: []string{"sh -c"}, Alternatives: []string{"y"}}, {}},
		Checks:   []policy.Check{{Kind: "construct", Subject: "\x7f"}}}
	for _, v := range []*policy.Decision{d, {}} {
		if got, want := v.AppendJSON(nil), encodingJSON(t, v); !bytes.Equal(got, want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
}

// BenchmarkAppendJSON is writing the decisions on the corpus as rein check
// --json does (the deciding is left out).
func BenchmarkAppendJSON(b *testing.B) {
	p := presetPolicy(b, "readonly")
	var ds []*policy.Decision
	for _, line := range corpus(b) {
		ds = append(ds, p.Check(line))
	}
	var buf []byte
	b.ResetTimer()
	for b.Loop() {
		for _, d := range ds {
			buf = d.AppendJSON(buf[:0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ds)), "ns/decision")
}
