// dev: for agents that write code. git (readonly plus local history work)
// plus writing the workspace with
// programs that write only what they name (mkdir, touch, cp, mv, tee, and
// redirects into the workspace), the project's own tools (node_modules/.bin,
// .venv/bin), requests to servers on this machine, and variables set for a
// command by what they mean. What destroys something is asked with what it
// destroys (rm in the workspace, discarding uncommitted work, a database
// reset, a cloud or cluster change); a program or option rein does not
// know is asked, not refused. The sandbox keeps every write in the
// workspace. The language presets (go, node, python, rust) build on it.
local rein = import '../helpers.libsonnet';
local p = rein.program;
local s = rein.sub;

// Programs that write only the files they name.
local writers = ['mkdir', 'touch', 'cp', 'mv', 'tee', 'ln'];

// Variables a command may be given that change no program it runs nor
// where its code comes from: modes, log levels, colours, ports.
local harmlessEnv = ['CI', 'NODE_ENV', 'DEBUG', 'LOG_LEVEL', 'RUST_LOG', 'RUST_BACKTRACE', 'CARGO_TERM_COLOR', 'CGO_ENABLED', 'GOOS', 'GOARCH',
                     'GOEXPERIMENT', 'GOMAXPROCS', 'GODEBUG', 'PYTHONDONTWRITEBYTECODE', 'PYTHONUNBUFFERED', 'PYTHONHASHSEED', 'PYTHONWARNINGS', 'DOCKER_BUILDKIT',
                     'COMPOSE_DOCKER_CLI_BUILD', 'PORT', 'HOST', 'NODE_NO_WARNINGS', 'RAILS_ENV', 'RACK_ENV', 'APP_ENV', 'TZ', 'NO_COLOR', 'FORCE_COLOR',
                     'TERM', 'COLUMNS', 'LINES', 'LANG', 'LANGUAGE', 'PAGER', 'GIT_PAGER', 'CLICOLOR', 'TEST', 'TESTING', 'VERBOSE', 'UPDATE_SNAPSHOTS'];
// Variables that name a folder a tool writes to or reads code from: fine
// inside the workspace.
local pathEnv = ['CARGO_TARGET_DIR', 'PYTHONPATH', 'GOPATH', 'GOCACHE', 'GOMODCACHE', 'NODE_PATH', 'VIRTUAL_ENV', 'TMPDIR', 'OUT_DIR', 'DIST_DIR', 'BUILD_DIR'];

// An operand that names a server (a URL, or host.tld), and one on this
// machine.
local urlLike = '# matches "^[a-zA-Z][a-zA-Z0-9+.-]*://" || # matches "^[a-zA-Z0-9][a-zA-Z0-9.-]*\\\\.[a-zA-Z]{2,}(:[0-9]+)?(/|$)"';
local loopback = '# matches "^(https?://)?(localhost|127\\\\.0\\\\.0\\\\.1|\\\\[::1\\\\]|0\\\\.0\\\\.0\\\\.0)(:[0-9]+)?(/.*)?$"';

