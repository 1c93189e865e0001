// rein.libsonnet: the library every recipe can import.
//
//   local rein = import 'rein.libsonnet';
//   rein.presets.go + {
//     commands+: [rein.command('./scripts/lint.sh', 'Run the linters')],
//     tests+: { allow+: ['./scripts/lint.sh'], deny+: ['rm -rf x'] },
//   }
//
// Presets are mixins: combine them with `+` (rein.presets.go + rein.presets.node).
// Every field of a preset is written with `+:`, so your recipe adds to it with
// `field+: ...` and replaces it with `field: ...`.
(import 'helpers.libsonnet') + {
  // What models cost (US dollars per million tokens), for rein ask's
  // estimate; the presets put it in provider.prices.
  prices:: import 'prices.libsonnet',
  presets:: {
    readonly: import 'presets/readonly.libsonnet',
    strict: import 'presets/strict.libsonnet',
    dev: import 'presets/dev.libsonnet',
    git: import 'presets/git.libsonnet',
    go: import 'presets/go.libsonnet',
    node: import 'presets/node.libsonnet',
    python: import 'presets/python.libsonnet',
    rust: import 'presets/rust.libsonnet',
    make: import 'presets/make.libsonnet',
  },
}
