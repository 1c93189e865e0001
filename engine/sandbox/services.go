package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Local services. Landlock (before ABI 9) does not stop a program from
// connecting to a unix socket by its path, and behind some of them is a way
// out of any sandbox: the session bus asks systemd to start a program
// (systemd-run --user), Docker's socket is root on the machine, an
// ssh-agent signs for the user's keys, an X server takes keystrokes. In its
// own mount namespace a command finds these places empty.

// serviceSockets lists the sockets and socket folders to hide that exist,
// leaving out those in (or holding) a folder the recipe allows.
func serviceSockets(allowed []string, cacheDir string) []string {
	uid := strconv.Itoa(os.Getuid())
	candidates := []string{
		os.Getenv("XDG_RUNTIME_DIR"), // the session bus, systemd --user, agents, Wayland
		"/run/user/" + uid,
		"/run/dbus",      // the system bus
		"/tmp/.X11-unix", // X servers
		"/tmp/.ICE-unix",
		"/run/docker.sock", "/var/run/docker.sock", "/run/podman", "/run/containerd",
		"/run/snapd.socket", "/run/snapd-snap.socket",
	}
	// git's credential cache answers credential fill with the stored
	// passwords, network or not; Docker Desktop, Colima and Rancher Desktop
	// keep Docker's socket (root on the machine) in the home folder.
	cache := os.Getenv("XDG_CACHE_HOME")
	if home, err := os.UserHomeDir(); err == nil {
		if cache == "" {
			cache = filepath.Join(home, ".cache")
		}
		candidates = append(candidates, filepath.Join(home, ".git-credential-cache"),
			filepath.Join(home, ".docker", "run"), filepath.Join(home, ".docker", "desktop"), filepath.Join(home, ".colima"), filepath.Join(home, ".rd"))
	}
	if cache != "" {
		candidates = append(candidates, filepath.Join(cache, "git", "credential"))
	}
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		candidates = append(candidates, filepath.Dir(sock))
	}
	candidates = append(candidates, sshAgentFolders(cacheDir)...)
	return present(candidates, allowed)
}

// networkSockets are sockets through which a program reaches the
// machine's network without one of its own: the resolver's, where a name is
// looked up (systemd-resolved's varlink socket, which glibc's nss-resolve
// module uses, and nscd's), and Tailscale's daemon, which dials peers for
// its clients (tailscale nc). A name asked for is data sent out, even from
// a command with a network namespace of its own.
var networkSockets = []string{"/run/systemd/resolve/io.systemd.Resolve", "/run/nscd/socket", "/var/run/nscd/socket",
	"/run/tailscale/tailscaled.sock", "/var/run/tailscale/tailscaled.sock"}

// networkServices lists the network sockets to hide where the network is
// denied: those that exist, and that no allowed socket names.
func networkServices(allowed []string) []string { return present(networkSockets, allowed) }

// present keeps of the candidates those that exist, leaving out those in
// (or holding) a place allowed names.
func present(candidates, allowed []string) []string {
	var allow []string
	for _, a := range allowed {
		if p := expandPath(a); p != "" {
			allow = append(allow, p)
		}
	}
	var out []string
	for _, c := range candidates {
		if c == "" || !filepath.IsAbs(c) || slices.Contains(out, c) {
			continue
		}
		if slices.ContainsFunc(allow, func(a string) bool { return within(c, a) || within(a, c) }) {
			continue
		}
		if _, err := os.Stat(c); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// sshAgentFolders are other sessions' ssh-agent folders, /tmp/ssh-*: those
// of the agents listening there, which the kernel's table of bound unix
// sockets names (tens of lines, where /tmp may hold thousands of names, and
// any program that makes a file there changes it: listing 8,000 took 1.7 ms
// of a rein exec). Where the table cannot be read, /tmp is listed.
func sshAgentFolders(cacheDir string) []string {
	if table, err := os.ReadFile("/proc/net/unix"); err == nil {
		return agentFoldersFrom(table, "/tmp")
	}
	return agentFoldersIn("/tmp", cacheDir)
}

// agentFoldersFrom are the ssh-* entries of tmp that are or hold a socket
// of the table (/proc/net/unix: seven fields, then the path the socket is bound
// to, if any).
func agentFoldersFrom(table []byte, tmp string) []string {
	var out []string
	prefix := tmp + "/ssh-"
	for line := range strings.Lines(string(table)) {
		rest := strings.TrimRight(line, "\n")
		for range 7 {
			rest = strings.TrimLeft(rest, " ")
			i := strings.IndexByte(rest, ' ')
			if i < 0 {
				rest = ""
				break
			}
			rest = rest[i:]
		}
		path, ok := strings.CutPrefix(strings.TrimLeft(rest, " "), prefix)
		if !ok {
			continue
		}
		// The agent's folder (/tmp/ssh-X/agent.N), or a socket of its own.
		name, _, _ := strings.Cut(path, "/")
		if folder := prefix + name; !slices.Contains(out, folder) {
			out = append(out, folder)
		}
	}
	return out
}

// agentFoldersIn lists the ssh-* folders in tmp: a prefix test over a
// folder that may hold thousands of names (listing 8,000 took 1.7 ms of
// every rein exec). The list is kept in rein's cache (where no command may
// write) with tmp's modification time, which any name made or removed in
// tmp changes. A time less than a second old is not trusted: file times
// are coarse, and a folder made within the same tick would not change it.
func agentFoldersIn(tmp, cacheDir string) []string {
	st, err := os.Stat(tmp)
	if err != nil {
		return nil
	}
	type kept struct {
		Folder  string   `json:"folder"`
		MTime   int64    `json:"mtime_ns"`
		Folders []string `json:"folders"`
	}
	now := kept{Folder: tmp, MTime: st.ModTime().UnixNano()}
	cache := ""
	if cacheDir != "" && time.Since(st.ModTime()) > time.Second {
		cache = filepath.Join(cacheDir, "ssh-agent-folders.json")
	}
	if cache != "" {
		var k kept
		if b, err := os.ReadFile(cache); err == nil && json.Unmarshal(b, &k) == nil && k.Folder == now.Folder && k.MTime == now.MTime {
			return k.Folders
		}
	}
	d, err := os.Open(tmp)
	if err != nil {
		return nil
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(1024)
		for _, n := range names {
			if strings.HasPrefix(n, "ssh-") {
				now.Folders = append(now.Folders, filepath.Join(tmp, n))
			}
		}
		if err != nil {
			break
		}
	}
	if cache != "" {
		if b, err := json.Marshal(now); err == nil {
			writeAside(cache, b)
		}
	}
	return now.Folders
}

// writeAside writes a file of rein's cache aside and renames it into place,
// so that a reader sees all of it or none; a failure leaves the cache as it
// was (it is only kept to save time).
func writeAside(path string, data []byte) {
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}
