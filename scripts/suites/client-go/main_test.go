// Package clientgo holds tests of ours that drive k8s.io/client-go v0.37.2 against the API server
// named by $KUBECONFIG: the parts of client-go that need a real server (informers over dropped
// connections, leader election, watch expiry, streaming lists, protobuf and JSON, list chunking,
// discovery). client-go's own tests use fakes, and kubernetes' integration tests start their own
// apiserver in-process, so neither can target an external server. Every assertion here is
// documented Kubernetes behaviour: kube-apiserver must pass them all.
package clientgo

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

const (
	jsonType     = "application/json"
	protobufType = "application/vnd.kubernetes.protobuf"
)

func TestMain(m *testing.M) {
	// client-go logs through klog; its warnings (watch ended, backing off) go to the test's stderr.
	klog.LogToStderr(true)
	os.Exit(m.Run())
}

// restConfig is the admin config of $KUBECONFIG, speaking contentType.
func restConfig(t *testing.T, contentType string) *rest.Config {
	t.Helper()
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		t.Fatal("KUBECONFIG names no kubeconfig")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	cfg.Timeout = 30 * time.Second
	if contentType == protobufType {
		cfg.ContentType = protobufType
		cfg.AcceptContentTypes = protobufType + "," + jsonType
	} else {
		cfg.ContentType = jsonType
		cfg.AcceptContentTypes = jsonType
	}
	return cfg
}

func clientset(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	return cs
}

// namespace creates a namespace of its own for a test (left in place: each group gets a fresh
// server, and without a namespace controller deleting one would only leave it Terminating).
func namespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	name := "cg-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.TrimRight(name, "-") + "-" + rand.String(5)
	_, err := cs.CoreV1().Namespaces().Create(ctx(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	return name
}

// ctx is a context that ends with the test.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return c
}

// eventually polls cond every 50 ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, why := cond()
		if ok {
			return
		}
		last = why
		if time.Now().After(deadline) {
			t.Fatalf("after %s, still not %s: %s", timeout, what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// recorder notes every request a client makes, with its response's Content-Type.
type recorder struct {
	mu      sync.Mutex
	entries []request
}

type request struct {
	method, path string
	query        url.Values
	contentType  string
}

// key is "METHOD path", with WATCH for a GET with watch=true.
func (r request) key() string {
	if r.method == http.MethodGet && (r.query.Get("watch") == "true" || r.query.Get("watch") == "1") {
		return "WATCH " + r.path
	}
	return r.method + " " + r.path
}

func recordRequests(cfg *rest.Config) *recorder {
	rec := &recorder{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			e := request{method: req.Method, path: req.URL.Path, query: req.URL.Query()}
			if err == nil {
				e.contentType = resp.Header.Get("Content-Type")
			}
			rec.mu.Lock()
			rec.entries = append(rec.entries, e)
			rec.mu.Unlock()
			return resp, err
		})
	})
	return rec
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// contentTypes are the Content-Types of the responses to key ("GET /api/v1/...").
func (c *recorder) contentTypes(key string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.entries {
		if e.key() == key && e.contentType != "" {
			out = append(out, e.contentType)
		}
	}
	return out
}

func (c *recorder) count(match func(request) bool) int {
	return len(c.since(0, match))
}

// since are the requests that match, from the n-th match on.
func (c *recorder) since(n int, match func(request) bool) []request {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []request
	for _, e := range c.entries {
		if match(e) {
			out = append(out, e)
		}
	}
	if n > len(out) {
		return nil
	}
	return out[n:]
}

// tcpProxy forwards a local port to the API server, and can cut every connection through it or
// refuse new ones for a while: a network that drops, for the client's side of things.
type tcpProxy struct {
	t      *testing.T
	target string
	addr   string

	mu      sync.Mutex
	ln      net.Listener
	conns   map[net.Conn]struct{}
	cuts    int
	stopped bool
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	p := &tcpProxy{t: t, target: target, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	t.Cleanup(p.stop)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
			if err != nil {
				down.Close()
				continue
			}
			p.mu.Lock()
			if p.stopped {
				p.mu.Unlock()
				down.Close()
				up.Close()
				return
			}
			p.conns[down], p.conns[up] = struct{}{}, struct{}{}
			p.mu.Unlock()
			pipe := func(dst, src net.Conn) {
				_, _ = io.Copy(dst, src)
				dst.Close()
				src.Close()
				p.mu.Lock()
				delete(p.conns, dst)
				delete(p.conns, src)
				p.mu.Unlock()
			}
			go pipe(up, down)
			go pipe(down, up)
		}
	}()
}

// cut closes every open connection through the proxy; new ones are accepted at once.
func (p *tcpProxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for c := range p.conns {
		c.Close()
		n++
	}
	p.cuts++
	return n / 2
}

// down closes the listener and every connection: connections are refused until up().
func (p *tcpProxy) down() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	p.cut()
}

func (p *tcpProxy) up() {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port was ours a moment ago; take it back
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("proxy relisten on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func (p *tcpProxy) stop() {
	p.mu.Lock()
	p.stopped = true
	ln := p.ln
	p.ln = nil
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	p.cut()
}

// throughProxy is cfg with its host replaced by a proxy in front of it.
func throughProxy(t *testing.T, cfg *rest.Config) (*rest.Config, *tcpProxy) {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimPrefix(cfg.Host, "https://"), "http://")
	host = strings.TrimSuffix(host, "/")
	p := newTCPProxy(t, host)
	out := rest.CopyConfig(cfg)
	out.Host = "https://" + p.addr
	// The server's certificate names 127.0.0.1 or localhost; the proxy listens on 127.0.0.1.
	if out.TLSClientConfig.ServerName == "" && strings.HasPrefix(host, "localhost") {
		out.TLSClientConfig.ServerName = "localhost"
	}
	return out, p
}

func must(t *testing.T, err error, what string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}
