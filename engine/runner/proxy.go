package runner

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/reinsh/rein/engine/netproxy"
	"github.com/reinsh/rein/engine/recipe"
)

// startProxy serves the hosts granted to one program on a unix socket in
// a folder of rein's own (not one the program may write), for the
// program's sandbox helper to join its network namespace to.
// Each connection starts with the proxy's token, which only the program's
// helper has: another program that finds the socket gets nothing.
func startProxy(hosts []string) (*netproxy.Proxy, string, func(), error) {
	root := recipe.TempRoot()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, "", nil, err
	}
	dir, err := os.MkdirTemp(root, "net-")
	if err != nil {
		return nil, "", nil, err
	}
	socket := filepath.Join(dir, "proxy.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", nil, err
	}
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return nil, "", nil, err
	}
	p := &netproxy.Proxy{Allowed: hosts, Token: hex.EncodeToString(token)}
	done := make(chan struct{})
	go func() { p.Serve(ln); close(done) }()
	stop := func() {
		p.Close()
		<-done
		os.RemoveAll(dir)
	}
	return p, socket, stop, nil
}

// proxyEnv points the tools a program runs at the proxy in its network
// namespace: the variables curl, git, Go, pip, npm and cargo read.
func proxyEnv(port int) []string {
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	var env []string
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "npm_config_proxy", "npm_config_https_proxy"} {
		env = append(env, name+"="+url)
	}
	return append(env, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1")
}
