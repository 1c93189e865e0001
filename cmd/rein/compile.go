package main

type compileCmd struct{}

func (c *compileCmd) Help() string {
	return `Evaluates the recipe Jsonnet (built-in defaults, user recipe, repository
rein.jsonnet, --recipe), validates it against the recipe schema, merges it,
compiles its expr rules, and prints the result. Errors name file:line:col.`
}

func (c *compileCmd) Run(g *Globals, e *env) error {
	// loadPolicy also compiles the expr rules, so a broken rule fails here.
	p, err := loadPolicy(g, "compile")
	if err != nil {
		return err
	}
	return writeJSON(e.stdout, p.Recipe(), true)
}
