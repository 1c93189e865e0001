package netproxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestAllows(t *testing.T) {
	p := &Proxy{Allowed: []string{"registry.npmjs.org", "*.crates.io", "127.0.0.2:*", "localhost:8080"}}
	for hostport, want := range map[string]bool{
		"registry.npmjs.org:443": true, "REGISTRY.npmjs.org.:443": true, "registry.npmjs.org:80": true, "registry.npmjs.org:22": false,
		"index.crates.io:443": true, "crates.io:443": false, "evil.npmjs.org:443": false, "registry.npmjs.org.evil.com:443": false,
		"127.0.0.2:5555": true, "127.0.0.1:443": false, "localhost:8080": true, "localhost:8081": false, ":443": false,
	} {
		host, port := hostOf(hostport)
		if got := p.Allows(host, port); got != want {
			t.Errorf("Allows(%q) = %v, want %v", hostport, got, want)
		}
	}
}

// Through the proxy a granted host answers, by plain HTTP and through a
// CONNECT tunnel; another is refused with a 403 that says why, and the
// proxy records both.
func TestProxyGrantsHosts(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upstream := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "UPSTREAM") })}
	go upstream.Serve(up)
	defer upstream.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Allowed: []string{"127.0.0.1:*"}}
	go p.Serve(ln)
	defer p.Close()
	proxyURL, _ := url.Parse("http://" + ln.Addr().String())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	res, err := client.Get("http://" + up.Addr().String() + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "UPSTREAM" {
		t.Errorf("plain HTTP through the proxy: %d %q", res.StatusCode, body)
	}
	// A tunnel, as HTTPS clients open one.
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT "+up.Addr().String()+" HTTP/1.1\r\nHost: "+up.Addr().String()+"\r\n\r\n")
	br := bufio.NewReader(c)
	status, _ := br.ReadString('\n')
	if !strings.Contains(status, "200") {
		t.Fatalf("CONNECT: %q", status)
	}
	br.ReadString('\n')
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	rest, _ := io.ReadAll(br)
	if !strings.Contains(string(rest), "UPSTREAM") {
		t.Errorf("through the tunnel: %q", rest)
	}
	// Another host.
	res, err = client.Get("http://localhost:1/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "sandbox.hosts") {
		t.Errorf("a host not granted: %d %q", res.StatusCode, body)
	}
	if asked, refused := p.Asked(); len(asked) != 2 || len(refused) != 1 || refused[0] != "localhost" {
		t.Errorf("asked %v, refused %v", asked, refused)
	}
}

// A connection that does not start with the token is closed unanswered:
// another program finding the proxy's socket gets nothing from it.
func TestProxyWantsTheToken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Allowed: []string{"127.0.0.1:*"}, Token: "s3cret"}
	go p.Serve(ln)
	defer p.Close()
	ask := func(prefix string) string {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, prefix+"GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: 127.0.0.1:1\r\nConnection: close\r\n\r\n")
		b, _ := io.ReadAll(c)
		return string(b)
	}
	if got := ask(""); got != "" {
		t.Errorf("without the token: %q", got)
	}
	if got := ask("s3cret\n"); !strings.Contains(got, "HTTP/1.1") {
		t.Errorf("with the token: %q", got)
	}
}
