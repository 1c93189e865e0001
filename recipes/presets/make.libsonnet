// make: readonly plus make targets.
local rein = import '../helpers.libsonnet';
local p = rein.program;

(import 'readonly.libsonnet') + {
  commands+: [
    rein.command('make', 'Build the default target'),
    rein.command('make <target>', 'Build a target (see the Makefile); make -n TARGET shows what would run'),
  ],
  programs+: {
    make: p('Run Makefile targets', deny_flags=['--eval', '--eval=*', '-E']),
    gmake: p('GNU make', deny_flags=['--eval', '--eval=*', '-E']),
  },
  sandbox+: { network: 'allow' },
  rules+: [
    rein.rule('make-variable-override', 'ask', 'overriding make variables (NAME=VALUE) can change the commands make runs', each='cmd.name in ["make", "gmake"] && any(cmd.positionals, {# contains "="})'),
  ],
  tests+: {
    allow+: ['make', 'make test', 'make -j4 build', 'make -n install'],
    ask+: ['make CC=clang'],
    deny+: ["make --eval='x:; rm -rf /'", 'rm -rf build'],
  },
}
