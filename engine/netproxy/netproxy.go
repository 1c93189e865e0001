// Package netproxy is the proxy through which a command granted the
// network reaches the hosts its grant names, and nothing else: the command
// runs in a network namespace of its own, whose only way out is this
// proxy (HTTP, and HTTPS through CONNECT), which rein serves for the run.
// It records every host asked for.
package netproxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Proxy lets through the hosts Allowed names. Hosts are names as the
// command asked for them (registry.npmjs.org, 127.0.0.1), on ports 443 and
// 80; "host:port" names another port, "host:*" any; "*.example.com" the
// names below example.com.
type Proxy struct {
	Allowed []string
	// Token, when set, is the line each connection must start with: the
	// command's own sandbox helper has it, other programs do not.
	Token string

	mu      sync.Mutex
	asked   []string // host names, in the order asked, once each
	refused []string
	server  *http.Server
	tunnels map[net.Conn]bool // open, closed by Close
	closed  bool
}

// Allows reports whether host on port is granted.
func (p *Proxy) Allows(host, port string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return slices.ContainsFunc(p.Allowed, func(a string) bool {
		a = strings.ToLower(a)
		name, ports := a, "443 80"
		if h, pt, err := net.SplitHostPort(a); err == nil {
			name, ports = h, pt
		}
		if ports != "*" && !slices.Contains(strings.Fields(ports), port) {
			return false
		}
		if rest, ok := strings.CutPrefix(name, "*."); ok {
			return strings.HasSuffix(host, "."+rest)
		}
		return host == name
	})
}

// Serve answers the command's requests on ln until Close.
func (p *Proxy) Serve(ln net.Listener) error {
	p.mu.Lock()
	p.server = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	srv := p.server
	p.mu.Unlock()
	if p.Token != "" {
		ln = tokenListener{ln, p.Token}
	}
	err := srv.Serve(ln)
	if err == http.ErrServerClosed {
		return nil
	}
	return err
}

// Close stops the proxy and every connection through it.
func (p *Proxy) Close() error {
	p.mu.Lock()
	srv := p.server
	p.closed = true
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// track keeps c to close with the proxy; false when it is closed already.
func (p *Proxy) track(c net.Conn, on bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !on {
		delete(p.tunnels, c)
		return true
	}
	if p.closed {
		return false
	}
	if p.tunnels == nil {
		p.tunnels = map[net.Conn]bool{}
	}
	p.tunnels[c] = true
	return true
}

// Asked are the hosts the command asked for; Refused those it was refused.
func (p *Proxy) Asked() (asked, refused []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asked), slices.Clone(p.refused)
}

func (p *Proxy) note(host string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.asked, host) {
		p.asked = append(p.asked, host)
	}
	if !ok && !slices.Contains(p.refused, host) {
		p.refused = append(p.refused, host)
	}
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, port := r.URL.Hostname(), r.URL.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[r.URL.Scheme]
		if port == "" {
			port = "80"
		}
	}
	if r.Method == http.MethodConnect {
		host, port = hostOf(r.Host)
	}
	ok := host != "" && p.Allows(host, port)
	p.note(host, ok)
	if !ok {
		http.Error(w, fmt.Sprintf("rein: the network is granted to this command for %s only, not %s (sandbox.hosts)", strings.Join(p.Allowed, ", "), host), http.StatusForbidden)
		return
	}
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "rein: this is a proxy: ask for an absolute URL", http.StatusBadRequest)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	res, err := transport.RoundTrip(out)
	if err != nil {
		http.Error(w, "rein: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	for k, vs := range res.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(res.StatusCode)
	io.Copy(w, res.Body)
}

// transport reaches the granted hosts directly (never through another
// proxy of the environment's).
var transport = &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
	TLSHandshakeTimeout: 30 * time.Second, MaxIdleConns: 16, IdleConnTimeout: 30 * time.Second}

// tunnel joins the command's connection to the host's (HTTPS, CONNECT).
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	up, err := (&net.Dialer{}).DialContext(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		http.Error(w, "rein: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "rein: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !p.track(up, true) || !p.track(down, true) {
		up.Close()
		down.Close()
		return
	}
	defer p.track(up, false)
	defer p.track(down, false)
	io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n")
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, buf); closeWrite(up); done <- struct{}{} }()
	go func() { io.Copy(down, up); closeWrite(down); done <- struct{}{} }()
	<-done
	<-done
	up.Close()
	down.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// hostOf is host:port's host and port (443 when it has none).
func hostOf(hostport string) (string, string) {
	if h, port, err := net.SplitHostPort(hostport); err == nil {
		return h, port
	}
	return hostport, "443"
}

// tokenListener's connections must start with the token's line: one that
// does not is closed at its first read, in its own goroutine, so that a
// slow or silent one holds up no other.
type tokenListener struct {
	net.Listener
	token string
}

func (l tokenListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &tokenConn{Conn: c, token: l.token}, nil
}

type tokenConn struct {
	net.Conn
	token string
	once  sync.Once
	ok    bool
}

func (c *tokenConn) Read(b []byte) (int, error) {
	c.once.Do(func() {
		c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		line := make([]byte, len(c.token)+1)
		_, err := io.ReadFull(c.Conn, line)
		c.ok = err == nil && string(line) == c.token+"\n"
		c.Conn.SetReadDeadline(time.Time{})
		if !c.ok {
			c.Conn.Close()
		}
	})
	if !c.ok {
		return 0, io.EOF
	}
	return c.Conn.Read(b)
}
