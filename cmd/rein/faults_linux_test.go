//go:build linux

package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/report"
	"github.com/reinsh/rein/engine/store"
)

// The fault suite: rein killed at random points and put under load, with
// the figures it measures printed (go test -v, or just faults). Each "must
// be 0" is an assertion. REIN_FAULTS_N sets the number of kills (default 50).

// faultRecipe lets the suite's commands run without a sandbox, so that a
// command left behind would be seen, not hidden by one.
const faultRecipe = `{ allow: ['sleep *', 'sh *', 'echo *', 'head *'], shell: { background: 'allow' }, sandbox: { mode: 'off' } }`

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
	marker := sleepMarker("3.17") // the background sleep each command leaves
	k := newKillRuns(t, 29)
	for i := range k.n {
		name := fmt.Sprintf("fault-%d", i)
		// Every other command would run on for seconds if rein's death
		// went unheard; the rest end soon, so that some finish.
		fg := "0.04"
		if i%2 == 1 {
			fg = marker
		}
		cmd := exec.Command(os.Args[0], "--dir", dir, "exec", "sh -c 'sleep "+marker+" & sleep "+fg+"' "+name)
		cmd.Env = env
		// Startup, vetting, the started record, the command (40 ms) and the
		// ended record all fall inside this window.
		k.ran(t, name, marker, runOrKill(t, cmd, time.Duration(k.rng.IntN(120))*time.Millisecond))
	}
	tally := tallyKills(t, db, k.finished)
	t.Logf("%s; integrity_check: %s; finished commands missing from the audit: %d (must be 0); audited as interrupted: %d; still running: %d (must be 0)",
		k.summary("rein exec killed at random points", "finished"), tally.integrity, tally.lost, tally.interrupted, tally.running)
	if k.leftBehind > 0 || tally.failed() {
		t.Fail()
	}
}

