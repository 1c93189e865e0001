local rein = import 'rein.libsonnet';

rein.presets.go + rein.presets.git + {
  commands+: [
    rein.command('./scripts/analyze-logs.sh <log_file>',
                 'Summarise errors in a log file, e.g. ./scripts/analyze-logs.sh logs/app.log'),
  ],
  programs+: {
    kubectl: rein.program('Kubernetes, read-only',
      global_flags={ '-n': rein.flag('namespace', value=true) },
      subcommands={ get: rein.sub('List resources'), logs: rein.sub('Pod logs', deny_flags=['-f']) },
      deny_subcommands=['delete', 'apply', 'exec']),
  },
  deny+: ['git push*'],
  rules+: [
    rein.rule('no-prod', 'deny', 'production is off limits from here',
              each='any(cmd.args, {# contains "prod"})'),
  ],
  shell+: { redirect_write: 'workspace' },   // allow > file inside the workspace
  paths+: { write: ['out/**', '*.log'] },
  tests+: {
    allow+: ['go test ./...', './scripts/analyze-logs.sh logs/app.log', 'kubectl -n dev get pods'],
    deny+: ['kubectl delete pod x', 'git push', 'kubectl get pods -n prod', 'rm -rf /'],
  },
}
