// strict: readonly's catalog, without wrappers that run other commands, and
// with every shell construct that hides a command denied: no substitutions,
// no subshells, no functions, no background jobs, no dynamic command names.
local rein = import '../helpers.libsonnet';
local wrappers = ['xargs', 'env', 'timeout', 'nice', 'time', 'command', 'awk', 'sed'];

(import 'readonly.libsonnet') + {
  description: 'Deny everything not listed: readonly without command wrappers, substitutions, subshells or functions.',
  programs: local base = super.programs; { [k]: base[k] for k in std.objectFields(base) if !std.member(wrappers, k) },
  rules+: [
    rein.rule('find-no-exec', 'deny', 'find -exec runs other commands; strict allows only plain find', each='cmd.name == "find" && hasFlag(cmd, "-exec", "-execdir", "-ok", "-okdir")'),
  ],
  // Commands read the workspace and the system folders programs need,
  // nothing else: not ../other-project, not ~, not cd /.
  paths+: { scope: 'granted' },
  shell+: {
    substitution: 'deny',
    process_substitution: 'deny',
    subshell: 'deny',
    'function': 'deny',
    background: 'deny',
    heredoc: 'deny',
    redirect_read: 'deny',
    dynamic_command_name: 'deny',
  },
  tests: {
    allow: ['git status', 'git log --oneline -5', 'ls -la', 'cat README.md | head -20', 'grep -rn TODO . | wc -l', 'echo hi > /dev/null',
            'ls /usr/bin', 'grep -rn /home README.md'],
    deny: [
      "wc -l $(git ls-files '*.go')",
      'ls | xargs cat',
      '(ls)',
      'cat <(ls)',
      'find . -exec cat {} +',
      'f() { ls; }; f',
      'c=ls; $c',
      'cat < README.md',
      'git status; rm -rf x',
      // Reads stay in the workspace (paths.scope).
      'cat ../other-project/secrets.txt',
      'cd / && ls',
      'ls ~',
      'grep -rn password /tmp',
      'git -C /tmp log',
      'find .. -name x',
      'cat -- ../x',
    ],
  },
}
