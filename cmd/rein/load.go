package main

import "github.com/reinsh/rein/engine/app"

// appOf maps the global flags to what engine/app assembles from.
func appOf(g *Globals) app.Options {
	return app.Options{Dir: g.Dir, Recipe: g.Recipe, Preset: g.Preset, DB: g.DB}
}
