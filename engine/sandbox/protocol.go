package sandbox

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// The helper is rein itself ("rein __sandbox") or, where it lies beside
// rein's executable, the small rein-sandbox binary (cmd/rein-sandbox), which
// starts in a quarter of the time: it links only this package. The two must
// be built from the same sources, or a helper could apply an older, weaker
// reading of the configuration. So the configuration carries a protocol:
// the release both were built from and the shape of Config; a helper whose
// own differs refuses to run anything (fail closed), and rein only looks
// for rein-sandbox when it was built from a release (go install ...@v1.2.3),
// not from a working tree whose sources may differ from the helper's.

// SiblingHelper is the name of the small helper beside rein's executable.
const SiblingHelper = "rein-sandbox"

// Protocol is this build's protocol: the release it was built from ("" for
// a working tree) and Config's shape.
func Protocol() string { return protocol() }

// protocol is Protocol, worked out once (a variable: tests replace it).
var protocol = sync.OnceValue(func() string {
	release := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		if v != "" && v != "(devel)" && !strings.Contains(v, "+dirty") {
			release = bi.Main.Path + "@" + v
		}
	}
	return release + "/" + configShape()
})

// configShape is a fingerprint of the fields Config carries, as JSON sees
// them, nested types included.
func configShape() string {
	h := fnv.New64a()
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			fmt.Fprint(h, t.Kind(), ":")
			t = t.Elem()
		}
		fmt.Fprint(h, t.Kind(), t.Name(), ";")
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fmt.Fprint(h, f.Name, "=", f.Tag.Get("json"), "(")
			walk(f.Type)
			fmt.Fprint(h, ")")
		}
	}
	walk(reflect.TypeOf(Config{}))
	return fmt.Sprintf("%016x", h.Sum64())
}

// checkProtocol is the helper's test of a configuration rein sent.
func checkProtocol(c Config) error {
	if c.Protocol == protocol() {
		return nil
	}
	self, _ := os.Executable()
	return fmt.Errorf("the sandbox helper %s was built from other sources than the rein that started it (%q, not %q); install both again (go install github.com/reinsh/rein/cmd/...@latest), or remove %s to let rein be its own helper", self, c.Protocol, protocol(), self)
}

// Helper is the program that applies the sandbox for rein at self (its own
// executable): the small rein-sandbox beside it when rein was built from a
// release and that file is one no sandboxed command could have written,
// else rein itself.
func (c *Config) Helper(self string) string {
	sibling := filepath.Join(filepath.Dir(self), SiblingHelper)
	if !strings.HasPrefix(protocol(), "/") && c.trustworthy(sibling) {
		return sibling
	}
	return self
}

// trustworthy reports whether path is an executable file outside every
// place a command may write under any recipe of this workspace (rein
// installed inside the workspace it guards would otherwise run a helper a
// command left there), writable by its owner alone.
func (c *Config) trustworthy(path string) bool {
	if c.Workspace != "" && within(path, c.Workspace) || slices.ContainsFunc(c.Write, func(w string) bool { return within(path, w) }) {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 && st.Mode().Perm()&0o022 == 0
}
