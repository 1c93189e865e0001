package runner

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/reinsh/rein/engine/trust"
)

// keepStartup keeps, for runs with no sandbox to stop writes outside the
// workspace, the places whose programs the user's next shell or login
// runs, and what lets others log in.
func (k *keptFiles) keepStartup() {
	home, err := os.UserHomeDir()
	if err != nil {
		return
	}
	file := func(name, why string) { k.files = append(k.files, kept{path: filepath.Join(home, name), why: why}) }
	folder := func(name, why string) { k.folders = append(k.folders, kept{path: filepath.Join(home, name), why: why}) }
	if runtime.GOOS == "windows" {
		for _, p := range []string{`Documents\PowerShell\Microsoft.PowerShell_profile.ps1`, `Documents\PowerShell\profile.ps1`,
			`Documents\WindowsPowerShell\Microsoft.PowerShell_profile.ps1`, `Documents\WindowsPowerShell\profile.ps1`} {
			file(p, "PowerShell runs it when it starts")
		}
		folder(`AppData\Roaming\Microsoft\Windows\Start Menu\Programs\Startup`, "Windows starts it when you log in")
	} else {
		for _, p := range []string{".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".config/fish/config.fish"} {
			file(p, "your shell runs it when it starts")
		}
	}
	file(filepath.Join(".ssh", "config"), "ssh runs the commands it names")
	file(filepath.Join(".ssh", "authorized_keys"), "it says who may log in to this machine")
	k.configs = append(k.configs, kept{path: filepath.Join(home, ".gitconfig")}, kept{path: filepath.Join(home, ".config", "git", "config")})
	if approvals := trust.Path(); approvals != "" {
		k.files = append(k.files, kept{path: approvals, why: "it says which repository recipes you approved"})
	}
	switch runtime.GOOS {
	case "darwin":
		folder(filepath.Join("Library", "LaunchAgents"), "macOS starts it when you log in")
	case "linux":
		folder(filepath.Join(".config", "autostart"), "your desktop starts it when you log in")
		folder(filepath.Join(".config", "systemd", "user"), "systemd starts it for you")
	}
}
