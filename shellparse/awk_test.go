package shellparse

import "testing"

func TestAwk(t *testing.T) {
	for _, c := range []struct {
		program             string
		runs, writes, reads bool
		err                 bool
	}{
		{program: `{print $1}`},
		{program: `$2 > 10`},
		{program: `$3 >= 1000 && $7 !~ /nologin/ {print $1}`},
		{program: `{ if (($2 > 1) || ($3 < 2)) print $1 "|" $2 }`},
		{program: `NR > 1 { s += $2 / 2 } END { printf "%d\n", (s > 0) }`},
		{program: `{ print (a > b) }`},
		{program: `/a|b/ { n++ }`},
		{program: `{ x = $1 / $2 / 3 }`},
		{program: "# system(\"id\")\n{ print }"},
		{program: `{ print "system" }`},
		{program: `{print > "out.txt"}`, writes: true},
		{program: `{print $1 >> $2}`, writes: true},
		{program: `{printf "%s", $1 > "/tmp/x"}`, writes: true},
		{program: "{ print $1,\n $2 > \"f\" }", writes: true},
		{program: `{print | "sh"}`, runs: true},
		{program: `BEGIN { "id" | getline x }`, runs: true, reads: true},
		{program: `BEGIN { system("id") }`, runs: true},
		{program: `BEGIN { f = "sys" "tem"; @f("id") }`, runs: true},
		{program: `BEGIN { while (("id" |& getline l) > 0) print l }`, runs: true, reads: true},
		{program: `BEGIN { getline l < ".env" }`, reads: true},
		{program: `BEGIN { ARGV[1] = ".env" } { print }`, reads: true},
		{program: `{ close("x") }`, writes: true},
		// After if (x), awk reads /"/ as a pattern: the system() after it
		// runs, though a reader that divides there sees a string.
		{program: `BEGIN { if (1) /"/ ; system("id") ; x = "/" }`, runs: true},
		{program: `{ print "a }`, err: true},
		{program: `$0 ~ /abc`, err: true},
		// A reading awk would refuse to compile does not count.
		{program: `{ x = (a+b) / 2; print "a/b" }`},
		{program: `{ x = (a+b) / 2; print "a/b" > "f" }`, writes: true},
	} {
		got := Awk(c.program)
		if got.Runs != c.runs || got.Writes != c.writes || got.Reads != c.reads || (got.Err != "") != c.err {
			t.Errorf("%q: %+v", c.program, got)
		}
	}
}

// FuzzAwk: any program text reads without a panic, and what follows a
// complete statement cannot hide it: a program that starts with a call
// of system() runs commands, or cannot be read at all.
func FuzzAwk(f *testing.F) {
	for _, s := range []string{`$2 > 10`, `{print > "f"}`, `BEGIN { if (1) /"/ ; system("id") ; x = "/" }`, `{ x = (a+b) / 2; print "a/b" }`, "# c\n{ print }"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, program string) {
		Awk(program)
		if a := Awk("BEGIN{system(\"id\")}\n" + program); a.Err == "" && !a.Runs {
			t.Fatalf("%q: system() not found", program)
		}
	})
}
