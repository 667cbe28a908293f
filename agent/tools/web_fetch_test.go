package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// webServer serves the pages web_fetch is tested on, and lets web_fetch
// reach it on loopback while the test runs.
func webServer(t *testing.T) *httptest.Server {
	t.Helper()
	allow := dialAllowed
	dialAllowed = func(ip netip.Addr) bool { return ip.Unmap().IsLoopback() }
	t.Cleanup(func() { dialAllowed = allow })
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title> The  Page </title><style>body{color:red}</style>
<script>alert("x")</script></head><body><nav><a href="/home">Home</a></nav>
<h1>Install</h1><p>Run   the <b>installer</b>,
then <a href="docs/next.html">read on</a>.</p>
<ul><li>one</li><li><p>two</p><ul><li>nested</li></ul></li></ul>
<pre>go build ./...
  indented</pre>
<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
<form><input value="secret-form"></form></body></html>`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "HEAD-LINE\n")
		for i := range 5000 {
			fmt.Fprintf(w, "line %d of the big text\n", i)
		}
		fmt.Fprint(w, "TAIL-LINE\n")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok": true}`)
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00binary"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/to-page", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestWebFetchConvertsHTML(t *testing.T) {
	srv := webServer(t)
	res := call(t, newEnv(t, nil), "web_fetch", map[string]any{"url": srv.URL + "/to-page"})
	checkResult(t, res, false, "URL: "+srv.URL+"/page", "STATUS: 200 OK", "CONTENT-TYPE: text/html",
		"Title: The Page", "# Install", "Run the installer, then read on ("+srv.URL+"/docs/next.html).",
		"- one\n- two\n  - nested\n\n```", "```\ngo build ./...\n  indented\n```", "k | v |", "a | 1 |", "Home ("+srv.URL+"/home)")
	for _, leaked := range []string{"alert", "color:red", "secret-form", "<p>"} {
		if strings.Contains(res.Text, leaked) {
			t.Errorf("the text holds %q:\n%s", leaked, res.Text)
		}
	}
}

func TestWebFetchKinds(t *testing.T) {
	srv := webServer(t)
	tests := []struct {
		name, url string
		isError   bool
		want      string
	}{
		{"json as it is", srv.URL + "/json", false, `{"ok": true}`},
		{"binary refused", srv.URL + "/png", true, "image/png"},
		{"HTTP error shown as an error", srv.URL + "/missing", true, "404 Not Found"},
		{"redirect off the web refused", srv.URL + "/to-file", true, "not an absolute http:// or https:// URL"},
		{"file URL refused", "file:///etc/passwd", true, "not an absolute http:// or https:// URL"},
		{"relative URL refused", "/page", true, "not an absolute"},
		{"unreachable host", "http://127.0.0.1:1/", true, "web_fetch:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, newEnv(t, nil), "web_fetch", map[string]any{"url": tt.url})
			checkResult(t, res, tt.isError, tt.want)
			if strings.Contains(res.Text, "root:") || strings.Contains(res.Text, "binary") {
				t.Errorf("the result leaks the body: %q", res.Text)
			}
		})
	}
}

func TestWebFetchKeepsLongTextInTheVault(t *testing.T) {
	srv := webServer(t)
	env := newEnv(t, nil)
	var kept []byte
	var kind string
	env.Keep = func(k string, data []byte) (string, error) {
		kind, kept = k, data
		return "ctx:0123456789ab", nil
	}
	res := call(t, env, "web_fetch", map[string]any{"url": srv.URL + "/big", "max_bytes": 4096})
	checkResult(t, res, false, "exact in the vault as ctx:0123456789ab", "HEAD-LINE", "TAIL-LINE", "bytes cut")
	if len(res.Text) > 4096+512 {
		t.Errorf("the result is %d bytes, want about max_bytes 4096", len(res.Text))
	}
	if kind != "tool:web_fetch" || !strings.HasPrefix(string(kept), "HEAD-LINE\n") || !strings.HasSuffix(string(kept), "TAIL-LINE\n") {
		t.Errorf("kept %q, %d bytes; want the whole text", kind, len(kept))
	}
}

func TestWebFetchPreviewAndAccess(t *testing.T) {
	tool, _ := ByName("web_fetch")
	if tool.Access() != Network {
		t.Errorf("access = %v, want Network (asks like shell)", tool.Access())
	}
	pv, err := tool.(Previewer).Preview(nil, []byte(`{"url":"https://example.com/a?b=1"}`))
	if err != nil || pv != "GET https://example.com/a?b=1" {
		t.Errorf("Preview = %q, %v", pv, err)
	}
	if _, err := tool.(Previewer).Preview(nil, []byte(`{"url":"ftp://example.com/"}`)); err == nil {
		t.Error("Preview accepted an ftp URL")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tool.Run(ctx, newEnv(t, nil), json.RawMessage(`{"url":"http://127.0.0.1:1/"}`)); err == nil {
		t.Error("a cancelled fetch returned no error")
	}
}

// TestWebFetchReachesOnlyPublicAddresses: loopback in its several
// spellings, private, link-local (the metadata service) and shared
// addresses are refused after resolution (a name that resolves to one
// too), and a redirect to another host is not followed: it is a new URL
// for the user to approve.
func TestWebFetchReachesOnlyPublicAddresses(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1",
		"169.254.169.254", "fd00::1", "fe80::1", "100.64.0.1", "0.0.0.0", "224.0.0.1"} {
		if dialAllowed(netip.MustParseAddr(a)) {
			t.Errorf("%s allowed", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"} {
		if !dialAllowed(netip.MustParseAddr(a)) {
			t.Errorf("%s refused", a)
		}
	}
	private := webServer(t)
	dialAllowed = func(netip.Addr) bool { return false }
	for _, u := range []string{private.URL + "/page", strings.Replace(private.URL, "127.0.0.1", "localhost", 1) + "/page",
		strings.Replace(private.URL, "127.0.0.1", "[::ffff:127.0.0.1]", 1) + "/page"} {
		res := call(t, &Env{}, "web_fetch", map[string]any{"url": u})
		if !res.IsError || !strings.Contains(res.Text, "public addresses") || strings.Contains(res.Text, "Install") {
			t.Errorf("%s: %q", u, res.Text)
		}
	}
	// A server the test lets web_fetch reach stands for a public host; it
	// redirects to the metadata service, another host.
	meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "AWS_SECRET") }))
	t.Cleanup(meta.Close)
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, meta.URL+"/latest/meta-data/iam/", http.StatusFound)
	}))
	t.Cleanup(public.Close)
	dialAllowed = func(ip netip.Addr) bool { return ip.Unmap().IsLoopback() }
	res := call(t, &Env{}, "web_fetch", map[string]any{"url": public.URL + "/"})
	if !res.IsError || strings.Contains(res.Text, "AWS_SECRET") || !strings.Contains(res.Text, "another host") {
		t.Errorf("redirect to another host: %q", res.Text)
	}
}
