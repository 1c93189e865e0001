package resident

import (
	"errors"
	"hash/fnv"
	"slices"
	"strconv"
	"syscall"
	"unsafe"
)

// The client reads and writes its numbers by hand: encoding/binary would
// make this package wait for reflect's initialisation, and package answer
// with it.

// Magic starts every request; a request is the magic, the length of the
// rest (four bytes, big-endian), then NUL-ended fields: the caller's
// physical working folder, its $PWD and $OLDPWD (each "=" and the value, or
// empty where unset), then rein's arguments (none of which may hold a NUL).
// Its first bytes bring the caller's standard input, output and error. The
// engine answers Accepted (the caller then makes itself undumpable and says
// Hardened, and the engine runs the command; when it ends, its status as
// four bytes) or Refused and why.
const (
	Magic    = "rein-resident/1\x00"
	Accepted = 'a'
	Hardened = 'h'
	Refused  = 'r'
)

// Socket is the path of the resident engine's socket for rein at exe in
// this process's circumstances (see circumstances: all but the folder,
// $PWD and $OLDPWD, which each request brings). Its folder is made,
// private to the user, if need be; an error says why none can be used.
func Socket(exe string) (string, error) {
	dir, err := socketDir()
	if err != nil {
		return "", err
	}
	key, err := circumstances(make([]byte, 0, 4<<10), exe)
	if err != nil {
		return "", err
	}
	h := fnv.New128a()
	h.Write(key)
	const hexDigits = "0123456789abcdef"
	name := make([]byte, 0, 32)
	for _, b := range h.Sum(nil) {
		name = append(name, hexDigits[b>>4], hexDigits[b&15])
	}
	path := dir + "/" + string(name) + ".sock"
	if len(path) >= len(syscall.RawSockaddrUnix{}.Path) {
		return "", errors.New(path + ": too long for a socket's name")
	}
	return path, nil
}

// SocketDir is the folder of the user's resident sockets: rein under
// $XDG_RUNTIME_DIR (the user's own, made at login) or rein-resident-UID
// in the temporary folder; rein's sandbox hides both from its commands.
func SocketDir() string {
	if base := getenv("XDG_RUNTIME_DIR"); hasPrefix(base, "/") {
		return trimSlashes(base) + "/rein"
	}
	tmp := getenv("TMPDIR")
	if !hasPrefix(tmp, "/") {
		tmp = "/tmp"
	}
	return trimSlashes(tmp) + "/rein-resident-" + strconv.Itoa(syscall.Getuid())
}

// socketDir makes SocketDir if need be and checks that it is a real folder
// of this user's that nobody else may enter.
func socketDir() (string, error) {
	dir := SocketDir()
	if err := syscall.Mkdir(dir, 0o700); err != nil && err != syscall.EEXIST {
		return "", errors.New(dir + ": " + err.Error())
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return "", errors.New(dir + ": " + err.Error())
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return "", errors.New(dir + " is not a folder")
	case int(st.Uid) != syscall.Geteuid():
		return "", errors.New(dir + " belongs to another user")
	case st.Mode&0o077 != 0:
		return "", errors.New(dir + " is open to other users")
	}
	return dir, nil
}

// namespaces are those a caller must share with its resident engine: in
// another it would see other files, processes, networks.
var namespaces = []string{"cgroup", "ipc", "mnt", "net", "pid", "user", "uts"}

// statusFields are the lines of /proc/self/status a command may feel:
// what it inherits (the file mode mask, groups, blocked and ignored
// signals, capabilities, CPUs and memory nodes) and the marks of a sandbox.
var statusFields = []string{"Umask", "Groups", "SigBlk", "SigIgn", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
	"NoNewPrivs", "Seccomp", "Cpus_allowed_list", "Mems_allowed_list"}

