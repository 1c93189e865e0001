package shellparse

import (
	"slices"
	"strings"
	"testing"
)

// Each script is read as GNU sed 4.9 reads it; the attacks among them got
// past the regular expression the readonly preset used before (they ran or
// wrote under readonly).
func TestSed(t *testing.T) {
	tests := []struct {
		name          string
		argv          string
		reads, writes string // comma-separated
		runs          bool
		err           string // part of Err; "" for none
	}{
		{"print", "sed -n 1,20p f", "", "", false, ""},
		{"substitute", "sed s/a/b/g f", "", "", false, ""},
		{"w command", "sed -n 'w out' f", "", "out", false, ""},
		{"w without a space", "sed -n w/tmp/x f", "", "/tmp/x", false, ""},
		{"w flag without a space", "sed s/h/j/w/tmp/x f", "", "/tmp/x", false, ""},
		{"w flag after other flags", "sed 's/a/b/3w out' f", "", "out", false, ""},
		{"w flag takes the rest of the line", "sed 's/a/b/w out; p' f", "", "out; p", false, ""},
		{"w to standard output", "sed -n 's/a/b/w /dev/stdout' f", "", "", false, ""},
		{"W command", "sed 'W out' f", "", "out", false, ""},
		{"e command", "sed 'e/bin/echo x' f", "", "", true, ""},
		{"bare e command", "sed e f", "", "", true, ""},
		{"e flag", "sed s/.*/id/e f", "", "", true, ""},
		{"e flag before p", "sed s/.*/id/ep f", "", "", true, ""},
		{"e and w flags", "sed 's/a/b/ew out' f", "", "out", true, ""},
		{"r without a space", "sed 1R.env f", ".env", "", false, ""},
		{"r after address", "sed '/x/r notes' f", "notes", "", false, ""},
		{"in a block", "sed -n '1{w out\n}' f", "", "out", false, ""},
		{"block closed without ;", "sed -n '1{p}' f", "", "", false, ""},
		{"after a negation", "sed '$!w out' f", "", "out", false, ""},
		{"step address", "sed -n '0~3w out' f", "", "out", false, ""},
		{"regex address with the letter w", "sed -n '/w x/p' f", "", "", false, ""},
		{"custom delimiter holds w", "sed 's|a|w x|g' f", "", "", false, ""},
		{"escaped delimiter", `sed 's/a\/w x/b/' f`, "", "", false, ""},
		{"text of a holds w", "sed 'a w out' f", "", "", false, ""},
		{"text continued", "sed 'a\\\nw out' f", "", "", false, ""},
		{"y command", "sed y/abc/xyz/ f", "", "", false, ""},
		{"labels and branches", "sed ':a;N;$!ba;s/\\n/ /g' f", "", "", false, ""},
		{"comment", "sed '# w out\np' f", "", "", false, ""},
		{"-e fragments", "sed -e p -e 'w out' f", "", "out", false, ""},
		{"-e in a cluster", "sed -ne 'w out' f", "", "out", false, ""},
		{"--expression abbreviated", "sed --exp='w out' f", "", "out", false, ""},
		{"with -e the operands are files", "sed -e p w", "", "", false, ""},
		{"-i takes an attached suffix", "sed -ie 's/a/b/w out' f", "", "out", false, ""},
		{"script after a file option", "sed -n -s p f", "", "", false, ""},
		{"script file", "sed -f x.sed f", "x.sed", "", false, "read from x.sed"},
		{"unknown command", "sed k f", "", "", false, "unknown command"},
		{"unknown s flag", "sed s/a/b/k f", "", "", false, "unknown option to s"},
		{"unterminated", "sed s/a/b f", "", "", false, "unterminated"},
		{"unknown long option", "sed --bogus p f", "", "", false, "not one rein knows"},
		{"no script", "sed", "", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.argv)
			if len(s.Commands) != 1 {
				t.Fatalf("%d commands", len(s.Commands))
			}
			got := Sed(s.Commands[0].Argv)
			split := func(s string) []string {
				if s == "" {
					return nil
				}
				return strings.Split(s, ",")
			}
			if !slices.Equal(got.Reads, split(tt.reads)) || !slices.Equal(got.Writes, split(tt.writes)) || got.Runs != tt.runs {
				t.Errorf("Sed = reads %q writes %q runs %v, want %q %q %v", got.Reads, got.Writes, got.Runs, tt.reads, tt.writes, tt.runs)
			}
			if tt.err == "" && got.Err != "" || !strings.Contains(got.Err, tt.err) {
				t.Errorf("Err = %q, want %q", got.Err, tt.err)
			}
		})
	}
}

// FuzzSed: the reader never panics, and a script without the letters of
// the commands that read, write or run reports none of them.
func FuzzSed(f *testing.F) {
	for _, s := range []string{"p", "s/a/b/g", "1R.env", "s/.*/id/ep", "w/tmp/x", "1{w out\n}", "/[/]/d", ":a;N;$!ba", "a\\\ntext", "y/a/b/", `s/a\/w x/b/`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		s := Sed([]string{"sed", "-e", script})
		if !strings.ContainsAny(script, "wWerR") && (s.Runs || len(s.Writes) > 0 || len(s.Reads) > 0) {
			t.Fatalf("Sed(%q) = %+v", script, s)
		}
	})
}
