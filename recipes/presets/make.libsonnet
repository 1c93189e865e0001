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
  shell+: { unknown_option: 'ask' },
  sandbox+: { mode: 'workspace-write', network: 'allow' },
  rules+: [
    // make runs what its makefiles say: -f - (or /dev/stdin, <(...)) takes
    // them from the command itself, -C and -I from other folders.
    rein.rule('make-files-in-workspace', 'deny', 'make reads makefiles (-f), and runs (-C) and includes (-I) in folders, of the workspace only; a makefile from standard input (-f -), /dev/stdin or elsewhere is code rein cannot see',
              each='cmd.name in ["make", "gmake"] && any(flagValues(cmd, "-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir"), {# == "-" || !inside(absPath(cmd, #), workspace)})'),
    rein.rule('make-variable-override', 'ask', 'overriding make variables (NAME=VALUE) can change the commands make runs', each='cmd.name in ["make", "gmake"] && any(cmd.positionals, {# contains "="})'),
  ],
  tests+: {
    allow+: ['make', 'make test', 'make -j4 build', 'make -n install', 'make -f build/Makefile all', 'make -C docs html', 'make -sC sub'],
    ask+: ['make CC=clang'],
    deny+: ["make --eval='x:; rm -rf /'", "printf 'all:\\n\\tid\\n' | make -f -", 'make -f /dev/stdin', 'make --file=/tmp/Makefile',
            'make -C /tmp', 'make --directory=..', 'make -sC /etc', 'make -I /tmp all', 'gmake --makefile=/dev/fd/0'],
  },
}
