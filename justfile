# rein's everyday tasks. The README's two commands work without just.

default: test

# Build the rein binary into ./bin
build:
    CGO_ENABLED=0 go build -o bin/rein ./cmd/rein

# Run the test suite
test:
    go test ./...

# Vetting and parsing benchmarks over the nl2bash corpus (../shared), 10 runs for benchstat
bench:
    go test ./engine/policy -run '^$' -bench 'Parse|Vet' -benchmem -count 10 | tee bench.txt

# Fuzz analyse+decide (default 2 minutes)
fuzz time="2m":
    go test ./engine/policy -run '^$' -fuzz '^FuzzVet$' -fuzztime {{time}}

# gofmt, go vet and cross-builds
lint:
    test -z "$(gofmt -l $(git ls-files '*.go'))"
    go vet ./...
    GOOS=darwin go build ./...
    GOOS=windows go build ./...

# Everything CI runs
ci:
    bash .ci/run
