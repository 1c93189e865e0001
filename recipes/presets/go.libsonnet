// go: readonly plus the Go toolchain's build, test and inspection commands.
local rein = import '../helpers.libsonnet';
local p = rein.program;
local s = rein.sub;
// Flags that name a program go runs (or, for gccgo, options of gcc, which
// can run any), or files that replace the sources.
local noExec = ['-exec', '-exec=*', '-toolexec', '-toolexec=*', '-vettool', '-vettool=*', '-overlay', '-overlay=*',
                '-compiler', '-compiler=*', '-gccgoflags', '-gccgoflags=*'];
// Flags naming files or folders go writes.
local outputs = ['-o', '-coverprofile', '-cpuprofile', '-memprofile', '-blockprofile', '-mutexprofile', '-trace', '-outputdir', '-pkgdir', '-modfile',
                 '-test.coverprofile', '-test.cpuprofile', '-test.memprofile', '-test.blockprofile', '-test.mutexprofile', '-test.trace',
                 '-test.outputdir', '-test.gocoverdir', '-test.testlogfile', '-test.fuzzcachedir'];
local outputList = std.join(', ', ['"%s"' % f for f in outputs]);

(import 'dev.libsonnet') + {
  commands+: [
    rein.command('go build ./...', 'Compile every package; prints compiler errors'),
    rein.command('go test ./...', 'Run all tests; add -run REGEX for some, -v for detail, -count=1 to skip the cache'),
    rein.command('go vet ./...', 'Static checks'),
  ],
  programs+: {
    'golangci-lint': p('Go linters (golangci-lint run ./...)', subcommands={
      run: s('Run the linters', deny_flags=['--fix']),
      linters: s('List the linters'),
      version: s('Version'),
      config: s('Show or verify the configuration'),
      fmt: s('Format code (writes files)'),
    }),
    go: p('The Go toolchain', deny_flags=noExec, subcommands={
      build: s('Compile packages'),
      test: s('Run tests (-run, -v, -count=1, -race, -bench)'),
      vet: s('Static checks'),
      list: s('List packages (-m all for modules, -json)'),
      doc: s('Show documentation'),
      version: s('Go version'),
      env: s('Show the Go environment', deny_flags=['-w', '-u']),
      run: s('Build and run a main package'),
      fmt: s('Format packages in place (writes files)', ask=true),
      generate: s('Run //go:generate commands', ask=true),
      get: s('Add or upgrade a dependency (network)', ask=true),
      install: s('Build and install a program (network)', ask=true),
      mod: s('Module maintenance (tidy, download, graph, why, verify)', args=['graph', 'why', 'verify', 'download', 'tidy', 'edit', '*']),
      work: s('Workspace maintenance', ask=true),
      tool: s('Run a Go tool (cover, pprof, ...)', ask=true),
      help: s('Go help'),
      clean: s('Remove build caches', ask=true),
    }),
    gofmt: p('Format Go source (-l lists, -d diffs; -w writes)'),
  },
  // Builds write to Go's caches and may download modules.
  shell+: { unknown_option: 'ask' },
  // The module and build caches are this workspace's own: a test run that
  // rewrote ~/go/pkg/mod would change the code every other project builds.
  env+: { set+: { GOMODCACHE: '$REIN_WORKSPACE_CACHE/go/mod', GOCACHE: '$REIN_WORKSPACE_CACHE/go/build' } },
  // The network is the module proxy's and the checksum database's, for
  // the go commands that fetch modules and run none of the project's code
  // (go test and go run do: run go mod download first): tests and the
  // programs they build reach nothing but their own loopback.
  sandbox+: { mode: 'workspace-write', network: 'granted', write+: ['$REIN_WORKSPACE_CACHE'],
              hosts+: [{ commands: ['go mod download*', 'go mod tidy*', 'go mod verify*', 'go mod graph*', 'go mod why*', 'go get *',
                                    'go build*', 'go vet*', 'go list*', 'go install *'],
                         hosts: ['proxy.golang.org', 'sum.golang.org'] }] },
  rules+: [
    rein.rule('go-mod-network', 'ask', 'go mod tidy/download/edit change go.mod or use the network', each='cmd.name == "go" && cmd.sub == "mod" && len(cmd.positionals) > 1 && cmd.positionals[1] in ["tidy", "download", "edit"]'),
    // go run PKG@VERSION fetches a module and runs it: someone else's code,
    // not the repository's (as go install PKG@VERSION, which asks).
    // go run cmd/go builds the go command from the toolchain's sources and
    // runs it with the rest: go run cmd/go get x is go get x, without the
    // ask go get has here. The toolchain's commands are run as themselves.
    rein.rule('go-run-toolchain', 'deny', 'go run cmd/... runs the Go toolchain\'s own commands (go run cmd/go get x is go get x); run them as go ... instead',
              each='cmd.name == "go" && cmd.sub == "run" && any(cmd.positionals[1:], {# startsWith "cmd/" || # == "cmd"})'),
    // -mod=mod lets go run and go test fetch modules the repository does
    // not require, and run them; go doc -http downloads and runs a server.
    rein.rule('go-fetches-and-runs', 'ask', 'go run or go test with -mod=mod may download and run modules the repository does not require, and go doc -http downloads and runs a documentation server',
              each='cmd.name == "go" && (cmd.sub in ["run", "test", "build", "install"] && "mod" in flagValues(cmd, "-mod") || cmd.sub == "doc" && len(flagValues(cmd, "-http")) + (hasFlag(cmd, "-http") ? 1 : 0) > 0)'),
    rein.rule('go-run-remote', 'ask', 'go run PKG@VERSION downloads and runs code from outside the repository', each='cmd.name == "go" && cmd.sub == "run" && any(cmd.positionals, {# contains "@"})'),
    // The linker runs the program -extld (or -extar) names, and passes
    // -extldflags to it: gcc's -wrapper then runs any command. @FILE reads
    // more flags from a file.
    rein.rule('go-linker-runs', 'deny', 'go -ldflags with -extld, -extar, -extldflags or @FILE makes the linker run another program; build without them (-ldflags "-s -w -X main.version=1" is fine)',
              each='cmd.name == "go" && any(flagValues(cmd, "-ldflags"), {# matches "extld|extar|@"})'),
    rein.rule('go-writes-outside', 'deny', 'go -o and the profile flags (-coverprofile, -cpuprofile, -trace, -outputdir, ...) must name files this recipe lets commands write: inside the workspace, not .git or a recipe; with -C they are read from that folder, so give no -C',
              each='cmd.name == "go" && (any(flagValues(cmd, %s), {!mayWrite(cmd, #)}) || len(flagValues(cmd, "-C")) > 0 && len(flagValues(cmd, %s)) > 0)' % [outputList, outputList]),
    // go run and go test run the code they are given: the workspace's,
    // not a file or package from elsewhere (go run /tmp/x.go, -C /other).
    rein.rule('go-code-in-workspace', 'deny', 'go run and go test run code of the workspace only: .go files and package folders outside it (or -C elsewhere) are code rein has not seen',
              each='cmd.name == "go" && cmd.sub in ["run", "test"] && (any(cmd.positionals[1:], {(# endsWith ".go" || # startsWith "/" || # startsWith "~" || # startsWith "..") && !inside(absPath(cmd, #), workspace)}) || any(flagValues(cmd, "-C"), {!inside(absPath(cmd, #), workspace)}))'),
    rein.rule('gofmt-write', 'ask', 'gofmt -w rewrites files', each='cmd.name == "gofmt" && hasFlag(cmd, "-w")'),
  ],
  tests+: {
    allow+: ['go build ./...', 'go test ./...', 'go test -run TestX -v ./pkg/...', 'go vet ./...', 'go list -m all', 'gofmt -l .', 'go env GOPATH', 'go mod graph', 'go test -count=1 -cover ./...', 'go run ./cmd/x',
             'go build -ldflags "-s -w -X main.version=1.2" .',
             'go test -C sub ./...'],
    ask+: ['rm -rf x', 'go run -mod=mod example.com/tool', 'go test -mod mod ./...', 'go doc -http=:6060', 'go doc -http', 'go get example.com/x@latest', 'go mod tidy', 'gofmt -w .', 'go generate ./...', 'go run golang.org/x/tools/cmd/stringer@latest -type=T',
           'go run -tags x example.com/cmd/x@v1.2.3'],
    deny+: ['go run cmd/go get example.com/x', 'go run cmd/vet ./...', 'go env -w GOFLAGS=-x', 'go test -exec sh ./...', 'go build -toolexec=/tmp/x ./...', 'go build -o /usr/local/bin/x .',
            'go test --exec=sh ./...', 'go vet -vettool=/tmp/x ./...', 'go build --toolexec /tmp/x ./...',
            // The linker running a program of the command's choosing.
            "go build -ldflags='-linkmode=external -extld=/tmp/x' .", "go test -ldflags=\"-linkmode=external '-extldflags=-wrapper sh,-c,id'\" ./...",
            'go build -ldflags all=-extar=/tmp/x .', 'go build --ldflags=@/tmp/flags .', 'go build -compiler=gccgo -gccgoflags=-wrapper,sh .',
            // Writes outside the workspace or into what runs later.
            'go test -coverprofile=/tmp/c.out ./...', 'go test -cpuprofile /etc/cpu.out ./...', 'go build -o ~/bin/x .', 'go build --o=/usr/local/bin/x .',
            'go run /tmp/x.go', 'go run main.go /tmp/evil.go', 'go test ../other/...', 'go test -C /tmp/x ./...', 'go run ~/x/main.go',
            'go build -o .git/hooks/pre-commit ./cmd/x', 'go test -c -o ../x.test ./pkg', 'go test -outputdir=/tmp ./...', 'go build -C .git -o hooks/pre-commit ../cmd/x'],
  },
}
