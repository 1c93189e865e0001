package main

import (
	"path/filepath"
	"testing"
)

// The database is --db, else $REIN_DB, else rein.db in the state folder
// beside the approved recipes.
func TestDBPath(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("REIN_DB", "")
	if got, want := appOf(&Globals{}).DBPath(), filepath.Join(state, "rein", "rein.db"); got != want {
		t.Errorf("default: %s, want %s", got, want)
	}
	t.Setenv("REIN_DB", "/elsewhere/env.db")
	if got := appOf(&Globals{}).DBPath(); got != "/elsewhere/env.db" {
		t.Errorf("REIN_DB: %s", got)
	}
	if got := appOf(&Globals{DB: "flag.db"}).DBPath(); got != "flag.db" {
		t.Errorf("--db: %s", got)
	}
}
