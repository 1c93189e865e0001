package policy_test

import (
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// Build and test tools' output options (go build -o, go test -coverprofile,
// rustc --out-dir, pytest --junitxml) write where the recipe lets commands
// write: paths.write, never .git or a recipe, never outside the workspace.
// The presets' own tests hold only the denials, which stay denials under a
// narrower paths.write; the allowed writes are here, for the presets' paths
// (the whole workspace) and for a recipe narrowing them.
func TestOutputOptionsFollowPathsWrite(t *testing.T) {
	wantVerdicts(t, presetPolicy(t, "go"), map[string]policy.Verdict{
		"go build -o bin/x ./cmd/x":                  policy.Allow,
		"go test -coverprofile=cover.out ./...":      policy.Allow,
		"go test -cpuprofile cpu.out -bench . ./pkg": policy.Allow,
		"go test -count=1 -cover ./...":              policy.Allow,
		"cd sub && go build -o ../bin/x .":           policy.Allow,
		"cd sub && go build -o ../../x .":            policy.Deny,
		"go build -o rein.jsonnet .":                 policy.Deny,
		"go test -c -o /tmp/x.test ./pkg":            policy.Deny,
	})
	wantVerdicts(t, presetPolicy(t, "rust"), map[string]policy.Verdict{
		"rustc -o target/x src/main.rs":         policy.Allow,
		"rustc --out-dir target src/main.rs":    policy.Allow,
		"cargo build --target-dir target/other": policy.Allow,
		"rustc --out-dir=/usr/lib src/main.rs":  policy.Deny,
	})
	wantVerdicts(t, presetPolicy(t, "python"), map[string]policy.Verdict{
		"pytest --junitxml=reports/junit.xml":        policy.Allow,
		"python -m pytest --report-log log.json":     policy.Allow,
		"python -m pytest --report-log ../log.json":  policy.Deny,
		"pytest --basetemp=build/tmp":                policy.Ask,
		"python3 -m pytest --basetemp=/tmp/pytest-x": policy.Deny,
	})
	narrow := recipePolicy(t, `
local rein = import 'rein.libsonnet';
rein.presets.go + { paths+: { write: ['out/**'] } }`)
	wantVerdicts(t, narrow, map[string]policy.Verdict{
		"go build -o out/x ./cmd/x":                 policy.Allow,
		"go build -o bin/x ./cmd/x":                 policy.Deny,
		"go test -coverprofile=out/cover.out ./...": policy.Allow,
		"go test -coverprofile=cover.out ./...":     policy.Deny,
	})
}
