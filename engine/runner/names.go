package runner

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/shellparse"
)

// A program that takes file names from a list (shellparse.NameInput) reads
// files no check of its argv saw. So before it runs, rein reads the list
// ahead, hands it to the policy as a fact, and gives the program the same
// bytes.

// maxNameInput bounds what rein reads ahead.
const maxNameInput = 16 << 20

// findNameInput returns the name input of the program argv runs, directly
// or through wrappers (nice xargs cat), the program, and whether it takes one.
func findNameInput(argv []string) (shellparse.NameInput, string, bool) {
	for _, c := range shellparse.AnalyzeArgv(argv, nil).Commands {
		if x, ok := shellparse.NameInputOf(c); ok {
			return x, c.Name, true
		}
	}
	return shellparse.NameInput{}, "", false
}

// readInput reads ahead the file names the program argv runs takes from a
// list (original is argv as the script wrote it, before rein added
// exclusions). It returns the list, the reader the program gets instead of
// stdin (nil: stdin, or no list on it), or why the list cannot be read.
func readInput(argv, original []string, dir string, stdin io.Reader) (*policy.Input, io.Reader, error) {
	x, program, ok := findNameInput(argv)
	if !ok {
		return nil, nil, nil
	}
	var data []byte
	var err error
	switch {
	case x.File != "":
		data, err = readFile(resolveIn(x.File, dir))
	case stdin != nil:
		data, err = readBounded(stdin)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot check the file names %s reads: %w", program, err)
	}
	in := &policy.Input{Program: program, List: x, Data: data}
	if x.Xargs {
		if ox, _, ok := findNameInput(original); ok && ox.Xargs {
			in.Written = &ox
		}
	}
	if x.File != "" || stdin == nil {
		return in, nil, nil
	}
	return in, bytes.NewReader(data), nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f)
}

// readBounded reads all of rd, refusing input longer than maxNameInput.
func readBounded(rd io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(rd, maxNameInput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxNameInput {
		return nil, fmt.Errorf("the list is longer than %d MiB (rein reads it ahead to check it for secrets); give the names in smaller batches", maxNameInput>>20)
	}
	return b, nil
}
