package shellparse

// Programs that read arguments from response files: an argument @FILE
// stands for the words written in FILE (binutils, the gcc and clang
// drivers, rustc, javac, MSVC's tools). So FILE is a file the program
// reads, and the words in it are arguments no check of argv saw: strings
// @.gitignore reads the .env listed there, and strings @.env prints .env's
// lines in its complaints.
var responseFilePrograms = map[string]bool{
	"addr2line": true, "ar": true, "as": true, "c++filt": true, "elfedit": true, "gprof": true, "ld": true,
	"ld.bfd": true, "ld.gold": true, "ld.lld": true, "gold": true, "nm": true, "objcopy": true, "objdump": true,
	"ranlib": true, "readelf": true, "size": true, "strings": true, "strip": true, "windres": true, "dlltool": true,
	"gcc": true, "g++": true, "cc": true, "c++": true, "cpp": true, "gfortran": true, "clang": true, "clang++": true,
	"clang-cl": true, "rustc": true, "javac": true, "java": true, "javadoc": true, "cl": true, "link": true,
	"lib": true, "csc": true,
}

// ReadsResponseFiles reports whether a program takes @FILE as the words in
// FILE.
func ReadsResponseFiles(program string) bool { return responseFilePrograms[program] }

// ResponseFiles returns the files c's @FILE arguments name, when its
// program reads response files.
func ResponseFiles(c *Command) []string {
	if !responseFilePrograms[c.Name] {
		return nil
	}
	var out []string
	for _, a := range c.Args {
		if len(a) > 1 && a[0] == '@' {
			out = append(out, a[1:])
		}
	}
	return out
}
