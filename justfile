# rein's everyday tasks. The README's two commands work without just.

default: test

# Build rein and its sandbox helper into ./bin (static: they start faster)
build:
    CGO_ENABLED=0 go build -o bin/ ./cmd/rein ./cmd/rein-sandbox

# Run the test suite
test:
    go test ./...

# Vetting and parsing benchmarks over the nl2bash corpus (../shared), 10 runs for benchstat
bench:
    go test ./engine/policy -run '^$' -bench 'Parse|Vet' -benchmem -count 10 | tee bench.txt

# Fuzz analyse+decide (default 2 minutes)
fuzz time="2m":
    go test ./engine/policy -run '^$' -fuzz '^FuzzVet$' -fuzztime {{time}}

# The oracle: generated commands vetted under readonly and run for real under the sandbox (default 5000; CI runs 600)
oracle n="5000" seed="1":
    REIN_ORACLE_N={{n}} REIN_ORACLE_SEED={{seed}} go test ./engine/runner -run '^TestOracle$' -v -timeout 60m

# The fault suite: rein killed at random points and under load, with its figures (default 50 kills)
faults n="50":
    REIN_FAULTS_N={{n}} go test ./cmd/rein -run '^TestFault' -v -count 1 | grep -E 'faults_|^(---|ok|FAIL)'

# Fuzz the program table's parser and the awk reader (default 1 minute each)
fuzz-parsers time="1m":
    go test ./engine/programs -run '^$' -fuzz '^FuzzParse$' -fuzztime {{time}}
    go test ./shellparse -run '^$' -fuzz '^FuzzAwk$' -fuzztime {{time}}

# gofmt, go vet and cross-builds
lint:
    test -z "$(gofmt -l $(git ls-files '*.go'))"
    go vet ./...
    GOOS=darwin go build ./...
    GOOS=windows go build ./...

# Everything CI runs
ci:
    bash .ci/run
