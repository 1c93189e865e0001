// rust: readonly plus cargo's build, test and inspection commands.
local rein = import '../helpers.libsonnet';
local p = rein.program;
local s = rein.sub;

(import 'dev.libsonnet') + {
  commands+: [
    rein.command('cargo build', 'Compile the crate; prints compiler errors'),
    rein.command('cargo test', 'Run the tests; cargo test NAME for some'),
    rein.command('cargo clippy', 'Lints'),
  ],
  programs+: {
    cargo: p('Rust package manager', deny_flags=['--config', '--config=*', '-Z'], global_flags={
      '-q': rein.flag('Quiet'), '--quiet': rein.flag('Quiet'), '-v': rein.flag('Verbose'), '-vv': rein.flag('Very verbose'), '--verbose': rein.flag('Verbose'),
      '--locked': rein.flag('Refuse to change Cargo.lock'), '--frozen': rein.flag('Refuse to change Cargo.lock or use the network'),
      '--offline': rein.flag('Do not use the network'), '--color': rein.flag('auto, always or never', value=true),
    }, subcommands={
      build: s('Compile'),
      check: s('Type-check without producing binaries'),
      test: s('Run tests'),
      bench: s('Run benchmarks'),
      run: s('Build and run a binary'),
      clippy: s('Lints', deny_flags=['--fix']),
      fmt: s('Format (--check to only check)'),
      doc: s('Build documentation'),
      tree: s('Dependency tree'),
      metadata: s('Package metadata as JSON'),
      version: s('Cargo version'),
      '--version': s('Cargo version'),
      update: s('Update dependencies (network)', ask=true),
      add: s('Add a dependency (network)', ask=true),
      install: s('Install a binary (network)', ask=true),
      fetch: s('Download dependencies (network)', ask=true),
      clean: s('Remove build output', ask=true),
    }, deny_subcommands=['publish', 'yank', 'login', 'logout', 'owner']),
    rustc: p('The Rust compiler', deny_flags=['-Z']),
    rustfmt: p('Format Rust files (--check to only check; rewrites the files it is given)'),
  },
  // Where cargo downloads crates, and its lock files; not ~/.cargo/bin (on
  // PATH), ~/.cargo/env (sourced by shells), cargo's config or the
  // toolchains in ~/.rustup, which run later, outside rein.
  shell+: { unknown_option: 'ask' },
  // cargo's home is this workspace's own: the registry's sources are code
  // every other crate built later compiles. (Its config is then the
  // workspace's .cargo/config.toml alone, not ~/.cargo/config.toml.)
  env+: { set+: { CARGO_HOME: '$REIN_WORKSPACE_CACHE/cargo' } },
  // The network is crates.io's, for the cargo commands that fetch crates
  // (cargo test and cargo run run the project's code: cargo fetch first):
  // tests and the programs they build reach nothing but their own loopback.
  // A build script runs in cargo build, and reaches crates.io too.
  sandbox+: { mode: 'workspace-write', network: 'granted', write+: ['$REIN_WORKSPACE_CACHE'],
              hosts+: [{ commands: ['cargo fetch*', 'cargo build*', 'cargo check*', 'cargo update*', 'cargo add *', 'cargo tree*', 'cargo metadata*',
                                    'cargo generate-lockfile*'],
                         hosts: ['index.crates.io', 'static.crates.io', 'crates.io'] }] },
  rules+: [
    // A workspace's .cargo/config.toml may define [alias] t = "install x"
    // (cargo lets a user alias shadow its built-in b, c, d, r, t): the
    // short names run what the repository says.
    rein.rule('cargo-short-aliases', 'deny', 'cargo b, c, d, r and t run what a .cargo/config.toml [alias] says; write the subcommand out (cargo build, cargo check, cargo doc, cargo run, cargo test)',
              each='cmd.name == "cargo" && cmd.sub in ["b", "c", "d", "r", "t", "rm"]'),
    // rustc @FILE reads more arguments from FILE: -C linker among them.
    rein.rule('rustc-argfile', 'deny', 'rustc @FILE takes arguments from a file rein does not read (-C linker=... among them); give them on the command line',
              each='cmd.name in ["rustc", "rustdoc"] && any(cmd.args, {# startsWith "@"})'),
    // rustc runs the linker -C linker names, with the arguments -C link-arg
    // adds (cc's -wrapper then runs any command).
    // rustup's +TOOLCHAIN may be a folder: its bin/rustc is what runs.
    rein.rule('rust-toolchain-path', 'deny', 'a +TOOLCHAIN that is a path runs the compiler found there; name an installed toolchain (+stable, +nightly)',
              each='cmd.name in ["cargo", "rustc", "rustfmt", "rustdoc"] && len(cmd.args) > 0 && cmd.args[0] startsWith "+" && (cmd.args[0] contains "/" || cmd.args[0] contains "\\\\")'),
    rein.rule('rustc-linker-runs', 'deny', 'rustc -C linker, -C link-arg(s) and -C linker-flavor make the compiler run another program or pass it options; compile without them',
              each='cmd.name == "rustc" && any(flagValues(cmd, "-C", "--codegen"), {# startsWith "linker" || # startsWith "link-arg"})'),
    // cargo runs the build scripts and tests of the package it is given.
    rein.rule('cargo-package-in-workspace', 'deny', 'cargo builds, tests and runs packages of the workspace only: --manifest-path elsewhere runs build scripts and tests rein has not seen',
              each='cmd.name == "cargo" && any(flagValues(cmd, "--manifest-path"), {!inside(absPath(cmd, #), workspace)})'),
    rein.rule('rust-writes-outside', 'deny', 'rustc -o/--out-dir and cargo --target-dir must name folders this recipe lets commands write: inside the workspace, not .git or a recipe',
              each='cmd.name in ["rustc", "cargo"] && any(flagValues(cmd, "-o", "--out-dir", "--target-dir", "--artifact-dir"), {!mayWrite(cmd, #)})'),
    rein.rule('rustfmt-writes', 'ask', 'rustfmt rewrites the files it is given; add --check to only check', each='cmd.name == "rustfmt" && len(cmd.positionals) > 0 && !hasFlag(cmd, "--check") && !("stdout" in flagValues(cmd, "--emit"))'),
    rein.rule('cargo-fmt-writes', 'ask', 'cargo fmt without --check rewrites files', each='cmd.name == "cargo" && cmd.sub == "fmt" && !hasFlag(cmd, "--check")'),
  ],
  tests+: {
    allow+: ['rustc --edition 2021 -O src/main.rs', 'rustc -C opt-level=3 src/main.rs', 'rustfmt --check src/main.rs', 'rustfmt --emit stdout src/lib.rs',
             'cargo test -- --nocapture', 'cargo --locked test', 'cargo -q --offline build', 'cargo --color always clippy', 'rustc +stable --version', 'cargo test --manifest-path crates/core/Cargo.toml', 'cargo clippy --all-targets', 'cargo fmt --check', 'cargo tree'],
    ask+: ['rm -rf target', 'cargo add serde', 'cargo fmt', 'cargo update', 'rustfmt src/main.rs'],
    deny+: ['rustc +/tmp/toolchain src/main.rs', 'cargo +../tc build', 'rustfmt +/opt/x --check src/main.rs',
            'rustc -C linker=/tmp/x src/main.rs', 'rustc -Clinker=sh src/main.rs', "rustc --codegen 'link-arg=-wrapper' -C link-arg=sh,-c,id src/main.rs",
            'rustc --codegen=link-args=-B/tmp src/main.rs', 'rustc -Zunstable-options src/main.rs', 'rustc -o /usr/local/bin/x src/main.rs',
            'cargo build --target-dir /tmp/t', 'cargo test --manifest-path /tmp/x/Cargo.toml', 'cargo run --manifest-path=../other/Cargo.toml', 'cargo build --target-dir=.git/hooks',
            'cargo publish', 'cargo clippy --fix', 'cargo t', 'cargo b --release', 'rustc @args.txt src/main.rs', 'cargo build --config "build.rustc-wrapper=\'sh\'"'],
  },
}
