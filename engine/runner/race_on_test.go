//go:build race

package runner_test

// raceEnabled: the race detector slows every run of a program; long
// tests do less under it.
const raceEnabled = true
