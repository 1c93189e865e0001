package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func benchRun(b *testing.B, args ...string) {
	dir := b.TempDir()
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("REIN_CACHE_DIR", b.TempDir())
	b.Setenv("REIN_DB", filepath.Join(b.TempDir(), "rein.db"))
	run(append([]string{"--dir", dir}, args...), &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}) // warm the cache
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		run(append([]string{"--dir", dir}, args...), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &out})
	}
}

// In-process costs (no process start): what rein itself adds.
func BenchmarkInProcessCheck(b *testing.B)   { benchRun(b, "check", "git status") }
func BenchmarkInProcessExec(b *testing.B)    { benchRun(b, "exec", "true") }
func BenchmarkInProcessVersion(b *testing.B) { benchRun(b, "version") }

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// reinBinary builds rein once for the whole-process benchmarks, which
// measure the binary a person installs. Tests start this test binary as
// rein instead (REIN_TEST_MAIN).
func reinBinary(b testing.TB) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rein-bench")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "rein")
		// -buildvcs=false: the build needs no git, which refuses a clone
		// owned by another user (the suite's rerun as nobody).
		cmd := exec.Command("go", "build", "-buildvcs=false", "-o", binary, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if buildErr != nil {
		// A failed build is a failure: every test that needs rein's binary
		// would otherwise pass by skipping.
		b.Fatalf("cannot build rein: %v", buildErr)
	}
	return binary
}

func benchProcess(b *testing.B, name string, args ...string) {
	dir := b.TempDir()
	b.Setenv("REIN_CACHE_DIR", b.TempDir())
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("REIN_DB", filepath.Join(b.TempDir(), "rein.db"))
	run := func() {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run() // warm the compile cache
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}

// Whole-process: rein exec 'true' against bash -c true, same run.
func BenchmarkProcessReinExecTrue(b *testing.B) { benchProcess(b, reinBinary(b), "exec", "true") }
func BenchmarkProcessReinCheck(b *testing.B) {
	benchProcess(b, reinBinary(b), "check", "git status")
}
func BenchmarkProcessBashTrue(b *testing.B) {
	if _, err := exec.LookPath("bash"); err != nil {
		b.Skip("no bash")
	}
	benchProcess(b, "bash", "-c", "true")
}

// The floor of every rein process: start, package inits, parse flags, print.
func BenchmarkProcessReinVersion(b *testing.B) { benchProcess(b, reinBinary(b), "version") }

// roundTrips is the number of tool round trips in one benchmarked ask.
const roundTrips = 50

// The agent loop's cost per tool round trip, the command excluded: a
// scripted model asks for list_directory fifty times, then answers; the
// session is written to a real database as rein ask always does. Compare
// with BenchmarkBareModelRequest, the same server answering a plain client.
func BenchmarkAskRoundTrip(b *testing.B) {
	bodies := make([]string, 0, roundTrips+1)
	for range roundTrips {
		bodies = append(bodies, sseCall("list_directory", `{"path":"."}`))
	}
	bodies = append(bodies, sseText("done"))
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("REIN_CACHE_DIR", b.TempDir())
	b.Setenv("REIN_DB", filepath.Join(b.TempDir(), "rein.db"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv, _ := modelServer(b, bodies...)
		b.StartTimer()
		var out bytes.Buffer
		code := run([]string{"--dir", dir, "ask", "--max-turns", "60", "-m", "openai-compatible:m", "--base-url", srv.URL, "list it"},
			&env{stdin: strings.NewReader(""), stdout: &out, stderr: &out})
		if code != exitOK {
			b.Fatalf("exit %d: %s", code, out.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(roundTrips+1)), "ns/turn")
}

// A bare Go client's request to the same scripted server, with a body the
// size of the loop's: the floor the loop is measured against.
func BenchmarkBareModelRequest(b *testing.B) {
	body := sseCall("list_directory", `{"path":"."}`)
	srv, _ := modelServer(b, slices.Repeat([]string{body}, b.N+1)...)
	req := strings.Repeat(`{"role":"tool","content":"a.txt"}`, 40)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(req))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/turn")
}
