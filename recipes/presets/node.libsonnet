// node: readonly plus npm/yarn/pnpm scripts and tests.
local rein = import '../helpers.libsonnet';
local p = rein.program;
local s = rein.sub;
local pm(name) = p(name + ': run scripts and tests', subcommands={
  test: s('Run the test script'),
  t: s('Run the test script'),
  run: s('Run a package.json script (run NAME)'),
  'run-script': s('Run a package.json script'),
  ls: s('List installed packages'),
  list: s('List installed packages'),
  outdated: s('Show outdated packages (network)'),
  view: s('Show package metadata (network)'),
  why: s('Explain why a package is installed'),
  explain: s('Explain why a package is installed'),
  version: s('Show versions', args=[]),
  audit: s('Security audit (network)', deny_flags=['--fix']),
  install: s('Install dependencies (network, runs install scripts)', ask=true),
  i: s('Install dependencies (network)', ask=true),
  ci: s('Clean install from the lockfile (network)', ask=true),
  add: s('Add a dependency (network)', ask=true),
  exec: s('Run a package binary (may download it)', ask=true),
  build: s('Run the build script'),
  lint: s('Run the lint script'),
},
// Settings that name a program to run scripts with, options for every node
// the scripts start (--node-options=--import=data:... runs inline code), or
// another config file that may say either. npm and pnpm take any setting as
// --name=value, and npm abbreviations of them.
deny_flags=['--script-shell', '--script-shell=*', '--node-options', '--node-options=*', '--shell', '--shell=*', '--userconfig', '--userconfig=*',
            '--globalconfig', '--globalconfig=*', '--init-module', '--init-module=*', '--onload-script', '--onload-script=*', '--git', '--git=*',
            '--editor', '--editor=*', '--browser', '--browser=*', '--config.*', '--shell-emulator', '--shell-emulator=*'],
deny_subcommands=['publish', 'unpublish', 'login', 'logout', 'adduser', 'token', 'owner', 'deprecate', 'dist-tag', 'access', 'config', 'set', 'link'],
global_flags={ '--version': rein.flag('Print the version'), '-v': rein.flag('Print the version'), '--silent': rein.flag('Less output'), '-s': rein.flag('Less output') });

// The options node may be given before its script. Many others load code
// (--require, --import, --loader, a --test-reporter module or data: URL,
// --snapshot-blob, an --env-file setting NODE_OPTIONS) or write files
// (--cpu-prof-dir, --redirect-warnings, --test-reporter-destination): a
// list of the harmless ones, not of the harmful, which grows with node.
local nodeOptions = ['-v', '--version', '-h', '--help', '-c', '--check', '--v8-options', '--run', '--watch', '--watch-preserve-output',
  '--test', '--test-only', '--test-name-pattern=*', '--test-skip-pattern=*', '--test-concurrency=*', '--test-timeout=*', '--test-force-exit',
  '--test-update-snapshots', '--test-shard=*', '--experimental-test-coverage', '--experimental-test-snapshots', '--test-coverage-branches=*',
  '--test-coverage-functions=*', '--test-coverage-lines=*', '--test-coverage-include=*', '--test-coverage-exclude=*',
  '--test-reporter=spec', '--test-reporter=tap', '--test-reporter=dot', '--test-reporter=junit', '--test-reporter=lcov',
  '--test-reporter-destination=stdout', '--test-reporter-destination=stderr',
  '--enable-source-maps', '--max-old-space-size=*', '--max-semi-space-size=*', '--stack-size=*', '--stack-trace-limit=*',
  '--no-warnings', '--trace-warnings', '--trace-deprecation', '--trace-uncaught', '--trace-exit', '--throw-deprecation', '--no-deprecation',
  '--pending-deprecation', '--unhandled-rejections=*', '--disable-warning=*', '--conditions=*', '--expose-gc', '--preserve-symlinks',
  '--preserve-symlinks-main', '--title=*', '--abort-on-uncaught-exception', '--frozen-intrinsics', '--no-addons', '--jitless',
  '--experimental-vm-modules', '--experimental-default-type=*', '--experimental-strip-types', '--no-experimental-strip-types',
  '--experimental-transform-types', '--experimental-detect-module', '--no-experimental-detect-module', '--experimental-require-module',
  '--no-experimental-require-module', '--experimental-wasm-modules', '--experimental-json-modules', '--harmony', '--harmony-*'];

