// rust: readonly plus cargo's build, test and inspection commands.
local rein = import '../helpers.libsonnet';
local p = rein.program;
local s = rein.sub;

(import 'readonly.libsonnet') + {
  commands+: [
    rein.command('cargo build', 'Compile the crate; prints compiler errors'),
    rein.command('cargo test', 'Run the tests; cargo test NAME for some'),
    rein.command('cargo clippy', 'Lints'),
  ],
  programs+: {
    cargo: p('Rust package manager', deny_flags=['--config', '--config=*', '-Z'], subcommands={
      build: s('Compile'),
      b: s('Compile'),
      check: s('Type-check without producing binaries'),
      c: s('Type-check'),
      test: s('Run tests'),
      t: s('Run tests'),
      bench: s('Run benchmarks'),
      run: s('Build and run a binary'),
      r: s('Build and run a binary'),
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
    rustc: p('The Rust compiler'),
    rustfmt: p('Format Rust files (--check to only check)'),
  },
  // Where cargo downloads crates, and its lock files; not ~/.cargo/bin (on
  // PATH), ~/.cargo/env (sourced by shells), cargo's config or the
  // toolchains in ~/.rustup, which run later, outside rein.
  sandbox+: { network: 'allow', write+: ['~/.cargo/registry', '~/.cargo/git', '~/.cargo/.package-cache', '~/.cargo/.package-cache-mutate',
                                         '$CARGO_HOME/registry', '$CARGO_HOME/git', '$CARGO_HOME/.package-cache', '$CARGO_HOME/.package-cache-mutate'] },
  rules+: [
    rein.rule('cargo-fmt-writes', 'ask', 'cargo fmt without --check rewrites files', each='cmd.name == "cargo" && cmd.sub == "fmt" && !hasFlag(cmd, "--check")'),
  ],
  tests+: {
    allow+: ['cargo build', 'cargo test -- --nocapture', 'cargo clippy --all-targets', 'cargo fmt --check', 'cargo tree'],
    ask+: ['cargo add serde', 'cargo fmt', 'cargo update'],
    deny+: ['cargo publish', 'cargo clippy --fix', 'cargo build --config "build.rustc-wrapper=\'sh\'"', 'rm -rf target'],
  },
}
