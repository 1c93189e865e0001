package programs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	tab, err := parseTable(tableText)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.specs) < 50 {
		t.Errorf("only %d programs", len(tab.specs))
	}
	for name, s := range tab.specs {
		for _, o := range s.Options {
			if o.Effect&^(Wraps|Reads) != 0 && o.Why == "" {
				t.Errorf("%s %s: an effect without a reason", name, o.Name())
			}
		}
	}
}

func TestTableErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"program x gnu\n  -a\n  -a\n", "line 3: -a is defined twice in x"},
		{"program x gnux\n", `line 1: unknown grammar "gnux"`},
		{"  -a\n", "line 1: an option outside a program or group"},
		{"program x gnu\n  -a | writes\n", "line 2: an effect without a reason"},
		{"program x gnu\n  -a | wrote it\n", `line 2: unknown effect "wrote"`},
		{"program x gnu\n  include nothing\n", "line 2: include of a group not defined above"},
		{"sub y z gnu\n", "line 1: sub of a program not defined above"},
		{"program x gnu\n  a\n", `line 2: "a" is neither an option name nor a value`},
	} {
		_, err := parseTable(c.text)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.text, err, c.want)
		}
	}
}

// show renders a parse for the table tests: options as NAME[=VALUE], then
// the operands, then ?UNKNOWN.
func show(p *Parsed) string {
	type item struct {
		at   int
		text string
	}
	var items []item
	for _, g := range p.Options {
		name := "?" + g.Written
		if g.Option != nil {
			name = g.Option.Name()
		}
		if g.Negated {
			name = "no:" + name
		}
		if g.HasValue {
			name += "=" + g.Value
		}
		items = append(items, item{g.At, name})
	}
	for _, o := range p.Operands {
		items = append(items, item{o.At, o.Value})
	}
	slices.SortStableFunc(items, func(a, b item) int { return a.at - b.at })
	var out []string
	if p.Sub != "" {
		out = append(out, "sub:"+p.Sub)
	}
	for _, it := range items {
		out = append(out, it.text)
	}
	return strings.Join(out, " ")
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		argv string // program and words, split at spaces
		want string
	}{
		// getopt_long: a required value takes the next word, -- included.
		{"sort -k -- -o out.txt in.txt", "--key=-- --output=out.txt in.txt"},
		{"sort -T -- -o out.txt in.txt", "--temporary-directory=-- --output=out.txt in.txt"},
		{"sort -rko x", "--reverse --key=o x"},
		{"sort -ro x", "--reverse --output=x"},
		{"sort in.txt --out=x", "in.txt --output=x"},
		{"sort --out x in", "--output=x in"},
		{"sort -- -o x", "-o x"},
		{"sort - -r", "- --reverse"},
		{"sort --compress=gzip", "--compress-program=gzip"},
		{"sort --zz", "?--zz"},
		{"sort -y5", "?-y ?-5"},
		// Optional values are attached only.
		{"sed -i s/a/b/ f", "--in-place s/a/b/ f"},
		{"sed -i.bak -n p f", "--in-place=.bak --quiet p f"},
		{"sed --in-pl=.b p f", "--in-place=.b p f"},
		{"ls --color auto", "--color auto"},
		// -NUM.
		{"head -20 f", "-NUM=20 f"},
		{"grep -n3 x f", "--line-number -NUM=3 x f"},
		{"grep -3n x f", "-NUM=3 --line-number x f"},
		// POSIX: the first operand ends the options.
		{"env -i A=1 sort -o x", "--ignore-environment A=1 sort -o x"},
		{"xargs -0 -n1 sed -i", "--null --max-args=1 sed -i"},
		{"timeout -k 1 5 ls -la", "--kill-after=1 5 ls -la"},
		{"nice -5 ls", "-NUM=5 ls"},
		// find: primaries with their words, -exec to its end.
		{"find . -name -- -delete", ". -name=-- -delete"},
		{"find . -name x -exec rm {} ; -print", ". -name=x -exec=rm {} -print"},
		{"find . -fprintf out %p", ". -fprintf=out"},
		{"find -L src -newermt 2024-01-01", "-L src -newermt=2024-01-01"},
		{"find . -nosuch", ". ?-nosuch"},
		{"find -HL .", "?-HL ?."},
		// git: options before the subcommand, then the subcommand's.
		{"git -C sub log -p -- src", "sub:log -C=sub --patch src"},
		{"git --no-pager log --outp=x", "sub:log --no-pager ?--outp=x"},
		{"git --no-pager log --outpu=x", "sub:log --no-pager ?--outpu=x"},
		{"git log --output=x", "sub:log --output=x"},
		{"git log --no-textconv", "sub:log --no-textconv"},
		{"git log --no-follow --no-fol", "sub:log no:--follow no:--follow"},
		{"git log --no-stat", "sub:log no:--stat"},
		{"git log -5 --oneline", "sub:log -NUM=5 --oneline"},
		// The walker cuts at the first --: what follows is paths...
		// (rein does not tell those options from the walker's: both
		// readings count for any option that would take the --.)
		{"git log --author -- --output=x", "sub:log --author --output=x --output=x"},
		{"git log --author=a -- --output=x", "sub:log --author=a --output=x"},
		// ...unless log's own options took it as a value first.
		{"git log --decorate-refs -- --output=/tmp/x", "sub:log --decorate-refs --output=/tmp/x --output=/tmp/x"},
		{"git grep -e x -- -O", "sub:grep -e=x -O"},
		{"git grep -e -- -O", "sub:grep -e=-- --open-files-in-pager"},
		{"git frobnicate -x", "sub:frobnicate -x"},
		// python: -m, -c and the script end its options.
		{"python3 -X importtime x.py -v", "-X=importtime x.py -v"},
		{"python3 -X opt=val -", "-X=opt=val -"},
		{"python3.12 -um pytest -x tests", "-u -m=pytest -x tests"},
		{"python -mpytest -q", "-m=pytest -q"},
		{"python -c pass -v", "-c=pass -v"},
		{"python -W error -- x.py", "-W=error x.py"},
		// jq --arg NAME VALUE.
		{"jq --arg n v --rawfile r .env .", "--arg=v --rawfile=.env ."},
	} {
		f := strings.Fields(c.argv)
		s := Lookup(f[0])
		if s == nil {
			t.Fatalf("%s is not in the table", f[0])
		}
		if got := show(s.Parse(f[1:])); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.argv, got, c.want)
		}
	}
}