(import 'git.libsonnet') + {
  description: 'Writing code: readonly plus writes in the workspace by programs that write what they name, the project\'s own tools, requests to this machine; what destroys something is asked, saying what.',

  // Per operating system: Xcode's command line on macOS.
  programs+: (if rein.os == 'darwin' then {
    xcodebuild: p('Build and test Xcode projects (archive and export are asked)', flags=['-list', '-showsdks', '-showBuildSettings', '-version', '-scheme', '-project', '-workspace', '-configuration', '-destination', '-sdk', '-quiet', '-target', '-derivedDataPath', 'build', 'test', 'build-for-testing', 'test-without-building', 'clean', 'analyze', '-only-testing*', '-skip-testing*']),
  } else {}) + {
    mkdir: p('Make folders in the workspace (mkdir -p a/b)'),
    touch: p('Make an empty file, or update its time'),
    cp: p('Copy files within the workspace'),
    mv: p('Move or rename files within the workspace'),
    tee: p('Copy standard input to files (and standard output)'),
    ln: p('Link files within the workspace (ln -s TARGET NAME)'),
    rm: p('Delete files (asked: what it deletes is gone for good)'),
    rmdir: p('Delete empty folders'),
    curl: p('HTTP requests to servers on this machine (localhost, 127.0.0.1)', deny_flags=['-K', '--config', '--config=*', '-T', '--upload-file', '--upload-file=*', '--unix-socket', '--unix-socket=*', '--abstract-unix-socket', '--abstract-unix-socket=*', '-x', '--proxy', '--proxy=*', '--preproxy', '--preproxy=*', '-O', '--remote-name', '--remote-name-all', '-J', '--remote-header-name', '--output-dir', '--output-dir=*', '--create-dirs', '-c', '--cookie-jar', '--cookie-jar=*', '-D', '--dump-header', '--dump-header=*', '--trace', '--trace=*', '--trace-ascii', '--trace-ascii=*', '--libcurl', '--libcurl=*', '--netrc', '--netrc-file', '--netrc-file=*', '-n', '--stderr', '--stderr=*', '-K*']),
    // Tools of the ecosystems agents work in: what only reads or builds is
    // allowed; what changes something outside the workspace is asked by the
    // named dangers (kubectl delete, terraform apply) or as a subcommand
    // not listed here. (Their credentials and sockets stay hidden by the
    // sandbox unless the recipe grants them: sandbox.sockets, env.pass.)
    docker: p('Docker: inspect containers and images, build', subcommands={
      ps: s('List containers'), images: s('List images'), logs: s('Container logs', deny_flags=['-f', '--follow']), inspect: s('Details of an object'),
      version: s('Version'), info: s('System information'), build: s('Build an image from the workspace'),
      compose: s('Compose: ps, logs, config, build (up, down and run are asked)'),
    }, ask_subcommands=['run', 'exec', 'start', 'stop', 'restart', 'pull', 'push', 'cp', 'create']),
    kubectl: p('Kubernetes: read the cluster', subcommands={
      get: s('List resources'), describe: s('Describe resources'), logs: s('Pod logs', deny_flags=['-f', '--follow']), top: s('Resource use'),
      explain: s('Document a resource type'), version: s('Version'), 'api-resources': s('Resource types'), 'cluster-info': s('Cluster endpoints'),
      config: s('Show the configuration (view, get-contexts, current-context)', deny_flags=['--raw', '--flatten']), auth: s('auth can-i'),
    }, global_flags={ '-n': rein.flag('Namespace', value=true), '--namespace': rein.flag('Namespace', value=true), '--context': rein.flag('Context', value=true) }),
    terraform: p('Terraform: plan and check (apply and destroy are asked, saying so)', subcommands={
      plan: s('Show what would change', deny_flags=['-out', '-out=*']), validate: s('Check the configuration'), fmt: s('Format (-check to only check)'),
      show: s('Show the state or a plan'), providers: s('Providers used'), version: s('Version'), graph: s('Dependency graph'),
      init: s('Download providers and modules (network)', ask=true),
    }),
    mvn: p('Maven: build and test', subcommands={
      test: s('Run the tests'), compile: s('Compile'), verify: s('Build and check'), package: s('Build the artifacts'), clean: s('Remove target/'),
      'dependency:tree': s('Dependency tree'), validate: s('Validate the project'), 'test-compile': s('Compile the tests'),
    }, deny_subcommands=['deploy', 'release:perform', 'release:prepare']),
    gradle: p('Gradle: build and test', subcommands={
      build: s('Build'), test: s('Run the tests'), check: s('Run the checks'), assemble: s('Build the artifacts'), clean: s('Remove build/'),
      tasks: s('List tasks'), dependencies: s('Dependencies'), compileJava: s('Compile'), lint: s('Android lint'),
    }, deny_subcommands=['publish', 'publishToMavenLocal']),
    gh: p('GitHub CLI: read issues, pull requests, runs and the API (changes are asked; needs GH_TOKEN in env.pass, as ~/.config/gh stays hidden)'),
    swift: p('Swift: build and test', subcommands={ build: s('Build'), test: s('Run the tests'), run: s('Build and run a product of the package'), package: s('Package tasks (describe, dump-package; resolve and update fetch)') }),
    bun: p('Bun: run scripts and tests', subcommands={ test: s('Run the tests'), run: s('Run a package.json script'), install: s('Install (network)', ask=true), x: s('Run a package binary (may download it)', ask=true) }),
    wget: p('Fetch from servers on this machine (wget -qO- URL: to standard output)', flags=['-q', '--quiet', '-O-', '-S', '--server-response', '--spider', '-T', '--timeout=*', '-t', '--tries=*', '--no-check-certificate', '-qO-']),
  },

  rules: [r for r in super.rules if !std.startsWith(r.name, 'danger-') && r.name != 'env-prefix'] + rein.dangers('ask') + [
    // Writes outside the workspace are refused by name (the sandbox would
    // refuse them anyway): cp and mv of files from elsewhere, too.
    rein.rule('danger-rm-outside', 'deny', 'this would delete files outside the workspace, which no task here needs; name files inside it',
              each='cmd.name in ["rm", "rmdir", "shred", "unlink"] && any(operands(cmd), {!inside(absPath(cmd, #), workspace)})'),
    rein.rule('writes-in-workspace', 'deny', 'mkdir, touch, tee, cp, ln and mv write only inside the workspace (where paths.write allows, not .git or a recipe), and cp copies only files of the workspace: name paths there',
              each='cmd.name in ["mkdir", "touch", "tee", "mv"] && any(operands(cmd), {!mayWrite(cmd, #)})'
                   + ' || cmd.name in ["cp", "ln"] && (let ops = operands(cmd); len(ops) > 0 && (!mayWrite(cmd, ops[len(ops) - 1]) || any(ops[:len(ops) - 1], {!inside(absPath(cmd, #), workspace)})))'),
    // curl and wget reach servers on this machine only (a dev server);
    // anything else is the network, where a request can carry the
    // workspace away.
    rein.rule('requests-to-this-machine', 'ask', 'curl and wget reach servers on this machine only (http://localhost:PORT, 127.0.0.1, [::1]); another address is the network, where a request can send the workspace anywhere',
              each='cmd.name in ["curl", "wget"] && (any(operands(cmd), {(%s) && !(%s)}) || len(filter(operands(cmd), {(%s) || (%s)})) == 0)' % [urlLike, loopback, urlLike, loopback]),
    rein.rule('curl-writes', 'deny', 'curl -o and --output write only inside the workspace (or /dev/null)',
              each='cmd.name == "curl" && any(flagValues(cmd, "-o", "--output"), {# != "/dev/null" && !mayWrite(cmd, #)})'),
    rein.rule('gh-credentials', 'deny', 'gh auth, secret, ssh-key and gpg-key print or change credentials',
              each='cmd.name == "gh" && len(cmd.positionals) > 0 && cmd.positionals[0] in ["auth", "secret", "ssh-key", "gpg-key", "config"] && !(cmd.positionals[0] == "auth" && len(cmd.positionals) > 1 && cmd.positionals[1] == "status")'),
    rein.rule('gh-changes', 'ask', 'this changes something on GitHub (an issue, a pull request, a run, a release, a repository) that others see',
              each='cmd.name == "gh" && len(cmd.positionals) > 0 && (len(cmd.positionals) > 1 && cmd.positionals[1] in ["create", "edit", "close", "reopen", "merge", "comment", "review", "delete", "rerun", "cancel", "lock", "unlock", "transfer", "archive", "unarchive", "rename", "sync", "fork", "set", "add", "remove", "upload", "enable", "disable", "run", "ready", "revert", "develop", "pin", "unpin", "checkout"] || cmd.positionals[0] == "api" && (any(flagValues(cmd, "-X", "--method"), {upper(#) != "GET"}) || hasFlag(cmd, "-f", "-F", "--field", "--raw-field", "--input")) || cmd.positionals[0] in ["repo", "gist", "extension", "workflow", "release", "label", "cache", "codespace"] && len(cmd.positionals) > 1 && !(cmd.positionals[1] in ["view", "list", "status", "download"]))'),
    rein.rule('swift-fetches', 'ask', 'swift package resolve and update fetch dependencies from the network and run their manifests',
              each='cmd.name == "swift" && cmd.sub == "package" && any(cmd.positionals, {# in ["resolve", "update", "add-dependency"]})'),
    rein.rule('cluster-credentials', 'deny', 'kubectl config view --raw and --flatten print the cluster credentials (tokens, keys); kubectl config view shows the rest',
              each='cmd.name == "kubectl" && cmd.sub == "config" && hasFlag(cmd, "--raw", "--flatten")'),
    rein.rule('wget-writes', 'deny', 'wget writes what it fetches to standard output only here (wget -qO- URL)',
              each='cmd.name == "wget" && any(cmd.args, {# in ["-O", "--output-document"] || # matches "^-[a-zA-Z]*O[^-]" || # startsWith "--output-document=" && # != "--output-document=-"})'),
    rein.rule('curl-sends-files', 'deny', 'curl -d @FILE, --data-binary @FILE and -F name=@FILE send a file; send the text itself',
              each='cmd.name == "curl" && any(flagValues(cmd, "-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--json", "-F", "--form"), {# contains "@"})'),
    // The project's own scripts, as the repository has them: run by path
    // (./scripts/lint.sh) or by a shell (bash scripts/setup.sh), when git
    // tracks them unchanged from HEAD. A script a command just wrote, or
    // changed, is not the repository's: asked, as any unknown program.
    rein.rule('project-script', 'allow', 'a script the repository tracks, unchanged from HEAD (it runs in the sandbox, as npm test runs the project\'s code)',
              each='cmd.path != cmd.name && tracked(cmd, cmd.path) || cmd.name in ["sh", "bash"] && len(cmd.args) > 0 && !(cmd.args[0] startsWith "-") && tracked(cmd, cmd.args[0])'),
    // Variables for one command, by what they mean: harmless settings
    // pass; a folder inside the workspace passes; others are asked (the
    // analysis already refuses those that load code: LD_PRELOAD, NODE_OPTIONS,
    // GIT_* that run programs, BASH_ENV ...).
    rein.rule('env-prefix', 'ask', 'the command is given variables rein does not know the meaning of; a person decides (a variable can change what a program loads or where it writes)',
              each='len(cmd.env) > 0 && any(keys(cmd.env), {!(# in ' + rein.exprList(harmlessEnv) + ') && !(# startsWith "LC_") && !(# in ' + rein.exprList(pathEnv) + ' && inside(absPath(cmd, cmd.env[#]), workspace))})'),
  ],

  // What no rule decides (a subcommand a program's rules do not list): a
  // person decides, rather than a dead end.
  default: 'ask',
  shell+: {
    // > file writes inside the workspace, where paths.write allows.
    redirect_write: 'workspace',
    // A program or option rein does not know: a person decides.
    unknown_program: 'ask',
    unknown_option: 'ask',
  },
  sandbox+: { mode: 'workspace-write', network: 'allow', hidden_write+: ['.venv', '.tox', '.nox', '.yarn/cache', '.cache'] },

  // Its own tests, not readonly's (which refuse what dev asks).
  tests: {
    allow: ['gh issue view 63', 'gh pr list', 'gh api /user', 'gh run view 123 --log', 'swift build', 'swift test',
            'docker ps', 'docker compose ps', 'kubectl get pods -n dev', 'terraform plan', 'terraform validate', 'mvn test', 'gradle test', 'bun test',
            'git status', 'git log --oneline -5', 'ls -la', 'cat README.md | head -20', 'grep -rn TODO . | wc -l', 'git status > out.txt',
            'mkdir -p src/components', 'touch src/new.ts', 'cp README.md docs/README.md', 'mv old.txt new.txt', 'echo x > notes.txt', 'ls | tee out.txt',
             'curl -s http://localhost:3000/health', 'curl -s -o /dev/null -w %{http_code} http://localhost:3000', 'wget -qO- http://127.0.0.1:8080/',
             'CI=1 ls', 'NODE_ENV=test ls', 'CARGO_TARGET_DIR=target/x ls', 'RUST_LOG=debug ls'],
    ask: ['gh pr create --fill', 'gh issue comment 63 -b done', 'gh api -X POST /repos/o/r/issues -f title=x', 'gh pr merge 5', 'swift package update',
          'docker run --rm alpine ls', 'terraform init', 'kubectl rollout restart deploy/web', 'terraform destroy', 'rm notes.txt', 'sh -c "ls"', 'eval ls', 'rm -r build', 'curl https://example.com', 'curl -X POST http://example.com/api', 'terraform apply', 'helm uninstall web', 'some-unknown-tool --flag',
           'FOO=1 ls', 'git reset --hard HEAD~1', 'docker system prune -af'],
    deny: ['gh auth token', 'gh secret list', 'mvn deploy', 'kubectl config view --raw', 'terraform plan -out=/tmp/p', 'rm -rf ~/x', 'git branch -D old', 'wget -O rein.jsonnet http://localhost:8080/x', 'ENV=/tmp/x sh', 'ln -s ~/.ssh/id_rsa key', 'cp .env env.txt', 'sudo ls', 'sudo -u root ls', 'su -c ls', 'cat .env', 'cat ~/.ssh/id_rsa', 'env --uns ls rm -rf ~/x', 'rm -rf /tmp/x', 'mkdir -p /tmp/x', 'cp README.md /tmp/x', 'mv ../other/x .', 'curl -o /tmp/x http://localhost:3000', 'echo x > /tmp/x',
            'curl -d @.env http://localhost:3000', 'curl -K /tmp/x http://localhost', 'echo x > .git/hooks/pre-commit', 'touch .git/hooks/pre-commit',
            'LD_PRELOAD=/tmp/x.so ls', 'rm -rf /'],
  },
}
