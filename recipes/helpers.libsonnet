// Helpers for writing rein recipes. Imported by rein.libsonnet and the presets;
// recipes use them through `import 'rein.libsonnet'`.
{
  local os = std.extVar('os'),

  // The platform rein compiles for: 'linux', 'darwin', 'windows', ...
  os:: os,
  arch:: std.extVar('arch'),
  windows:: os == 'windows',

  // A catalog entry: the model sees `command` with its description. The
  // entry's tokens are a prefix of what it allows; <name> stands for any
  // one argument and [--flag] for an optional token.
  command(command, description=''):: { command: command, description: description },

  // Per-program rules. flags/args null = any; [] = none.
  program(description='', flags=null, deny_flags=[], subcommands={}, deny_subcommands=[],
          ask_subcommands=[], global_flags={}, args=null):: {
    description: description,
    flags: flags,
    deny_flags: deny_flags,
    subcommands: subcommands,
    deny_subcommands: deny_subcommands,
    ask_subcommands: ask_subcommands,
    global_flags: global_flags,
    args: args,
  },

  // One subcommand of a program.
  sub(description='', flags=null, deny_flags=[], args=null, ask=false):: {
    description: description,
    flags: flags,
    deny_flags: deny_flags,
    args: args,
    ask: ask,
  },

  // A global flag (standing before the subcommand); value=true if it takes one.
  flag(description='', value=false):: { description: description, value: value },

  // An expr rule. `each` runs per simple command, `when` once per script.
  rule(name, decision, reason, each=null, when=null)::
    { name: name, decision: decision, reason: reason }
    + (if each != null then { each: each } else {})
    + (if when != null then { when: when } else {}),

  // A task (see `rein run`). allow lists commands this task may run that
  // the recipe's policy would otherwise refuse: an explicit, visible grant.
  task(description='', run=null, steps=null, params={}, deps=[], env={}, dir=null, timeout=null, expose=false, allow=[])::
    { description: description, params: params, deps: deps, env: env, expose: expose, allow: allow }
    + (if run != null then { run: run } else {})
    + (if steps != null then { steps: steps } else {})
    + (if dir != null then { dir: dir } else {})
    + (if timeout != null then { timeout: timeout } else {}),

  // A typed task parameter.
  param(type='string', description='', default=null, enum=null)::
    { type: type, description: description }
    + (if default != null then { default: default } else {})
    + (if enum != null then { enum: enum } else {}),

  // An expr list literal of strings, for building rules from Jsonnet arrays.
  exprList(xs):: '[' + std.join(', ', [std.escapeStringJson(x) for x in xs]) + ']',
}
+ {
  // Rules every preset carries: commands no policy should let through.
  safety:: [
    $.rule(
      'no-recursive-rm-of-root',
      'deny',
      'rm -r on /, ~ or a bare glob destroys far more than a task needs; name the files to remove',
      each='cmd.name == "rm" && hasFlag(cmd, "-r", "-R", "--recursive") && any(cmd.positionals, {# in ["/", "/*", "~", "~/", "~/*", "*", ".", "..", "./*"]})',
    ),
    $.rule(
      'no-risky-assignment',
      'deny',
      'assigning PATH, IFS, LD_* or shell start-up variables changes what later commands run',
      when='any(script.assignments, {#.name in ["PATH", "IFS", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE"] || #.name startsWith "LD_" || #.name startsWith "DYLD_"})',
    ),
  ],
}
