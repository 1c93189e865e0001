package runner

import (
	"bytes"
	"strings"
	"testing"
)

func TestRedactCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"remote.origin.url=https://x-access-token:ghs_abc@github.com/o/r.git\n":  "remote.origin.url=https://***@github.com/o/r.git\n",
		"origin\thttps://ghp_tok@github.com/o/r (fetch)\n":                       "origin\thttps://***@github.com/o/r (fetch)\n",
		"http.https://github.com/.extraheader=AUTHORIZATION: basic eC1hY2Nlc3M=": "http.https://github.com/.extraheader=AUTHORIZATION: basic ***",
		"http.extraheader Authorization: Bearer abc.def\n":                       "http.extraheader Authorization: Bearer ***\n",
		"url.ssh://git@host/.insteadof=https://host/\n":                          "url.ssh://***@host/.insteadof=https://host/\n",
		"core.editor=vim\n":                        "core.editor=vim\n",
		"remote.origin.url=git@github.com:o/r.git": "remote.origin.url=git@github.com:o/r.git",
	} {
		got, hid := redactCredentials([]byte(in))
		if string(got) != want || hid != (in != want) {
			t.Errorf("%q:\n got %q (%v)\nwant %q", in, got, hid, want)
		}
	}
}

// Lines are redacted whole however the output is cut into writes.
func TestRedactingWriterAcrossWrites(t *testing.T) {
	text := "a=1\nremote.origin.url=https://user:secret@host/r\nlast=https://tok@h/x"
	for size := 1; size <= len(text); size++ {
		var out bytes.Buffer
		rw := &redactingWriter{w: &out}
		for i := 0; i < len(text); i += size {
			rw.Write([]byte(text[i:min(i+size, len(text))]))
		}
		rw.Close()
		if got := out.String(); strings.Contains(got, "secret") || strings.Contains(got, "tok") || !rw.hid ||
			got != "a=1\nremote.origin.url=https://***@host/r\nlast=https://***@h/x" {
			t.Fatalf("writes of %d: %q", size, got)
		}
	}
}