// circumstances appends what a resident engine's answers, and the commands
// it runs, depend on besides a request's arguments and folders to b, as
// NUL-ended fields: rein's build, the user, the namespaces, what of the
// process its children inherit (status fields, resource limits, the OOM
// score, the scheduling priority), the control groups, the environment.
func circumstances(b []byte, exe string) ([]byte, error) {
	put := func(parts ...string) {
		for _, p := range parts {
			b = append(append(b, p...), 0)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(exe, &st); err != nil {
		return nil, err
	}
	put("rein", exe, itoa(st.Size), itoa(st.Mtim.Nano()), itoa(int64(st.Dev)), itoa(int64(st.Ino)))
	put("user", itoa(int64(syscall.Getuid())), itoa(int64(syscall.Geteuid())), itoa(int64(syscall.Getgid())), itoa(int64(syscall.Getegid())))
	for _, ns := range namespaces {
		id, err := readlink("/proc/self/ns/" + ns)
		if err != nil {
			return nil, err
		}
		put(id)
	}
	status, err := readFile("/proc/self/status")
	if err != nil {
		return nil, err
	}
	fields := parseStatus(status)
	// An engine started from here would refuse every caller.
	if why := confinedBy(fields); why != "" {
		return nil, errors.New("this process " + why)
	}
	for _, f := range statusFields {
		put(f, fields[f])
	}
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return nil, err
	}
	put("priority", itoa(int64(prio)))
	for _, f := range []string{"/proc/self/limits", "/proc/self/oom_score_adj", "/proc/self/cgroup"} {
		content, err := readFile(f)
		if err != nil {
			return nil, err
		}
		put(f, string(content))
	}
	env := slices.DeleteFunc(syscall.Environ(), func(kv string) bool {
		return hasPrefix(kv, "PWD=") || hasPrefix(kv, "OLDPWD=")
	})
	slices.Sort(env)
	put(env...)
	return b, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Confined says how a process whose /proc/PID/status is status is in a
// sandbox ("" where it is not): no_new_privs, which Landlock and seccomp
// need, or a seccomp filter.
func Confined(status []byte) string { return confinedBy(parseStatus(status)) }

// confinedBy is Confined for the parsed fields.
func confinedBy(fields map[string]string) string {
	if fields["NoNewPrivs"] != "0" {
		return "runs with no_new_privs (in a sandbox)"
	}
	if fields["Seccomp"] != "0" {
		return "runs under a seccomp filter (in a sandbox)"
	}
	return ""
}

// parseStatus reads the "Name:\tvalue" lines of /proc/PID/status.
func parseStatus(status []byte) map[string]string {
	fields := make(map[string]string, 64)
	for len(status) > 0 {
		end := 0
		for end < len(status) && status[end] != '\n' {
			end++
		}
		line := status[:end]
		for i := 0; i < len(line); i++ {
			if line[i] == ':' {
				v := line[i+1:]
				for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
					v = v[1:]
				}
				fields[string(line[:i])] = string(v)
				break
			}
		}
		if end == len(status) {
			break
		}
		status = status[end+1:]
	}
	return fields
}

// Call hands args (rein's arguments) to the resident engine at socket, to
// run in this process's working folder with its standard input, output and
// error, and returns the command's exit status. ErrNoEngine or ErrRefused
// (wrapped): the engine did not start the command, and rein may answer by
// itself. Any other error: the command started and its end is unknown.
// With wait, Call waits for an engine busy with another command rather
// than withdraw.
func Call(socket string, args []string, wait bool) (int, error) {
	msg, err := request(args)
	if err != nil {
		return 0, &failure{ErrRefused, err.Error()}
	}
	if !wait && busy(socket) {
		return 0, &failure{ErrRefused, "it is running another command"}
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, &failure{ErrNoEngine, err.Error()}
	}
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: socket}); err != nil {
		return 0, &failure{ErrNoEngine, err.Error()}
	}
	n, err := syscall.SendmsgN(fd, msg, syscall.UnixRights(0, 1, 2), nil, syscall.MSG_NOSIGNAL)
	for err == nil && n < len(msg) {
		msg = msg[n:]
		n, err = syscall.SendmsgN(fd, msg, nil, nil, syscall.MSG_NOSIGNAL)
	}
	sent := "" // an engine that refused may have closed its end: read why
	if err != nil {
		sent = err.Error() + "; "
	}
	var answer [1]byte
	if sent == "" && !wait && !readable(fd, WithdrawAfter) {
		// Busy with a command that came first: withdraw, unless it has
		// taken this one meanwhile.
		syscall.SendmsgN(fd, []byte{Withdraw}, nil, nil, syscall.MSG_NOSIGNAL)
	}
	if err := readFull(fd, answer[:]); err != nil {
		// It ended (idle) as this request came: it took nothing.
		return 0, &failure{ErrNoEngine, sent + err.Error()}
	}
	if answer[0] == Withdrawn {
		return 0, &failure{ErrRefused, "it was running another command"}
	}
	if answer[0] != Accepted {
		why := make([]byte, 4<<10)
		n, _ := syscall.Read(fd, why)
		return 0, &failure{ErrRefused, string(why[:max(n, 0)])}
	}
	// Checked by the engine (which reads this process's namespaces off
	// /proc, as only a dumpable process lets it): now, before the command
	// runs, nothing of this user's may read this process's environment
	// (the API keys) or memory through /proc, as rein makes itself in main.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return 0, &failure{ErrRefused, "cannot harden this process: " + errno.Error()}
	}
	if _, err := syscall.SendmsgN(fd, []byte{Hardened}, nil, nil, syscall.MSG_NOSIGNAL); err != nil {
		return 0, &failure{ErrNoEngine, err.Error()}
	}
	var code [4]byte
	if err := readFull(fd, code[:]); err != nil {
		return 0, errors.New("the resident engine ended before the command did (" + err.Error() + ")")
	}
	return int(int32(uint32(code[0])<<24 | uint32(code[1])<<16 | uint32(code[2])<<8 | uint32(code[3]))), nil
}

