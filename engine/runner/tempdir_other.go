//go:build !unix

package runner

import "os"

// commandTempDir makes a command's private temp folder.
func commandTempDir() (string, error) { return os.MkdirTemp("", "rein-tmp-") }
