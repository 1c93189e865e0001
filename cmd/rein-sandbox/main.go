// Command rein-sandbox is rein's sandbox helper on its own: it applies a
// sandbox configuration (Landlock, namespaces, limits), starts the program
// and supervises it, as "rein __sandbox" does, but it links only the
// sandbox package, so it starts in about a quarter of rein's time. rein uses
// it when it lies beside rein's own executable (go install ./cmd/...); it is
// never run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/reinsh/rein/engine/sandbox"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != sandbox.HelperArg {
		fmt.Fprintln(os.Stderr, "rein-sandbox: rein's sandbox helper; rein starts it, with a configuration, for each program it runs")
		os.Exit(2)
	}
	sandbox.Main(os.Args[2:])
}
