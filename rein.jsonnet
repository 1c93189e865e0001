// rein.jsonnet for rein itself: what a model (and `rein exec`) may run here.
// Started with `rein init`; CI checks it with `rein test`.
local rein = import 'rein.libsonnet';

rein.presets.go + rein.presets.git + {
  commands+: [
    rein.command('go test ./shellparse/... ./engine/policy/...', 'The analysis and policy tests: fast, run them after touching vetting'),
    rein.command('bash .ci/run', 'Everything CI runs (gofmt, vet on three OSes, builds, tests, race, a short fuzz): about a minute'),
  ],
  // ./.ci/run and the fuzz/bench tasks start their own processes: the kernel
  // sandbox still confines them to the workspace and Go's caches.
  programs+: {
    bash: rein.program('Only to run the CI script', args=['.ci/run']),
  },
  // What the programs' rules here do not list is refused, not asked
  // (the dev-based presets ask): bash runs .ci/run and nothing else.
  default: 'deny',
  tasks+: {
    test: rein.task('Run the tests of a package pattern', run='go test "$pattern"', expose=true,
                    params={ pattern: rein.param('string', 'package pattern', default='./...') }),
    'vet-darwin': rein.task('go vet for macOS', run='go vet ./...', env={ GOOS: 'darwin' }),
    'vet-windows': rein.task('go vet for Windows', run='go vet ./...', env={ GOOS: 'windows' }),
    vet: rein.task('Static checks for all three platforms', run='go vet ./...', deps=['vet-darwin', 'vet-windows']),
    bench: rein.task('Parse vs vet benchmark over the corpus', run='go test ./engine/policy -run "^$" -bench "Parse$|Vet$|VetOverParse$" -benchmem -count "$count"',
                     params={ count: rein.param('int', 'runs, for benchstat', default=6) }),
    fuzz: rein.task('Fuzz analyse+decide', run='go test ./engine/policy -run "^$" -fuzz "^FuzzVet$" -fuzztime "$time"',
                    params={ time: rein.param('string', 'how long, e.g. 2m', default='1m') }, timeout='30m'),
  },
  limits+: { max_timeout: '30m' },
  tests+: {
    allow+: ['go test ./shellparse/... ./engine/policy/...', 'bash .ci/run', 'go test -run TestCorpus -v ./engine/policy'],
    deny+: ['bash -c "rm -rf /"', 'bash evil.sh', 'go build -o /usr/local/bin/rein ./cmd/rein', 'git push origin main'],
  },
}
