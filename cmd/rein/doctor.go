package main

import (
	"fmt"
	"github.com/reinsh/rein/engine/app"

	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
)

type doctorCmd struct {
	JSON bool `help:"Print the report as JSON."`
}

func (c *doctorCmd) Help() string {
	return `Reports what this machine's kernel can enforce (Landlock ABI, network
restriction, resource limits) and what the recipe here will enforce.`
}

func (c *doctorCmd) Run(g *Globals, e *env) error {
	st := sandbox.Probe()
	r, err := appOf(g).LoadRecipe()
	if err != nil {
		return err
	}
	cfg, warning, cfgErr := app.SandboxWith(r, st)
	if c.JSON {
		report := map[string]any{"kernel": st, "recipe_sandbox": r.Sandbox, "enforced": cfg, "kept": runner.Kept(r, cfg), "read_only": runner.ReadOnly(r, cfg), "readable": cfg.Readable()}
		if cfgErr != nil {
			report["error"] = cfgErr.Error()
		}
		if path, state := approval(r); path != "" {
			report["approval"] = map[string]string{"recipe": path, "state": state}
		}
		if warning != "" {
			report["warning"] = warning
		}
		report["hooks"] = installedHooks(g)
		return writeJSON(e.stdout, report, true)
	}
	fmt.Fprintf(e.stdout, "system:      %s\n", st.OS)
	if st.LandlockABI > 0 {
		fmt.Fprintf(e.stdout, "landlock:    ABI %d (filesystem: yes, network: %s)\n", st.LandlockABI, yesNo(st.Network))
	} else {
		fmt.Fprintf(e.stdout, "landlock:    not available — %s\n", st.Why)
	}
	if st.LandlockABI >= 6 {
		fmt.Fprintln(e.stdout, "signals:     scoped (a command cannot signal processes outside its sandbox, nor reach abstract unix sockets)")
	} else if st.LandlockABI > 0 {
		fmt.Fprintln(e.stdout, "signals:     not scoped (needs Landlock ABI 6, Linux 6.12): a command may signal your other processes")
	}
	if st.Seccomp {
		fmt.Fprintln(e.stdout, "seccomp:     yes (a command cannot change the limits, priority or CPUs of processes outside it; where the recipe denies the network, every socket but unix and netlink ones is refused)")
	}
	if st.Namespaces {
		fmt.Fprintln(e.stdout, "namespaces:  yes (the recipe and .git/hooks read-only inside the workspace; a /dev/shm of the command's own; a network namespace when the network is denied)")
	} else if st.OS == "linux" {
		fmt.Fprintf(e.stdout, "namespaces:  no — %s; rein puts back what a command changes instead\n", st.NamespacesWhy)
	}
	limits := "rlimits (CPU time, file size, address space)"
	if !st.Rlimits {
		limits = "none"
	}
	fmt.Fprintf(e.stdout, "limits:      %s\n", limits)
	if st.PIDsCgroup != "" {
		fmt.Fprintf(e.stdout, "processes:   pids cgroup under %s\n", st.PIDsCgroup)
	} else if st.Rlimits {
		fmt.Fprintln(e.stdout, "processes:   RLIMIT_NPROC (per user; not enforced for root)")
	}
	fmt.Fprintf(e.stdout, "recipe:      sandbox.mode %s, network %s, unavailable %s\n", r.Sandbox.Mode, r.Sandbox.Network, r.Sandbox.Unavailable)
	if path, state := approval(r); path != "" {
		fmt.Fprintf(e.stdout, "approved:    %s (%s)\n", state, path)
	}
	switch {
	case cfgErr != nil:
		fmt.Fprintf(e.stdout, "enforced:    nothing — rein refuses to run commands: %v\n", cfgErr)
	case cfg == nil:
		fmt.Fprintln(e.stdout, "enforced:    nothing (commands run unsandboxed)")
	default:
		fmt.Fprintf(e.stdout, "enforced:    %s\n", cfg.Describe())
		if len(cfg.Write) > 0 {
			fmt.Fprintf(e.stdout, "also writable: %v\n", cfg.Write)
		}
		if readable := cfg.Readable(); len(readable) > 0 {
			fmt.Fprintln(e.stdout, "readable:    besides the workspace (paths.scope granted; paths.read grants more):")
			for _, p := range readable {
				fmt.Fprintln(e.stdout, "             "+p)
			}
		}
	}
	if ro := runner.ReadOnly(r, cfg); len(ro) > 0 {
		fmt.Fprintln(e.stdout, "read-only:   to commands, though inside the workspace (a mount of their own):")
		for _, p := range ro {
			fmt.Fprintln(e.stdout, "             "+p)
		}
	}
	fmt.Fprintln(e.stdout, "kept:        put back after each command that changes them (see docs/sandbox.md):")
	for _, p := range runner.Kept(r, cfg) {
		fmt.Fprintln(e.stdout, "             "+p)
	}
	if hooks := installedHooks(g); len(hooks) > 0 {
		fmt.Fprintln(e.stdout, "hooks:       rein vets the tool calls of")
		for _, h := range hooks {
			fmt.Fprintln(e.stdout, "             "+h)
		}
	} else {
		fmt.Fprintln(e.stdout, "hooks:       no agent runs rein's hook (rein hook install claude-code|codex|gemini)")
	}
	if warning != "" {
		fmt.Fprintln(e.stdout, warning)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no (needs ABI 4)"
}
