package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// BenchmarkReplayHistory replays a Claude Code transcript of 100,000 tool
// calls (the recorded test transcript, repeated) in one rein process, and
// reports the calls it vets a second and the process's peak memory: the
// figures the README gives for rein replay.
func BenchmarkReplayHistory(b *testing.B) {
	bin := reinBinary(b)
	dir := b.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "history", "claude-code.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	one := strings.ReplaceAll(string(src), "WORKSPACE", dir)
	if !strings.HasSuffix(one, "\n") {
		one += "\n"
	}
	transcript := filepath.Join(b.TempDir(), "s-1.jsonl")
	// The recorded transcript holds 10 calls.
	if err := os.WriteFile(transcript, []byte(strings.Repeat(one, 10000)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("REIN_CACHE_DIR", b.TempDir())
	b.Setenv("REIN_DB", filepath.Join(b.TempDir(), "rein.db"))
	var calls int
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "--dir", dir, "--preset", "dev", "replay", "--from", "claude-code", "--json", transcript)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("rein replay: %v", err)
		}
		var got struct{ Calls int }
		if err := json.Unmarshal(out, &got); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		calls += got.Calls
		peak = max(peak, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(peak)/1024, "MB-peak")
}