// busy reports whether the engine at socket is running a command that
// may take long. A mark its engine left when it was killed (no engine
// holds the socket's lock) is not heeded.
func busy(socket string) bool {
	var st syscall.Stat_t
	return syscall.Stat(socket+BusySuffix, &st) == nil && held(socket)
}

// held reports whether an engine holds the lock of socket: it serves it,
// or is about to.
func held(socket string) bool {
	lock, err := syscall.Open(socket+LockSuffix, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(lock)
	return syscall.Flock(lock, syscall.LOCK_SH|syscall.LOCK_NB) != nil
}

// readable waits up to ms milliseconds for fd to have something to read.
func readable(fd, ms int) bool {
	type pollFd struct {
		fd            int32
		events, revts int16
	}
	p := pollFd{fd: int32(fd), events: 1} // POLLIN
	ts := syscall.NsecToTimespec(int64(ms) * 1e6)
	for {
		n, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		return errno != 0 || n > 0 // an error: let the read say
	}
}

// request is the request for args from this process.
func request(args []string) ([]byte, error) {
	dir, err := syscall.Getwd()
	if err != nil {
		return nil, err
	}
	fields := []string{dir, envField("PWD"), envField("OLDPWD")}
	fields = append(fields, args...)
	size := 0
	for _, f := range fields {
		for i := 0; i < len(f); i++ {
			if f[i] == 0 {
				return nil, errors.New("an argument holds a NUL")
			}
		}
		size += len(f) + 1
	}
	b := make([]byte, 0, len(Magic)+4+size)
	b = append(b, Magic...)
	b = append(b, byte(size>>24), byte(size>>16), byte(size>>8), byte(size))
	for _, f := range fields {
		b = append(append(b, f...), 0)
	}
	return b, nil
}

func envField(name string) string {
	if v, ok := syscall.Getenv(name); ok {
		return "=" + v
	}
	return ""
}

func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Read(fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return err
		case n == 0:
			return errors.New("EOF")
		}
		b = b[n:]
	}
	return nil
}

// Start starts a resident engine at socket in the background: rein at exe
// (ServeArg), with this process's environment, in a session of its own,
// its standard streams on /dev/null. It ends by itself once idle.
func Start(exe, socket string) error {
	if held(socket) {
		return nil // one is starting (its socket is not there yet) or serving
	}
	null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(null)
	pid, err := syscall.ForkExec(exe, []string{exe, ServeArg, socket}, &syscall.ProcAttr{
		Dir:   "/",
		Env:   syscall.Environ(),
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null)},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return err
	}
	_ = pid // not waited for: it outlives this rein, and init adopts it
	return nil
}

// Args are this program's arguments (without the program name), read
// from /proc: os.Args is not set yet where package answer runs.
func Args() ([]string, error) {
	b, err := readFile("/proc/self/cmdline")
	if err != nil || len(b) == 0 {
		return nil, err
	}
	return split(string(b[:len(b)-1]), 0)[1:], nil
}

// Executable is this program's path.
func Executable() (string, error) { return readlink("/proc/self/exe") }

// Terminal reports whether fd is a terminal.
func Terminal(fd int) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

func getenv(name string) string {
	v, _ := syscall.Getenv(name)
	return v
}

func readlink(path string) (string, error) {
	buf := make([]byte, 256)
	for {
		n, err := syscall.Readlink(path, buf)
		if err != nil {
			return "", err
		}
		if n < len(buf) {
			return string(buf[:n]), nil
		}
		buf = make([]byte, 2*len(buf))
	}
}

func readFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}

// Small string helpers: package strings would make this package wait for
// unicode's initialisation, and package answer with it.

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func trimSlashes(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// split cuts s at every sep.
func split(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
