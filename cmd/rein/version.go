package main

import (
	"fmt"
	"runtime"

	"github.com/reinsh/rein/engine/version"
)

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	_, err := fmt.Fprintf(e.stdout, "rein %s (%s %s/%s)\n", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
