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
      'rm -r on /, ~ or a bare glob would delete far more than a task needs; name the files to remove',
      each='cmd.name == "rm" && hasFlag(cmd, "-r", "-R", "--recursive") && any(cmd.positionals, {# in ["/", "/*", "~", "~/", "~/*", "*", ".", "..", "./*"]})',
    ),
    $.rule(
      'no-shell-from-input',
      'deny',
      'a shell reading its script from standard input (curl ... | sh) runs code rein never sees; save the script in the workspace, read it, and run the file',
      each='cmd.name in ["sh", "bash", "dash", "zsh", "ksh", "fish", "ash", "mksh"] && !hasFlag(cmd, "-c") && (len(filter(cmd.args, {!(# startsWith "-")})) == 0 || hasFlag(cmd, "-s") || "-" in cmd.args)',
    ),
    $.rule(
      'no-privilege',
      'deny',
      'this runs a program as root or another user, beyond what any sandbox here can hold; run it yourself if it is needed',
      each='cmd.name in ["sudo", "su", "doas", "pkexec", "runuser", "run0", "setpriv", "chroot", "nsenter", "unshare", "capsh"]',
    ),
    $.rule(
      'no-risky-assignment',
      'deny',
      'assigning PATH, IFS, LD_* or shell start-up variables changes what later commands run',
      when='any(script.assignments, {#.name in ["PATH", "IFS", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE"] || #.name startsWith "LD_" || #.name startsWith "DYLD_"})',
    ),
  ],

  // Commands that destroy what a person cannot get back, each with a reason
  // that says what it destroys, whether or not its program is otherwise
  // allowed: 'deny' under readonly, 'ask' where agents build and test
  // (dev and the language presets), so that a person who approves one
  // knows what they approve. Every rule is named danger-*: a preset
  // replaces them by name.
  dangers(decision):: [
    $.rule('danger-rm', decision,
      'rm deletes files for good (there is no trash, and what git does not track cannot be restored); name the files, or move them aside',
      each='cmd.name in ["rm", "rmdir", "shred", "unlink"]'),
    $.rule('danger-git-discard', decision,
      'this throws away uncommitted changes (or commits no branch holds) for good: git cannot give them back; git stash keeps them instead',
      each='cmd.name == "git" && (cmd.sub == "reset" && hasFlag(cmd, "--hard", "--merge", "--keep") || cmd.sub == "clean" && hasFlag(cmd, "-f", "--force") || cmd.sub in ["checkout", "switch"] && hasFlag(cmd, "-f", "--force", "--discard-changes") || cmd.sub == "restore" && !hasFlag(cmd, "-S", "--staged") || cmd.sub == "branch" && hasFlag(cmd, "-D") || cmd.sub == "stash" && any(cmd.positionals, {# in ["drop", "clear"]}))'),
    $.rule('danger-git-remote', decision,
      'this rewrites or deletes history on the remote, for everyone who shares it',
      each='cmd.name == "git" && cmd.sub == "push" && (hasFlag(cmd, "-f", "--force", "--force-with-lease", "--mirror", "-d", "--delete", "--prune") || any(cmd.positionals, {# startsWith "+" || # startsWith ":"}))'),
    $.rule('danger-database', decision,
      'this wipes a database: its data (schema, rows, users) is dropped and cannot be recovered unless it was backed up; a migration applies changes without a reset',
      each='cmd.name in ["npx", "pnpm", "yarn", "bunx", "bun", "npm", "supabase", "prisma", "drizzle-kit", "rails", "rake", "dropdb", "psql", "mysql", "mariadb", "sqlite3", "mongosh", "mongo", "redis-cli", "python", "python3", "php", "sequelize", "typeorm", "knex"] && join(cmd.argv, " ") matches "(?i)(manage.py (flush|reset_db)|supabase (db reset|stop .*--no-backup)|prisma (migrate reset|db push .*--(accept-data-loss|force-reset))|drizzle-kit (drop|push .*--force)|db:(drop|reset|purge|schema:load)|migrate:(fresh|reset|refresh)|schema:drop|(^| )dropdb( |$)|drop +(database|schema|table)|(^| )truncate( |$)|dropdatabase|flushall|flushdb)"'),
    $.rule('danger-cloud', decision,
      'this creates, changes or destroys real cloud resources (and what they hold), outside the workspace and beyond undo',
      each='cmd.name in ["terraform", "tofu", "terragrunt", "pulumi", "cdk", "aws", "gcloud", "az", "doctl", "flyctl", "vercel", "netlify", "heroku"] && join(cmd.argv, " ") matches "(?i)(^| )(destroy|apply|up|deploy|delete|rm|remove|terminate|purge|import|taint|state (rm|mv|push)|force-unlock)( |$)"'),
    $.rule('danger-cluster', decision,
      'this changes a cluster: it deletes, replaces or scales what runs there, for everyone who uses it',
      each='cmd.name in ["kubectl", "oc", "helm", "k9s"] && cmd.sub in ["delete", "apply", "replace", "patch", "scale", "drain", "cordon", "uncordon", "edit", "create", "rollout", "set", "label", "annotate", "taint", "uninstall", "install", "upgrade", "rollback", "exec", "cp", "run"]'),
    $.rule('danger-containers', decision,
      'this deletes containers, images or volumes, and the data in them',
      each='cmd.name in ["docker", "podman"] && join(cmd.argv, " ") matches "(^| )(prune|rm|rmi|kill)( |$)|(volume|network|image|container) (rm|remove|prune)|compose down .*(-v|--volumes|--rmi)"'),
  ],
}