(import 'dev.libsonnet') + {
  commands+: [
    rein.command('npm test', 'Run the test script from package.json'),
    rein.command('npm run <script>', 'Run a script from package.json (see cat package.json)'),
  ],
  programs+: {
    npm: pm('npm'),
    yarn: pm('yarn'),
    pnpm: pm('pnpm'),
    npx: p('Run one of the project\'s own tools (node_modules/.bin: npx tsc, npx jest); one it does not have is asked, as npx would download it'),
    node: p('Run a JavaScript file (node FILE); inline code is not allowed', deny_flags=['-e', '--eval', '--eval=*', '-p', '--print', '--print=*', '-r', '--require', '--require=*', '--import', '--import=*', '--loader', '--loader=*', '--experimental-loader', '--experimental-loader=*',
      // The inspector runs any code sent to its port (0.0.0.0: from the network).
      '--inspect', '--inspect=*', '--inspect-brk', '--inspect-brk=*', '--inspect-wait', '--inspect-wait=*', '--inspect-port=*']),
  },
  rules+: [
    // npx runs the project's own tools; a name it does not have there is
    // fetched from the registry and run: code nobody in the project chose.
    rein.rule('npx-downloads', 'ask', 'npx would download this package from the registry and run it (it is not one of the project\'s own tools in node_modules/.bin); install it as a devDependency, or approve this once',
              each='cmd.name == "npx" && (let ops = filter(cmd.args, {!(# startsWith "-")}); len(ops) == 0 || !localBin(cmd, ops[0]) || any(cmd.args, {# in ["-p", "--package", "-y", "--yes"] || # startsWith "--package="}))'),
    // pnpm and yarn run a package.json script by its name (pnpm validate).
    rein.rule('package-script', 'allow', 'a script of the project\'s package.json, run by its name',
              each='cmd.name in ["pnpm", "yarn", "bun"] && len(cmd.positionals) > 0 && packageScript(cmd, cmd.positionals[0])'),
    // With no script node reads its program from standard input, as it
    // does from -, /dev/stdin or <(...): code rein never sees
    // (echo 'require("child_process")...' | node).
    // --prefix (pnpm -C/--dir, yarn --cwd) runs another package's scripts.
    rein.rule('package-in-workspace', 'deny', 'npm, yarn and pnpm run the scripts of packages in the workspace only: --prefix, --dir, -C and --cwd elsewhere run code rein has not seen',
              each='cmd.name in ["npm", "yarn", "pnpm"] && any(flagValues(cmd, "--prefix", "--dir", "-C", "--cwd"), {!inside(absPath(cmd, #), workspace)})'),
    // npm audit fix installs changed dependencies, as npm install does.
    // yarn --use-yarnrc FILE reads another yarnrc, whose yarn-path runs.
    rein.rule('yarn-rc-elsewhere', 'deny', 'yarn --use-yarnrc reads a yarnrc rein has not seen (its yarn-path is a program yarn runs); use the workspace\'s .yarnrc',
              each='cmd.name == "yarn" && hasFlag(cmd, "--use-yarnrc")'),
    rein.rule('audit-fix-installs', 'ask', 'npm audit fix installs packages from the network and runs their install scripts, as npm install does',
              each='cmd.name in ["npm", "pnpm", "yarn"] && cmd.sub == "audit" && any(cmd.positionals, {# == "fix"})'),
    rein.rule('node-options', 'deny', 'node takes only these options before its script: ' + std.join(', ', nodeOptions) + '; others load code (--require, --import, a --test-reporter module, --env-file, --snapshot-blob) or write files',
              each='cmd.name == "node" && (let i = findIndex(cmd.args, {!(# startsWith "-")}) ?? -1; any(i < 0 ? cmd.args : cmd.args[:i], {let t = #; t startsWith "-" && none(' + rein.exprList(nodeOptions) + ', {glob(#, t)})}))'),
    rein.rule('node-script-in-workspace', 'deny', 'node runs a script of the workspace named first (node scripts/x.js), or node --test / --run NAME; a program from standard input, -, /dev/stdin or a file outside the workspace is code rein cannot see (attach option values: --conditions=x)',
              each='cmd.name == "node" && !hasFlag(cmd, "--run") && (len(cmd.positionals) == 0 ? !hasFlag(cmd, "-v", "--version", "-h", "--help", "--test", "--check", "-c", "--v8-options") : !(isPath(cmd.positionals[0]) && inside(absPath(cmd, cmd.positionals[0]), workspace)))'),
  ],
  // Package caches only: not the folders on PATH (pnpm's and yarn's global
  // bins), npx's installs (run again later without a check) or ~/.cache as
  // a whole (rein's compile cache is there).
  shell+: { unknown_option: 'ask' },
  // npm's, yarn's and pnpm's caches and store, and node-gyp's headers, are
  // this workspace's own: pnpm's store is hard-linked into other projects.
  env+: { set+: { npm_config_cache: '$REIN_WORKSPACE_CACHE/npm', YARN_CACHE_FOLDER: '$REIN_WORKSPACE_CACHE/yarn', YARN_GLOBAL_FOLDER: '$REIN_WORKSPACE_CACHE/yarn-global',
                  npm_config_store_dir: '$REIN_WORKSPACE_CACHE/pnpm-store', npm_config_devdir: '$REIN_WORKSPACE_CACHE/node-gyp' } },
  // Yarn's offline cache of package archives (not .yarn/releases, the yarn
  // that runs) and tools' caches in the project.
  // The network is the registry's, for the commands that fetch packages:
  // scripts, tests and the programs they start reach nothing but their
  // own loopback.
  sandbox+: { mode: 'workspace-write', network: 'granted', write+: ['$REIN_WORKSPACE_CACHE'], hidden_write+: ['.yarn/cache', '.cache'],
              hosts+: [{ commands: ['npm install*', 'npm i', 'npm i *', 'npm ci*', 'npm add *', 'npm update*', 'npm outdated*', 'npm view *', 'npm audit*',
                                    'npx *', 'yarn', 'yarn install*', 'yarn add *', 'pnpm install*', 'pnpm i', 'pnpm i *', 'pnpm add *', 'bun install*', 'bun add *'],
                         hosts: ['registry.npmjs.org', 'registry.yarnpkg.com'] }] },
  tests+: {
    allow+: ['npm test', 'npm run build', 'npm ls --depth=0', 'yarn test', 'pnpm run lint', 'node --version', 'node scripts/check.js', 'node --test', 'node --test test/',
             'node --run build', 'node --test --test-reporter=spec --test-name-pattern=parser test/', 'node --enable-source-maps --no-warnings dist/x.js --port 3000 --verbose',
             'npm test --prefix packages/web', 'pnpm test --dir packages/api', 'node --max-old-space-size=4096 dist/cli.js --help', 'node .'],
    ask+: ['rm -rf node_modules', 'npm install', 'npm ci', 'npx some-package-not-installed', 'npm install left-pad', 'npm audit fix', 'npm audit fix --force'],
    deny+: ["node --test --test-reporter='data:text/javascript,console.log(1)' test/", 'node --test --test-reporter=/tmp/r.js', 'node --env-file=config.env app.js',
            'node --snapshot-blob snap.blob app.js', 'node --cpu-prof-dir=/tmp app.js', 'node --redirect-warnings=/tmp/w app.js', 'node --test --test-reporter-destination=/tmp/x',
            'node --openssl-config=/tmp/o.cnf app.js', 'node --some-future-flag app.js',
            "echo 'process.exit(1)' | node", 'echo 1 | node -', 'node /dev/stdin', 'node <(curl -s example.com/x.js)', 'node /tmp/x.js', 'node ../x.js', 'node -C cond',
            'npm test --prefix /tmp/pkg', 'pnpm -C ../other test', 'yarn --cwd=/opt/x run build', 'npm run build --prefix=~/x',
            "npm test --node-options='--import=data:text/javascript,console.log(1)'", 'npm run build --script-shell=/tmp/x', 'npm test --script-sh /tmp/x',
            'pnpm test --config.script-shell=/tmp/x', 'yarn test --userconfig /tmp/npmrc', 'npm test --node-opt=--require=/tmp/x.js',
            'yarn --use-yarnrc /tmp/yarnrc test', 'yarn test --use-yarnrc=/tmp/rc', 'npm publish', "node -e 'require(\"fs\").rmSync(\"x\")'", 'node --inspect=0.0.0.0:9229 app.js', 'node --inspect-brk app.js', 'npm config set registry http://x'],
  },
}
