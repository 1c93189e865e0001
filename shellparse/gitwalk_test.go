package shellparse

import (
	"strings"
	"testing"
)

// The folder a guarded git command works in, through -C and wrappers.
func TestGuardedGitFolder(t *testing.T) {
	for argv, want := range map[string]string{
		"git log -p":                    "",
		"git -C sub log -p":             "sub",
		"git -C a -C b grep x":          "a/b",
		"git -C /etc -C x show":         "/etc/x",
		"timeout 5 git -C ~ log -p":     "~",
		"env -C src git log -p":         "src",
		"xargs git -C lib grep x --":    "lib",
		"find . -exec git diff -- {} +": "",
	} {
		got, ok := GuardedGitFolder(append(strings.Fields(argv), gitExclusion+".env"))
		if !ok || got != want {
			t.Errorf("GuardedGitFolder(%s) = %q, %v; want %q", argv, got, ok, want)
		}
	}
	for _, argv := range []string{"grep -r x . " + gitExclusion + ".env", "git status"} {
		if _, ok := GuardedGitFolder(strings.Fields(argv)); ok {
			t.Errorf("GuardedGitFolder(%s) finds a guarded git", argv)
		}
	}
}

// Exclusions relative to the repository's top go beside the guard's own,
// also under a wrapper whose words follow git's (find -exec … +).
func TestWithRepositoryExclusions(t *testing.T) {
	rel := []string{".aws/**", ".*_history"}
	for argv, want := range map[string]string{
		"git log -p -- . :(exclude,glob)**/.env":                 "git log -p -- . :(exclude,top,glob).aws/** :(exclude,top,glob).*_history :(exclude,glob)**/.env",
		"find . -exec git grep x -- {} :(exclude,glob)**/.env +": "find . -exec git grep x -- {} :(exclude,top,glob).aws/** :(exclude,top,glob).*_history :(exclude,glob)**/.env +",
		"git status":                 "git status",
		"grep -r --exclude=.env x .": "grep -r --exclude=.env x .",
	} {
		if got := strings.Join(WithRepositoryExclusions(strings.Fields(argv), rel), " "); got != want {
			t.Errorf("%s:\n got %s\nwant %s", argv, got, want)
		}
	}
}
