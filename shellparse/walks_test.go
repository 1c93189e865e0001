package shellparse

import (
	"strings"
	"testing"
)

func TestFolderReads(t *testing.T) {
	tests := map[string]string{ // script -> the folders its first command walks
		"grep -rn KEY src lib":            "src lib",
		"grep -n KEY src":                 "",
		"grep -r -e KEY -A 3 src":         "src",
		"rg -g '*.go' KEY ~":              "~",
		"tar czf - ~":                     "czf - ~",
		"cp -r a b dest":                  "a b",
		"find ~ -name '*.go'":             "",
		"find ~ -type f -exec cat {} +":   "~",
		"find ~ -type f -exec ls -l {} +": "",
		"find -L ~ . | xargs cat":         "~ .",
		"find ~ | xargs dirname":          "",
		"diff -r a b":                     "a b",
		// Given no folder, a searcher walks the one it runs in.
		"grep -r KEY":                 ".",
		"grep -rn -e KEY":             ".",
		"rg KEY":                      ".",
		"rg --files":                  ".",
		"find -type f -exec cat {} +": ".",
		"find | xargs cat":            ".",
		"fd -x cat":                   ".",
		"grep KEY":                    "",
		"find -name '*.go'":           "",
	}
	for script, want := range tests {
		s := Analyze(script)
		var got []string
		for _, w := range FolderReads(s.Commands[0], s) {
			got = append(got, w.Value)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: walks %q, want %q", script, got, want)
		}
	}
}