func TestEffects(t *testing.T) {
	for _, c := range []struct {
		argv string
		want Effect
	}{
		{"sort -o x f", Writes},
		{"sort -k -- --compress-program=sh f", Runs},
		{"rg --pre sh x", Runs},
		{"rg -z x", Helper},
		{"git log --no-textconv -p", 0},
		{"git --paginate log", Helper},
		{"find . -name x -exec grep -l y {} +", Wraps},
		{"find . -delete", Writes},
		{"awk -f prog.awk f", Code},
		{"xargs -p rm", Input},
		{"sed -n p f", 0},
	} {
		f := strings.Fields(c.argv)
		if got := Lookup(f[0]).Parse(f[1:]).Effects(); got != c.want {
			t.Errorf("%s: %v, want %v", c.argv, got, c.want)
		}
	}
}

func ExampleSpec_Parse() {
	p := Lookup("sort").Parse([]string{"-k", "--", "-o", "out.txt", "in.txt"})
	for _, g := range p.Options {
		fmt.Printf("%s %s [%s]\n", g.Option.Name(), g.Value, g.Effect())
	}
	fmt.Println(p.Operands[0].Value)
	// Output:
	// --key -- []
	// --output out.txt [writes]
	// in.txt
}

func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) || !slices.Contains(names, "git") || !slices.Contains(names, "egrep") {
		t.Errorf("%v", names)
	}
}

