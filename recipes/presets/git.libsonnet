// git: readonly plus local history work: staging, committing, branching and
// stashing. Rewriting history asks; network and destructive operations stay denied.
local rein = import '../helpers.libsonnet';
local s = rein.sub;
local local_ = ['add', 'commit', 'stash', 'switch', 'checkout', 'restore', 'mv', 'rm', 'merge', 'rebase', 'reset', 'cherry-pick', 'revert', 'tag', 'branch'];

(import 'readonly.libsonnet') + {
  programs+: {
    git+: {
      description: 'Version control: inspection and local history work (no network)',
      deny_subcommands: std.filter(function(x) !std.member(local_, x), super.deny_subcommands),
      subcommands+: {
        add: s('Stage changes (git add PATH, git add -p is interactive: avoid)', deny_flags=['-i', '--interactive', '-p', '--patch', '-e', '--edit']),
        commit: s('Record staged changes (git commit -m MESSAGE)', deny_flags=['--amend', '-i', '--interactive', '-p', '--patch', '--no-verify', '-n'], ask=true),
        stash: s('Set changes aside (push, list, show, pop, apply)', args=['push', 'list', 'show', 'pop', 'apply', 'stash@{*}', '-m', '*']),
        switch: s('Switch branches (-c NEW to create)', deny_flags=['-f', '--force', '--discard-changes']),
        checkout: s('Switch branches or restore files', deny_flags=['-f', '--force']),
        restore: s('Restore files from the index or a commit', ask=true),
        mv: s('Move a tracked file'),
        rm: s('Remove tracked files', ask=true),
        merge: s('Merge a branch', ask=true),
        // --exec runs a shell command after each commit, out of rein's sight.
        rebase: s('Rebase commits', deny_flags=['-i', '--interactive', '-x', '-x*', '--exec', '--exec=*'], ask=true),
        // reset --hard, --merge and --keep: the danger-git-discard rule.
        reset: s('Reset the index or HEAD'),
        'cherry-pick': s('Apply a commit', ask=true),
        revert: s('Revert a commit', ask=true),
        tag: s('List or create tags', deny_flags=['-d', '--delete', '-f', '--force']),
        branch: s('List or create branches', deny_flags=['-D', '-d', '--delete', '-f', '--force', '-M', '-m', '--move', '-C', '-c', '--copy']),
      },
    },
  },
  // Discarding uncommitted work is local history work too: asked, with
  // what it destroys, not refused.
  rules: [r for r in super.rules if r.name != 'danger-git-discard'] + [
    r for r in rein.dangers('ask') if r.name == 'danger-git-discard'
  ] + [
    rein.rule('git-reset-moves', 'ask', 'git reset moves the branch to another commit or unstages changes (the working tree keeps them)',
              each='cmd.name == "git" && cmd.sub == "reset"'),
    // Branch switching keeps local changes (git refuses to lose them);
    // checkout of paths overwrites them, as git restore does, which asks.
    rein.rule('git-checkout-paths', 'ask', 'git checkout of paths throws away their uncommitted changes (as git restore does)',
              each='cmd.name == "git" && cmd.sub == "checkout" && ("--" in cmd.args || any(cmd.positionals, {# in [".", "./", ":/"]})'
                   + ' || hasFlag(cmd, "--ours", "--theirs", "-p", "--patch") || any(cmd.args, {# startsWith "--pathspec-from-file"})'
                   + ' || !hasFlag(cmd, "-b", "-B", "--orphan", "-t", "--track") && len(cmd.positionals) > 2)'),
    rein.rule('git-stash-discard', 'ask', 'git stash drop and clear throw away set-aside changes',
              each='cmd.name == "git" && cmd.sub == "stash" && any(cmd.positionals, {# in ["drop", "clear"]})'),
  ],
  // Committing and switching branches write the work tree and .git.
  sandbox+: { mode: 'workspace-write' },
  // Options rein's program table does not know ask rather than fail.
  shell+: { unknown_option: 'ask' },
  tests+: {
    allow+: ['git checkout main', 'git checkout -b feature origin/main', 'git checkout -', 'git stash pop', 'git stash push -m wip', 'git stash show stash@{1}', 'git switch -c feature', 'git stash list', 'git branch feature', 'git tag v1.0.0'],
    ask+: ['git commit -m "fix build"', 'git rebase main', 'git reset HEAD~1', 'git checkout -- .', 'git checkout .', 'git checkout HEAD~1 -- src/main.go',
           'git reset --hard HEAD~3',
           'git checkout main src/x.go', 'git checkout --theirs x.go', 'git stash drop', 'git stash clear', 'git stash drop stash@{0}'],
    deny+: ['git push', 'git push --force origin main', 'git pull', 'git fetch', 'git clean -fdx', 'git branch -D main', 'git commit --amend -m x', 'git checkout -f main',
            'git rebase -x "make test" main', 'git rebase -xid main', 'git rebase --exec=id main', 'git rebase --exe id main'],
  },
}
