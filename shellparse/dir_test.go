package shellparse

import "testing"

// Commands know the folder an earlier cd or their wrapper moved them to,
// where that is known before running.
func TestCommandDir(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // Dir of each command, in analysis order
	}{
		{"none", "cat f", []string{""}},
		{"cd then", "cd src && cat f", []string{"", "src"}},
		{"cd in sequence", "cd src; cd lib; cat f", []string{"", "src", "src/lib"}},
		{"cd home", "cd; cat f", []string{"", "~"}},
		{"cd absolute", "cd src && cd /etc && cat f", []string{"", "src", "/etc"}},
		{"cd with -P", "cd -P ~/x && cat f", []string{"", "~/x"}},
		{"cd computed", "cd $x && cat f", []string{"", ""}},
		{"cd -", "cd - && cat f", []string{"", ""}},
		{"or: runs where cd failed", "cd src || cat f", []string{"", ""}},
		{"or: then where cd went", "cd src || exit 1; cat f", []string{"", "", "src"}},
		{"block", "{ cd src; }; cat f", []string{"", "src"}},
		{"subshell stays", "(cd src); cat f", []string{"", ""}},
		{"pipeline stays", "cd src | cat f", []string{"", ""}},
		{"background stays", "cd src & cat f", []string{"", ""}},
		{"loop not followed", "for x in a; do cd src; done; cat f", []string{"", ""}},
		{"redirect after cd", "cd ~ && cat < f", []string{"", "~"}},
		{"env -C", "env -C ~ cat f", []string{"", "~"}},
		{"env --chdir abbreviated", "env --ch=/etc cat f", []string{"", "/etc"}},
		{"sudo -D", "sudo -D /etc cat f", []string{"", "/etc"}},
		{"cd and env -C", "cd src && env -C lib cat f", []string{"", "src", "src/lib"}},
		{"substitution sees the folder", "cd src && echo $(cat f)", []string{"", "src", "src"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.in)
			var got []string
			for _, c := range s.Commands {
				got = append(got, c.Dir)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("dirs = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("dirs = %q, want %q", got, tt.want)
					break
				}
			}
			if tt.name == "redirect after cd" && (len(s.Redirects) != 1 || s.Redirects[0].Dir != "~") {
				t.Errorf("redirects = %+v", s.Redirects)
			}
		})
	}
}
