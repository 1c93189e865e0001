//go:build linux

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/store"
)

// The fault suite: rein killed at random points and put under load, with
// the figures it measures printed (go test -v, or just faults). Each "must
// be 0" is an assertion. REIN_FAULTS_N sets the number of kills (default 50).

// faultRecipe lets the suite's commands run without a sandbox, so that a
// command left behind would be seen, not hidden by one.
const faultRecipe = `{ allow: ['sleep *', 'sh *', 'echo *'], shell: { background: 'allow' }, sandbox: { mode: 'off' } }`

func faultSetup(t *testing.T) (dir, db string, env []string) {
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(faultRecipe), 0o644); err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(t.TempDir(), "rein.db")
	env = append(os.Environ(), "REIN_TEST_MAIN=1", "CI=true", "REIN_DB="+db, "REIN_CACHE_DIR="+t.TempDir())
	return dir, db, env
}

func faultRuns() int {
	if n, err := strconv.Atoi(os.Getenv("REIN_FAULTS_N")); err == nil && n > 0 {
		return n
	}
	return 50
}

// SIGKILL of rein exec before, during and after its command and its
// database writes: nothing it started may outlive it, the database must
// stay sound, and every command whose rein finished must be in the audit
// log as ended.
func TestFaultKillExec(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: starts and kills rein")
	}
	dir, db, env := faultSetup(t)
	const marker = "3.17" // the background sleep each command leaves
	n := faultRuns()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 29))
	var finished []string
	killed, leftBehind := 0, 0
	for i := range n {
		name := fmt.Sprintf("fault-%d", i)
		cmd := exec.Command(os.Args[0], "--dir", dir, "exec", "sh -c 'sleep "+marker+" & sleep 0.04' "+name)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// Startup, vetting, the started record, the command (40 ms) and the
		// ended record all fall inside this window.
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s ended on its own with %v", name, err)
			}
			finished = append(finished, name)
		case <-time.After(time.Duration(rng.IntN(120)) * time.Millisecond):
			cmd.Process.Signal(syscall.SIGKILL)
			if err := <-done; err == nil {
				finished = append(finished, name) // it ended just before the kill
			} else {
				killed++
			}
		}
		deadline := time.Now().Add(3 * time.Second)
		for len(sleepers(marker)) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if left := sleepers(marker); len(left) > 0 {
			leftBehind += len(left)
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	integrity := "ok"
	if err := st.Check(context.Background()); err != nil {
		integrity = err.Error()
	}
	rows, err := st.Audit(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ended, interrupted, running := map[string]bool{}, 0, 0
	for _, r := range rows {
		switch r.State {
		case store.Ended:
			ended[r.Command[strings.LastIndex(r.Command, " ")+1:]] = true
		case store.Interrupted:
			interrupted++
		case store.Running:
			running++
		}
	}
	lost := 0
	for _, name := range finished {
		if !ended[name] {
			lost++
		}
	}
	t.Logf("rein exec killed at random points (seed %d): %d runs, %d killed, %d finished; processes left behind: %d (must be 0); integrity_check: %s; finished commands missing from the audit: %d (must be 0); audited as interrupted: %d; still running: %d (must be 0)",
		seed, n, killed, len(finished), leftBehind, integrity, lost, interrupted, running)
	if leftBehind > 0 || integrity != "ok" || lost > 0 || running > 0 {
		t.Fail()
	}
}

// Many rein exec at once into one database: none may fail or find it
// locked; the figures are each call's whole-process latency.
func TestFaultConcurrentExec(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: starts many rein processes")
	}
	dir, db, env := faultSetup(t)
	const n = 50
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  []string
		locked    int
		wg        sync.WaitGroup
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "--dir", dir, "exec", fmt.Sprintf("echo load-%d", i))
			cmd.Env = env
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			latencies = append(latencies, took)
			if strings.Contains(string(out), "locked") {
				locked++
			}
			if err != nil || strings.Contains(string(out), "warning") {
				failures = append(failures, fmt.Sprintf("load-%d: %v: %s", i, err, out))
			}
		}()
	}
	wg.Wait()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Audit(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(latencies)
	p := func(q float64) time.Duration {
		return latencies[int(q*float64(len(latencies)-1))].Round(time.Millisecond)
	}
	t.Logf("%d concurrent rein exec into one database: errors %d (must be 0), \"database is locked\" %d (must be 0), audit records %d of %d, latency p50 %s p99 %s",
		n, len(failures), locked, len(rows), n, p(0.5), p(0.99))
	if len(failures) > 0 || locked > 0 || len(rows) != n {
		t.Errorf("failures: %s", strings.Join(failures, "\n"))
	}
}
