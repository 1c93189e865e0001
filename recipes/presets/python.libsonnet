// python: readonly plus test runners, linters and package inspection.
local rein = import '../helpers.libsonnet';
local p = rein.program;
local s = rein.sub;
local modules = ['pytest', 'unittest', 'mypy', 'pip', 'ruff', 'black', 'flake8', 'pylint', 'coverage', 'doctest', 'compileall', 'py_compile', 'json.tool', 'site', 'build', 'tox', 'nox'];
local py(name) = p('Run Python scripts or allowed modules (-m pytest); inline code (-c) is not allowed', deny_flags=['-c', '-i']);
local pip = p('Python packages', subcommands={
  list: s('Installed packages'),
  show: s('Package details'),
  freeze: s('Installed packages as requirements'),
  check: s('Check dependencies'),
  install: s('Install packages (network)', ask=true),
  download: s('Download packages (network)', ask=true),
}, deny_subcommands=['uninstall', 'config']);

(import 'readonly.libsonnet') + {
  commands+: [
    rein.command('pytest', 'Run the tests; -x stops at the first failure, -k EXPR selects, -q is quieter'),
    rein.command('python -m pytest', 'Run the tests with the current interpreter'),
  ],
  programs+: {
    python: py('python'),
    python3: py('python3'),
    pip: pip,
    pip3: pip,
    pytest: p('Run tests'),
    mypy: p('Type-check'),
    ruff: p('Lint (ruff check) and format-check (ruff format --check)'),
    black: p('Format-check (black --check)'),
    flake8: p('Lint'),
    pylint: p('Lint'),
    tox: p('Run test environments'),
    uv: p('uv: run tools in the project environment', subcommands={ run: s('Run a command in the environment (its arguments are not checked)', ask=true), pip: s('pip interface'), tree: s('Dependency tree') }, deny_subcommands=['publish']),
  },
  // The package managers' caches, not ~/.cache as a whole (rein's compile
  // cache is there, pre-commit's hook environments too).
  sandbox+: { network: 'allow', write+: ['~/.cache/pip', '~/.cache/uv', '~/.cache/pypoetry'] },
  rules+: [
    rein.rule('python-m-allowed-modules', 'deny', 'python -m runs only ' + std.join(', ', modules) + ' here',
              each='cmd.name matches "^python[0-9.]*$" && hasFlag(cmd, "-m") && (len(cmd.positionals) == 0 || !(cmd.positionals[0] in ' + rein.exprList(modules) + '))'),
    rein.rule('black-writes', 'ask', 'black without --check rewrites files', each='cmd.name == "black" && !hasFlag(cmd, "--check", "--diff")'),
    rein.rule('ruff-fix', 'ask', 'ruff --fix and ruff format rewrite files', each='cmd.name == "ruff" && (hasFlag(cmd, "--fix") || cmd.sub == "format" && !hasFlag(cmd, "--check", "--diff"))'),
  ],
  tests+: {
    allow+: ['pytest', 'pytest -x -k parser tests/', 'python -m pytest -q', 'python3 -m unittest discover', 'pip list', 'pip show requests', 'ruff check .', 'mypy src', 'black --check .'],
    ask+: ['pip install requests', 'black .', 'ruff check --fix .'],
    deny+: ["python3 -c 'import os'", 'python -m http.server', 'pip uninstall -y requests', 'rm -rf .venv'],
  },
}