func TestGitConfigKey(t *testing.T) {
	for key, want := range map[string]GitConfig{
		"core.pager": GitShell, "Core.SSHCommand": GitShell, "core.alternateRefsCommand": GitShell,
		"interactive.diffFilter": GitShell, "diff.tex.textconv": GitShell, "filter.lfs.smudge": GitShell,
		"pager.log": GitShell, "sendemail.sendmailCmd": GitShell, "credential.https://x.helper": GitShell,
		"core.hooksPath": GitCode, "include.path": GitCode, "includeIf.gitdir:/x/.path": GitCode,
		"remote.origin.vcs": GitCode, "lfs.customtransfer.x.path": GitCode, "lfs.extension.x.clean": GitCode,
		"protocol.ext.allow": GitCode, "url.ext::sh.insteadOf": GitCode, "submodule.x.update": GitCode,
		"user.name": GitData, "core.autocrlf": GitData, "diff.renames": GitData, "remote.origin.url": GitData,
		"alias.st": GitData,
	} {
		if got := GitConfigKey(key, "status"); got != want {
			t.Errorf("%s: %d, want %d", key, got, want)
		}
	}
	if GitConfigKey("alias.x", "!id") != GitShell {
		t.Error("alias.x=!id runs id")
	}
}

// FuzzParse: any argv parses without a panic, every word is read once (an
// option, a value or an operand), and an option's value given as the next
// word is that word.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"sort -k -- -o out in", "git log --decorate-refs -- --output=x", "find . -name -- -delete",
		"grep -3n -e x -- f", "jq --arg a b --rawfile r f .", "xargs -0 -l1 sed -i", "git -C x stash list -p", "sed -i.b --in-pl=x p"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		words := strings.Fields(line)
		if len(words) == 0 {
			return
		}
		spec := Lookup(words[0])
		if spec == nil {
			spec = Lookup("sort")
		}
		args := words[1:]
		p := spec.Parse(args)
		for _, g := range p.Options {
			if g.At < 0 || g.At >= len(args) {
				t.Fatalf("%q: option at %d of %d words", line, g.At, len(args))
			}
			if g.Next && (g.At+1 >= len(args) || args[g.At+1] != g.Value && g.Option != nil && g.Option.Args <= 1) {
				t.Fatalf("%q: %s's value %q is not the next word", line, g.Written, g.Value)
			}
		}
		for _, o := range p.Operands {
			if o.At < 0 || o.At >= len(args) || args[o.At] != o.Value {
				t.Fatalf("%q: operand %q at %d", line, o.Value, o.At)
			}
		}
	})
}

// Each program read alone (as Lookup reads it, on first use), and each of
// its subcommands read when asked for, is the program read with the whole
// table.
func TestLookupReadsAsTheWholeTable(t *testing.T) {
	whole := table()
	same := func(a, b *Spec) bool {
		return a.Name == b.Name && a.Grammar == b.Grammar && a.Numbers == b.Numbers && slices.Equal(a.Common, b.Common) &&
			reflect.DeepEqual(a.Options, b.Options) && reflect.DeepEqual(a.short, b.short) && reflect.DeepEqual(a.long, b.long) && slices.Equal(a.longs, b.longs)
	}
	for _, name := range Names() {
		got, want := Lookup(name), whole.specs[name]
		if !same(got, want) || !slices.Equal(got.SubcommandNames(), want.SubcommandNames()) {
			t.Errorf("%s read alone differs from %s in the whole table", name, name)
			continue
		}
		for _, sub := range want.SubcommandNames() {
			if g, w := got.Subcommand(sub), want.Subcommand(sub); g == nil || !same(g, w) || g.HasSubcommands() {
				t.Errorf("%s %s read alone differs from the whole table's", name, sub)
			}
		}
	}
	if Lookup("egrep") != Lookup("grep") {
		t.Error("an alias has a spec of its own")
	}
	if Lookup("no-such-program") != nil || Lookup("git").Subcommand("no-such-sub") != nil {
		t.Error("a program or subcommand the table lacks has a spec")
	}
}
