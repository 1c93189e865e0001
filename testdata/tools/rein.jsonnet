// Fixture for the rein tools golden tests: only builtins and a script that
// ships here, so what is available does not depend on the machine.
local rein = import 'rein.libsonnet';
{
  commands: [
    rein.command('./scripts/lint.sh', 'Run the linters'),
    rein.command('echo <text>', 'Print text'),
  ],
  programs: {
    cd: rein.program('Change folder'),
    printf: rein.program('Format text', deny_flags=['-v']),
  },
  tasks: {
    lint: rein.task('Run the linters', run='./scripts/lint.sh', expose=true),
    greet: rein.task('Greet someone', run='echo "hello $name"', expose=true,
      params={ name: rein.param('string', 'who to greet'), times: rein.param('int', 'how often', default=1) }),
    hidden: rein.task('Not a model tool', run='echo hidden'),
  },
  tools: { system_info: false },
  limits: { timeout: '20s', max_timeout: '2m' },
}