// rein exec keeps a command's record before the command runs: with the
// database held by another writer, the command waits; once the record is
// in, it runs.
func TestExecRunsAfterItsRecord(t *testing.T) {
	dir, db, env := faultSetup(t)
	if err := os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{ allow: ['touch *'], sandbox: { mode: 'off' } }`), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	ctx := context.Background()
	holder, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "--dir", dir, "exec", "touch made")
	cmd.Env = env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	_, early := os.Stat(filepath.Join(dir, "made"))
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out.String())
	}
	if early == nil {
		t.Error("the command ran before its record was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err != nil {
		t.Errorf("the command did not run once its record was in: %v\n%s", err, out.String())
	}
	st, err = store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Audit(ctx, store.Filter{})
	if err != nil || len(rows) != 1 || rows[0].State != store.Ended || rows[0].Command != "touch made" {
		t.Errorf("audit %+v, %v; want touch made, ended", rows, err)
	}
}

// rein exec leaves its database open when it ends (the next open copies
// the log in): one run after another, every record is there and ended, the
// database sound, and the log stays small rather than growing with runs.
func TestExecLeavesTheLogSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rein 40 times")
	}
	dir, db, env := faultSetup(t)
	const runs = 40
	for i := range runs {
		cmd := exec.Command(os.Args[0], "--dir", dir, "exec", fmt.Sprintf("echo run-%d", i))
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, out)
		}
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows, err := st.Audit(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ended := 0
	for _, r := range rows {
		if r.State == store.Ended {
			ended++
		}
	}
	if len(rows) != runs || ended != runs {
		t.Errorf("%d records, %d ended; want %d of each", len(rows), ended, runs)
	}
	if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > 256<<10 {
		t.Errorf("after %d runs the log is %d bytes", runs, fi.Size())
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

// Bad state on disk: each case gets a clear message naming the file (or
// no message where rein can simply redo the work), never a crash, and the
// person's command still runs where the damage is only to the audit log.
func TestFaultBadState(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: runs rein against damaged state")
	}
	type outcome struct {
		ran  bool   // the command ran
		code int    // rein's exit status
		says string // what stderr must hold ("" for nothing)
	}
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, db, cache, state string)
		noCI   bool // recipe approval is checked (CI=true approves)
		root   bool // skipped as root, whom permissions do not stop
		exec   outcome
		audit  outcome
		kept   int // audit rows still readable after the damage (-1: none)
	}{
		{name: "corrupt database", damage: func(t *testing.T, db, _, _ string) {
			writeFile(t, db, strings.Repeat("not a database ", 400))
			os.Remove(db + "-wal")
			os.Remove(db + "-shm")
		}, exec: outcome{true, 0, "is corrupt"}, audit: outcome{false, 2, "is corrupt"}, kept: -1},
		{name: "truncated database", damage: func(t *testing.T, db, _, _ string) {
			// The records in the database file itself, as a last close
			// leaves them (rein exits with them in the log): the log then
			// holds nothing the file lacks, and the file is cut short.
			st, err := store.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			os.Remove(db + "-wal")
			os.Remove(db + "-shm")
			if err := os.Truncate(db, 2048); err != nil {
				t.Fatal(err)
			}
		}, exec: outcome{true, 0, "is corrupt"}, audit: outcome{false, 2, "is corrupt"}, kept: -1},
		{name: "corrupt recipe cache", damage: func(t *testing.T, _, cache, _ string) {
			files, _ := filepath.Glob(filepath.Join(cache, "recipes", "*"))
			if len(files) == 0 {
				t.Fatal("no compiled recipe in the cache")
			}
			for _, f := range files {
				writeFile(t, f, "{\"truncated")
			}
		}, exec: outcome{true, 0, ""}, audit: outcome{true, 0, ""}, kept: 2},
		{name: "corrupt approvals file", noCI: true, damage: func(t *testing.T, _, _, state string) {
			writeFile(t, filepath.Join(state, "rein", "trusted.json"), "{\"recipes\": [")
		}, exec: outcome{false, 2, "trusted.json are not valid JSON"}, audit: outcome{true, 0, ""}, kept: 1},
		// The log and its index are kept beside the database: in a folder
		// made read-only, the files rein already has are still written.
		{name: "database in a read-only folder", root: true, damage: func(t *testing.T, db, _, _ string) {
			os.Chmod(filepath.Dir(db), 0o555)
			t.Cleanup(func() { os.Chmod(filepath.Dir(db), 0o755) })
		}, exec: outcome{true, 0, ""}, audit: outcome{true, 0, ""}, kept: 2},
		{name: "database the user may not write", root: true, damage: func(t *testing.T, db, _, _ string) {
			for _, f := range []string{db, db + "-wal", db + "-shm"} {
				os.Chmod(f, 0o444)
			}
			os.Chmod(filepath.Dir(db), 0o555)
			t.Cleanup(func() { os.Chmod(filepath.Dir(db), 0o755) })
		}, exec: outcome{true, 0, "not audited"}, audit: outcome{true, 0, ""}, kept: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.root && os.Geteuid() == 0 {
				t.Skip("running as root, whom file permissions do not stop")
			}
			dir, db, env := faultSetup(t)
			cache, state := t.TempDir(), t.TempDir()
			env = append(env, "REIN_CACHE_DIR="+cache, "XDG_STATE_HOME="+state)
			rein := func(args ...string) (string, string, int) {
				cmd := exec.Command(os.Args[0], append([]string{"--dir", dir}, args...)...)
				cmd.Env = env
				if c.noCI {
					cmd.Env = append(env, "CI=")
				}
				var out, errOut strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errOut
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if s := errOut.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
					t.Fatalf("rein %s crashed:\n%s", strings.Join(args, " "), s)
				}
				return out.String(), errOut.String(), code
			}
			// A healthy first run (its last close leaves every record in the
			// database file itself): a record, a compiled recipe, an approval.
			if c.noCI {
				if _, errOut, code := rein("trust"); code != 0 {
					t.Fatalf("rein trust: exit %d: %s", code, errOut)
				}
			}
			if _, errOut, code := rein("exec", "echo before"); code != 0 {
				t.Fatalf("healthy run: exit %d: %s", code, errOut)
			}
			c.damage(t, db, cache, state)
			check := func(what string, want outcome, args ...string) string {
				out, errOut, code := rein(args...)
				if code != want.code || want.says != "" && !strings.Contains(errOut, want.says) || want.says == "" && errOut != "" {
					t.Errorf("%s: exit %d, stderr %q; want exit %d saying %q", what, code, errOut, want.code, want.says)
				}
				if want.says != "" && !strings.Contains(errOut, filepath.Base(db)) && !strings.Contains(errOut, "trusted.json") {
					t.Errorf("%s: the message names no file: %s", what, errOut)
				}
				return out
			}
			if out := check("exec", c.exec, "exec", "echo after"); strings.Contains(out, "after") != c.exec.ran {
				t.Errorf("exec ran: %v, want %v (%q)", !c.exec.ran, c.exec.ran, out)
			}
			out := check("audit", c.audit, "audit", "--json")
			if rows := strings.Count(out, "\n"); c.kept >= 0 && rows != c.kept {
				t.Errorf("audit kept %d rows, want %d:\n%s", rows, c.kept, out)
			}
		})
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A full disk under the database: the command still runs, the warning says
// the disk is full, and the records already there stay readable. The disk
// is a small tmpfs mounted in a mount namespace of the test's own (unshare
// -m), where this test runs itself again to do the work.
func TestFaultFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: runs rein on a full disk")
	}
	onPrivateDisk(t, "TestFaultFullDisk", fullDisk)
}

// A database on a disk that turned read-only (so that even root cannot
// write): the command still runs, the warning names the file, and the
// records there stay readable.
func TestFaultReadOnlyDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: runs rein on a read-only disk")
	}
	onPrivateDisk(t, "TestFaultReadOnlyDisk", readOnlyDisk)
}

// onPrivateDisk runs the test again inside a mount namespace of its own
// (unshare -m) with a 512 KiB tmpfs mounted for it, where inner does the
// work; outside, it skips with the reason when no such disk can be had.
func onPrivateDisk(t *testing.T, name string, inner func(t *testing.T, disk string)) {
	if disk := os.Getenv("REIN_FAULT_DISK"); disk != "" {
		inner(t, disk)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare here to mount a small disk")
	}
	disk := t.TempDir()
	probe := exec.Command(unshare, "-m", "--propagation", "private", "mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", disk)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	// $0 is the folder, the rest the test binary and its flags.
	run := exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c", `mount -t tmpfs -o size=512k tmpfs "$0" && exec "$@"`,
		disk, os.Args[0], "-test.run", "^"+name+"$", "-test.v")
	run.Env = append(os.Environ(), "REIN_FAULT_DISK="+disk)
	out, err := run.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "faults_linux_test.go") {
			t.Log(strings.TrimSpace(line))
		}
	}
	if err != nil {
		t.Fatalf("on a private disk: %v\n%s", err, out)
	}
}

func readOnlyDisk(t *testing.T, disk string) {
	dir, _, env := faultSetup(t)
	db := filepath.Join(disk, "rein.db")
	env = append(env, "REIN_DB="+db)
	rein := func(args ...string) (string, string) { return reinOn(t, dir, env, args...) }
	for i := range 3 {
		if _, errOut := rein("exec", fmt.Sprintf("echo before-%d", i)); errOut != "" {
			t.Fatalf("before the disk turned read-only: %s", errOut)
		}
	}
	if err := syscall.Mount("", disk, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	out, errOut := rein("exec", "echo after")
	ran := strings.Contains(out, "after")
	warned := strings.Contains(errOut, "not audited") && strings.Contains(errOut, db)
	out, auditErr := rein("audit", "--json")
	kept := strings.Count(out, "before-")
	t.Logf("database on a read-only disk: the command ran: %v; warned naming the file: %v (%s); records still readable: %d of 3 (must be 3)%s",
		ran, warned, report.Clip(strings.TrimSpace(errOut), 200), kept, report.Clip(strings.TrimSpace(auditErr), 200))
	if !ran || !warned || kept != 3 {
		t.Errorf("on a read-only disk: ran %v, warned %v, kept %d", ran, warned, kept)
	}
}

func fullDisk(t *testing.T, disk string) {
	dir, _, env := faultSetup(t)
	db := filepath.Join(disk, "rein.db")
	env = append(env, "REIN_DB="+db)
	rein := func(args ...string) (string, string) { return reinOn(t, dir, env, args...) }
	for i := range 3 {
		if _, errOut := rein("exec", fmt.Sprintf("echo before-%d", i)); errOut != "" {
			t.Fatalf("before the disk filled: %s", errOut)
		}
	}
	// Fill what is left.
	f, err := os.Create(filepath.Join(disk, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			break
		}
	}
	f.Close()
	// The log's pages already on disk still take some records; the
	// rest must each be refused with a warning, never lost in silence.
	const n = 20
	warned := map[string]bool{}
	for i := range n {
		name := fmt.Sprintf("after-%d", i)
		// A long word: each record needs pages of its own.
		out, errOut := rein("exec", "echo "+name+" "+strings.Repeat("x", 3000))
		if !strings.Contains(out, name) {
			t.Errorf("the command did not run on a full disk: %q %q", out, errOut)
		}
		if errOut != "" {
			if !strings.Contains(errOut, "disk is full") || !strings.Contains(errOut, db) {
				t.Errorf("the warning does not say the disk at %s is full: %q", db, errOut)
			}
			warned[name] = true
		}
	}
	out, errOut := rein("audit", "--json")
	kept := strings.Count(out, "before-")
	audited, lost := 0, 0
	for i := range n {
		name := fmt.Sprintf("after-%d", i)
		switch {
		case strings.Contains(out, "echo "+name+" "):
			audited++
		case !warned[name]:
			lost++
		}
	}
	t.Logf("full disk under the database: %d commands run, %d audited, %d refused with \"disk is full\", %d lost in silence (must be 0); earlier records still readable: %d of 3 (must be 3)",
		n, audited, len(warned), lost, kept)
	if kept != 3 || lost > 0 || len(warned) == 0 {
		t.Errorf("records readable after the disk filled: %d of 3; lost %d; warned %d (%s)", kept, lost, len(warned), errOut)
	}
}

// processLine describes a process and its parents, for a failure message.
func processLine(pid int) string {
	var parts []string
	for pid > 1 && len(parts) < 4 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			break
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		// pid (comm) state ppid ...
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		wchan, _ := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", pid))
		parts = append(parts, fmt.Sprintf("%d %s %s %q", pid, fields[0], wchan, report.Clip(strings.ReplaceAll(string(cmdline), "\x00", " "), 60)))
		if len(fields) < 2 {
			break
		}
		pid, _ = strconv.Atoi(fields[1])
	}
	return strings.Join(parts, " <- ")
}

// One MCP client, 200 tool calls, 16 in flight, into one rein mcp: none may
// fail or find the database locked, and every call is audited.
func TestFaultMCPLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: loads rein mcp")
	}
	dir, db, env := faultSetup(t)
	cmd := exec.Command(os.Args[0], "--dir", dir, "mcp")
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "faults", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const calls, inFlight = 200, 16
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  []string
		locked    int
		wg        sync.WaitGroup
	)
	slots := make(chan struct{}, inFlight)
	for i := range calls {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			start := time.Now()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command",
				Arguments: map[string]any{"command": fmt.Sprintf("echo call-%d", i), "reason": "load"}})
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			latencies = append(latencies, took)
			var text strings.Builder
			if res != nil {
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text.WriteString(tc.Text)
					}
				}
			}
			if strings.Contains(text.String(), "locked") {
				locked++
			}
			if err != nil || res.IsError || !strings.Contains(text.String(), fmt.Sprintf("call-%d", i)) {
				failures = append(failures, fmt.Sprintf("call-%d: %v %s", i, err, report.Clip(text.String(), 200)))
			}
		}()
	}
	wg.Wait()
	cs.Close()
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
		return latencies[int(q*float64(len(latencies)-1))].Round(100 * time.Microsecond)
	}
	t.Logf("rein mcp, %d calls with %d in flight: errors %d (must be 0), \"database is locked\" %d (must be 0), audit records %d of %d, latency p50 %s p99 %s",
		calls, inFlight, len(failures), locked, len(rows), calls, p(0.5), p(0.99))
	if len(failures) > 0 || locked > 0 || len(rows) != calls {
		t.Errorf("failures:\n%s", strings.Join(failures, "\n"))
	}
}

// leftBehindBy counts (and then kills) the processes whose command line
// holds marker once a killed rein's have had time to go. A helper rein
// started just before it died may still be starting: none seen twice,
// 100 ms apart, or 3 s gone.
func leftBehindBy(t *testing.T, name, marker string) int {
	deadline := time.Now().Add(3 * time.Second)
	for clear := 0; clear < 2 && time.Now().Before(deadline); {
		if len(sleepers(marker)) == 0 {
			clear++
			time.Sleep(100 * time.Millisecond)
		} else {
			clear = 0
			time.Sleep(10 * time.Millisecond)
		}
	}
	left := sleepers(marker)
	for _, pid := range left {
		t.Logf("%s left process %d behind: %s", name, pid, processLine(pid))
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(left)
}

// SIGKILL of rein mcp while a tool call runs, at random points: nothing it
// started may outlive it, the database must stay sound, and every call
// answered before the kill must be audited as ended.
func TestFaultKillMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: starts and kills rein mcp")
	}
	dir, db, env := faultSetup(t)
	marker := sleepMarker("3.19")
	k := newKillRuns(t, 31)
	for i := range k.n {
		name := fmt.Sprintf("mcp-%d", i)
		fg := "0.04"
		if i%2 == 1 {
			fg = marker
		}
		cmd := exec.Command(os.Args[0], "--dir", dir, "mcp")
		cmd.Env = env
		client := mcp.NewClient(&mcp.Implementation{Name: "faults", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan bool, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command",
				Arguments: map[string]any{"command": "sh -c 'sleep " + marker + " & sleep " + fg + "' " + name, "reason": "faults"}})
			done <- err == nil && !res.IsError
		}()
		var answered bool
		select {
		case answered = <-done:
			if !answered {
				t.Fatalf("%s failed on its own", name)
			}
		case <-time.After(time.Duration(k.rng.IntN(100)) * time.Millisecond):
			cmd.Process.Signal(syscall.SIGKILL)
			answered = <-done
		}
		cs.Close()
		k.ran(t, name, marker, answered)
	}
	tally := tallyKills(t, db, k.finished)
	t.Logf("%s; integrity_check: %s; answered calls missing from the audit: %d (must be 0); audited as interrupted: %d; still running: %d (must be 0)",
		k.summary("rein mcp killed during a tool call at random points", "answered"), tally.integrity, tally.lost, tally.interrupted, tally.running)
	if k.leftBehind > 0 || tally.failed() {
		t.Fail()
	}
}

// A session of 10,000 events: every append commits durably with no error,
// and the whole session reads back, in order, for rein log and --session.
func TestFaultLongSession(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: writes a 10,000-event session")
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "rein.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	sess, err := st.Session(ctx, "long", "/w", "m", true)
	if err != nil {
		t.Fatal(err)
	}
	const n = 10000
	kinds := []message.Kind{message.User, message.Assistant, message.ToolCall, message.ToolResult}
	latencies := make([]time.Duration, 0, n)
	errs := 0
	for i := range n {
		start := time.Now()
		if err := st.Append(ctx, sess, message.Message{Kind: kinds[i%len(kinds)], Content: fmt.Sprintf("event %d %s", i, strings.Repeat("x", 200))}); err != nil {
			errs++
			t.Errorf("append %d: %v", i, err)
		}
		latencies = append(latencies, time.Since(start))
	}
	start := time.Now()
	events, err := st.Events(ctx, sess)
	if err != nil {
		t.Fatal(err)
	}
	readAll := time.Since(start)
	inOrder := len(events) == n
	for i, e := range events {
		if e.Seq != i+1 || !strings.HasPrefix(e.Content, fmt.Sprintf("event %d ", i)) {
			inOrder = false
			break
		}
	}
	slices.Sort(latencies)
	p := func(q float64) time.Duration {
		return latencies[int(q*float64(len(latencies)-1))].Round(10 * time.Microsecond)
	}
	t.Logf("a session of %d events: errors %d (must be 0), append p50 %s p99 %s, all read back in order: %v in %s",
		n, errs, p(0.5), p(0.99), inOrder, readAll.Round(time.Millisecond))
	if !inOrder {
		t.Errorf("read back %d events, not %d in order", len(events), n)
	}
}

// SIGKILL of rein ask at random points of a turn (the model's call, the
// command, the session's writes): nothing it started may outlive it, the
// database must stay sound, every session must read back, and every
// finished ask's command must be audited as ended.
func TestFaultKillAsk(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: starts and kills rein ask")
	}
	dir, db, env := faultSetup(t)
	marker := sleepMarker("3.23")
	nameRe := regexp.MustCompile(`ask-[0-9]+`)
	// A scripted model: run the question's command, then answer.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if strings.Contains(string(b), `"role":"tool"`) {
			io.WriteString(w, sseText("done"))
			return
		}
		name := nameRe.FindString(string(b))
		fg := "0.04"
		if i, _ := strconv.Atoi(strings.TrimPrefix(name, "ask-")); i%2 == 1 {
			fg = marker
		}
		args, _ := json.Marshal(map[string]string{"command": "sh -c 'sleep " + marker + " & sleep " + fg + "' " + name, "reason": "faults"})
		io.WriteString(w, sseCall("run_command", string(args)))
	}))
	defer srv.Close()
	k := newKillRuns(t, 37)
	for i := range k.n {
		name := fmt.Sprintf("ask-%d", i)
		cmd := exec.Command(os.Args[0], "--dir", dir, "ask", "--model", "openai-compatible:m", "--base-url", srv.URL, name)
		cmd.Env = env
		k.ran(t, name, marker, runOrKill(t, cmd, time.Duration(k.rng.IntN(150))*time.Millisecond))
	}
	tally := tallyKills(t, db, k.finished)
	ctx := context.Background()
	sessions, err := tally.st.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unreadable := 0
	for i := range sessions {
		if _, err := tally.st.Messages(ctx, &sessions[i]); err != nil {
			unreadable++
			t.Errorf("session %s: %v", sessions[i].Name, err)
		}
	}
	t.Logf("%s; integrity_check: %s; sessions %d, unreadable %d (must be 0); finished asks' commands missing from the audit: %d (must be 0); still running: %d (must be 0)",
		k.summary("rein ask killed at random points", "finished"), tally.integrity, len(sessions), unreadable, tally.lost, tally.running)
	if k.leftBehind > 0 || tally.failed() || unreadable > 0 {
		t.Fail()
	}
}

// Bad input at the front doors: each gets an answer, never a crash, and the
// door still works after it.
func TestFaultBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: feeds rein bad input")
	}
	dir, _, env := faultSetup(t)
	crashed := func(t *testing.T, what, out string) {
		t.Helper()
		if strings.Contains(out, "panic:") || strings.Contains(out, "goroutine ") {
			t.Fatalf("%s crashed rein:\n%s", what, report.Clip(out, 2000))
		}
	}
	t.Run("malformed JSON-RPC to rein mcp", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "--dir", dir, "mcp")
		cmd.Env = env
		// Not JSON, cut JSON, a wrong version, a bad method, NUL and invalid
		// UTF-8, then a proper exchange that must still be answered.
		input := strings.Join([]string{
			`this is not json`,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{`,
			`{"jsonrpc":"1.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":3,"method":"no/such/method"}`,
			"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"x\":\"\x00\xff\xfe\"}}",
			`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"echo a\u0000b \udcff","reason":"x"}}}`,
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"echo still-here","reason":"x"}}}`,
		}, "\n") + "\n"
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut strings.Builder
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A client keeps its end open until it has its answers.
		last := make(chan struct{})
		read := make(chan struct{})
		go func() {
			defer close(read)
			sc := bufio.NewScanner(stdout)
			sc.Buffer(nil, 1<<20)
			six, seven := false, false
			for sc.Scan() {
				out.WriteString(sc.Text() + "\n")
				done := six && seven
				six = six || strings.Contains(sc.Text(), `"id":6`)
				seven = seven || strings.Contains(sc.Text(), `"id":7`)
				if !done && six && seven {
					close(last)
				}
			}
		}()
		io.WriteString(stdin, input)
		select {
		case <-last:
		case <-time.After(20 * time.Second):
			t.Errorf("no answer to the two calls:\n%s", out.String())
		}
		stdin.Close()
		done := make(chan error, 1)
		go func() { <-read; done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("rein mcp did not end when its input did:\n%s", errOut.String())
		}
		crashed(t, "malformed JSON-RPC", errOut.String())
		t.Logf("malformed JSON-RPC: %d lines in, stderr %q", strings.Count(input, "\n"), report.Clip(errOut.String(), 300))
		answers := map[float64]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m struct {
				ID    any
				Error *struct{ Code int }
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Errorf("rein mcp wrote a line that is not JSON: %q", line)
			}
			if id, ok := m.ID.(float64); ok {
				answers[id] = true
			}
		}
		if errs := strings.Count(out.String(), "-32700") + strings.Count(out.String(), "-32600"); !answers[2] || !answers[6] || !answers[7] || errs < 4 {
			t.Errorf("not every message was answered (ids %v; parse errors and invalid requests %d):\n%s", answers, errs, out.String())
		}
		if !strings.Contains(out.String(), "still-here") {
			t.Errorf("after bad input, a proper call was not answered:\nstdout %s\nstderr %s", out.String(), errOut.String())
		}
	})
	t.Run("a model stream cut mid-event", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			full := sseText("a whole answer that never arrives")
			io.WriteString(w, full[:len(full)/3])
		}))
		defer srv.Close()
		cmd := exec.Command(os.Args[0], "--dir", dir, "ask", "--model", "openai-compatible:m", "--base-url", srv.URL, "cut")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		crashed(t, "a cut stream", string(out))
		t.Logf("cut model stream: %v: %s", err, report.Clip(strings.TrimSpace(string(out)), 300))
		if err == nil || !strings.Contains(string(out), "rein:") {
			t.Errorf("a cut stream was not reported as an error: %v\n%s", err, out)
		}
	})
	t.Run("a 100 MB tool output", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "--dir", dir, "exec", "--json", "head -c 100000000 /dev/zero")
		cmd.Env = env
		start := time.Now()
		out, err := cmd.Output()
		var res struct {
			Stdout    string `json:"stdout"`
			Truncated bool   `json:"truncated"`
			Stopped   string `json:"stopped"`
		}
		if jerr := json.Unmarshal(out, &res); jerr != nil {
			t.Fatalf("not a result (%v, %v): %s", err, jerr, report.Clip(string(out), 300))
		}
		t.Logf("100 MB of output: kept %d bytes, truncated %v, stopped %q, in %s", len(res.Stdout), res.Truncated, res.Stopped, time.Since(start).Round(time.Millisecond))
		if len(res.Stdout) > 2<<20 || !res.Truncated && res.Stopped == "" {
			t.Errorf("100 MB of output was not capped: %d bytes kept", len(res.Stdout))
		}
	})
	t.Run("NUL and invalid UTF-8 in commands and outputs", func(t *testing.T) {
		// (A NUL cannot reach rein in an argument; through MCP it is above.)
		for _, c := range []string{"echo \xff\xfe bad", "head -c 64 /dev/urandom"} {
			cmd := exec.Command(os.Args[0], "--dir", dir, "exec", "--json", c)
			cmd.Env = env
			var out, errOut strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			crashed(t, fmt.Sprintf("%q", c), errOut.String())
			if out.Len() > 0 && !json.Valid([]byte(out.String())) {
				t.Errorf("%q: the result is not valid JSON: %q", c, out.String())
			}
			t.Logf("%q: %v, %s", c, err, report.Clip(strings.TrimSpace(out.String()+errOut.String()), 160))
		}
	})
}

// killRuns counts a kill test's runs: the random points rein is killed
// at, the runs that finished first, and what the others left behind.
type killRuns struct {
	seed               uint64
	rng                *rand.Rand
	n                  int
	finished           []string
	killed, leftBehind int
}

// newKillRuns starts a kill test's count with the seed REIN_FAULTS_SEED
// sets, else a fresh one, which a failed test prints, so that its kill
// points can be replayed (stream tells the tests' sequences apart).
func newKillRuns(t *testing.T, stream uint64) *killRuns {
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("REIN_FAULTS_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay these kill points with REIN_FAULTS_SEED=%d go test -run '^%s$' ./cmd/rein", seed, t.Name())
		}
	})
	return &killRuns{seed: seed, rng: rand.New(rand.NewPCG(seed, stream)), n: faultRuns()}
}

// ran counts run name: finished on its own or killed, and the processes
// with marker it left behind.
func (k *killRuns) ran(t *testing.T, name, marker string, finished bool) {
	if finished {
		k.finished = append(k.finished, name)
	} else {
		k.killed++
	}
	k.leftBehind += leftBehindBy(t, name, marker)
}

// summary is the first part of the test's figures: what was killed, done
// naming what a run that was not did.
func (k *killRuns) summary(what, done string) string {
	return fmt.Sprintf("%s (seed %d): %d runs, %d killed, %d %s; processes left behind: %d (must be 0)",
		what, k.seed, k.n, k.killed, len(k.finished), done, k.leftBehind)
}

// killTally is what the database holds once the kills are over.
type killTally struct {
	st                         *store.Store // open until the test ends
	integrity                  string       // "ok", or what the check found
	lost, interrupted, running int
}

// tallyKills checks the database and counts, of the commands named by
// their last word, the finished ones not audited as ended (lost) and the
// rows still started, by state.
func tallyKills(t *testing.T, db string, finished []string) killTally {
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	k := killTally{st: st, integrity: "ok"}
	if err := st.Check(context.Background()); err != nil {
		k.integrity = err.Error()
	}
	rows, err := st.Audit(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ended := map[string]bool{}
	for _, r := range rows {
		switch r.State {
		case store.Ended:
			ended[r.Command[strings.LastIndex(r.Command, " ")+1:]] = true
		case store.Interrupted:
			k.interrupted++
		case store.Running:
			k.running++
		}
	}
	for _, name := range finished {
		if !ended[name] {
			k.lost++
		}
	}
	return k
}

// failed reports a database that is not sound, a finished run missing
// from the audit, or a row still running after every rein is gone.
func (k killTally) failed() bool { return k.integrity != "ok" || k.lost > 0 || k.running > 0 }

// runOrKill starts rein and SIGKILLs it after wait unless it ends first;
// it reports whether rein ended on its own (it must then succeed).
func runOrKill(t *testing.T, cmd *exec.Cmd, wait time.Duration) bool {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s ended on its own with %v", strings.Join(cmd.Args[1:], " "), err)
		}
		return true
	case <-time.After(wait):
		cmd.Process.Signal(syscall.SIGKILL)
		return <-done == nil // nil: it ended just before the kill
	}
}

// reinOn runs rein in dir with env and returns its output and error
// output; a crash fails the test, an exit status does not.
func reinOn(t *testing.T, dir string, env []string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--dir", dir}, args...)...)
	cmd.Env = env
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if s := errOut.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		t.Fatalf("rein %s crashed:\n%s", strings.Join(args, " "), s)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errOut.String()
}

// sleepMarker is a sleep length of about base seconds that only this test
// process uses (its pid in the last digits), so that a suite running beside
// it never counts the other's commands as left behind.
func sleepMarker(base string) string {
	return base + strconv.Itoa(os.Getpid())
}
