package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/memory/agentmem"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// fixture is an MCP server on a real vault, memory store and board, and
// what it changed.
type fixture struct {
	v       *vault.Vault
	cfg     ServerConfig
	changes atomic.Int32
}

// newFixture builds a server configuration on fresh stores, the way kws
// mcp serve assembles it.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{v: vaulttest.MustOpen(t)}
	store, err := memory.Open(t.TempDir(), memory.Options{Sensitive: diet.IsSensitive, Review: true})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	f.cfg = ServerConfig{Vault: f.v, Workspace: ws, Version: "test",
		Put:     func(kind, agent string, data []byte) (string, error) { return app.Keep(f.v, kind, agent, data) },
		Memory:  agentmem.New(agentmem.Config{Store: store, Vault: f.v, Workspace: ws, Agent: "mcp", Session: "mcp", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}),
		Board:   swarm.NewBoard(f.v, nil).For,
		Changed: func() { f.changes.Add(1) }}
	return f
}

// connect serves f's configuration to a go-sdk client called client over
// an in-memory transport.
func (f *fixture) connect(t *testing.T, client string) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(f.cfg).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: client, Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool with arguments given as JSON and fails the test on a
// protocol error; a tool error is the result's IsError.
func call(t *testing.T, cs *sdk.ClientSession, name, args string) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}

// text is the result's text contents, joined.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// want checks that the call failed or succeeded as isErr says and that its
// text holds every one of subs.
func want(t *testing.T, res *sdk.CallToolResult, isErr bool, subs ...string) {
	t.Helper()
	if res.IsError != isErr {
		t.Fatalf("IsError = %v, want %v: %s", res.IsError, isErr, text(res))
	}
	for _, s := range subs {
		if !strings.Contains(text(res), s) {
			t.Fatalf("result %q does not say %q", text(res), s)
		}
	}
}

// put stores args through vault_put and returns the block's id.
func put(t *testing.T, cs *sdk.ClientSession, args string) putResult {
	t.Helper()
	res := call(t, cs, "vault_put", args)
	want(t, res, false)
	var out putResult
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil || out.ID == "" {
		t.Fatalf("vault_put answered %s (%v)", raw, err)
	}
	return out
}

// TestServerTools: the client sees every tool, and the ones that mirror
// the agent's own have its names, argument schemas and descriptions.
func TestServerTools(t *testing.T) {
	cs := newFixture(t).connect(t, "test")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("%s has no description or schema", tl.Name)
		}
	}
	slices.Sort(names)
	if got := strings.Join(names, " "); got != "board_add board_claim board_done board_list ctx_get ctx_search memory_save memory_search vault_put" {
		t.Fatalf("tools: %s", got)
	}
	for _, name := range []string{"ctx_get", "ctx_search", "memory_search", "memory_save"} {
		agent, _ := tools.ByName(name)
		var wantSchema, gotSchema any
		json.Unmarshal(agent.Schema(), &wantSchema)
		raw, _ := json.Marshal(byName[name].InputSchema)
		json.Unmarshal(raw, &gotSchema)
		if w, g := jsonOf(wantSchema), jsonOf(gotSchema); w != g {
			t.Errorf("%s schema\n got %s\nwant %s", name, g, w)
		}
		if name != "ctx_get" && byName[name].Description != agent.Description() {
			t.Errorf("%s description differs from the agent's", name)
		}
	}
	if !byName["ctx_get"].Annotations.ReadOnlyHint || byName["vault_put"].Annotations.ReadOnlyHint {
		t.Errorf("annotations: ctx_get %+v, vault_put %+v", byName["ctx_get"].Annotations, byName["vault_put"].Annotations)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCtxGetReturnsExactBytes: text comes back as text, byte for byte;
// bytes that are not UTF-8 come back as a base64 blob, byte for byte;
// a unique prefix of the id works and the result names the whole id.
func TestCtxGetReturnsExactBytes(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, "test")
	txt := "exact\r\n\ttext ✓ with trailing spaces   \n\n"
	p := put(t, cs, jsonOf(map[string]string{"text": txt, "kind": "log"}))
	if p.Bytes != len(txt) || p.Sensitive {
		t.Fatalf("put: %+v", p)
	}
	res := call(t, cs, "ctx_get", jsonOf(map[string]string{"id": p.ID[:len("ctx:")+8]}))
	want(t, res, false)
	if len(res.Content) != 1 || text(res) != txt {
		t.Fatalf("ctx_get text: %q", text(res))
	}
	if res.Meta["kws/id"] != p.ID || res.Meta["kws/encoding"] != "utf-8" || res.Meta["kws/bytes"] != float64(len(txt)) {
		t.Fatalf("ctx_get meta: %v", res.Meta)
	}
	bin := []byte{0xff, 0xfe, 0, 1, 2, 'a', 0x80, '\n', 0xc3}
	p = put(t, cs, jsonOf(map[string]string{"base64": base64.StdEncoding.EncodeToString(bin)}))
	res = call(t, cs, "ctx_get", jsonOf(map[string]string{"id": p.ID, "reason": "the bytes"}))
	want(t, res, false, "not UTF-8", "base64")
	var blob []byte
	for _, c := range res.Content {
		if r, ok := c.(*sdk.EmbeddedResource); ok {
			blob = r.Resource.Blob
			if r.Resource.URI != "kws:vault/"+p.ID || r.Resource.MIMEType != "application/octet-stream" {
				t.Fatalf("resource: %+v", r.Resource)
			}
		}
	}
	if !bytes.Equal(blob, bin) || res.Meta["kws/encoding"] != "base64" {
		t.Fatalf("ctx_get blob %x, meta %v", blob, res.Meta)
	}
	if stored, err := f.v.Get(p.ID); err != nil || !bytes.Equal(stored, bin) {
		t.Fatalf("vault holds %x, %v", stored, err)
	}
	if f.changes.Load() != 2 {
		t.Fatalf("two puts told the workstation %d times", f.changes.Load())
	}
}

// TestCtxGetBadInput: an unknown id, a malformed one, a missing one and
// an unknown argument are tool errors the model can act on.
func TestCtxGetBadInput(t *testing.T) {
	cs := newFixture(t).connect(t, "test")
	want(t, call(t, cs, "ctx_get", `{"id":"ctx:0123456789ab"}`), true, "no block ctx:0123456789ab", "ctx_search")
	want(t, call(t, cs, "ctx_get", `{"id":"not-an-id"}`), true, `"not-an-id" is not a block id`)
	want(t, call(t, cs, "ctx_get", `{"id":"ctx:12"}`), true, "is not a block id")
	want(t, call(t, cs, "ctx_get", `{}`), true, "is not a block id")
	want(t, call(t, cs, "ctx_get", `{"id":"ctx:0123456789ab","path":"x"}`), true, `unknown argument "path"`)
	want(t, call(t, cs, "ctx_get", `{"id":42}`), true, `argument "id" must be a string`)
}

// TestCtxGetRefusesSensitiveBlocks: a block that looks like it holds a
// secret is stored, vault_put says so, and ctx_get refuses it as the
// agent's ctx_get does when nobody can approve; ctx_search does not show
// it to another workspace.
func TestCtxGetRefusesSensitiveBlocks(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, "test")
	p := put(t, cs, `{"text":"deploy log\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"}`)
	if !p.Sensitive {
		t.Fatalf("put of a secret: %+v", p)
	}
	want(t, call(t, cs, "ctx_get", jsonOf(map[string]string{"id": p.ID})), true, "marked sensitive", "not served")
	want(t, call(t, cs, "ctx_search", `{"query":"deploy log"}`), false)
	if strings.Contains(text(call(t, cs, "ctx_search", `{"query":"deploy log"}`)), p.ID) {
		t.Fatal("ctx_search shows a sensitive block another workspace stored")
	}
}

// TestCtxSearch: ctx_search finds a stored block by its content and
// refuses an empty query and a k out of range.
func TestCtxSearch(t *testing.T) {
	cs := newFixture(t).connect(t, "test")
	p := put(t, cs, `{"text":"FAIL: TestFrobnicate (0.02s)\n    frob_test.go:42: want 3, got 4\n","kind":"tool:shell"}`)
	put(t, cs, `{"text":"unrelated notes about the weather"}`)
	want(t, call(t, cs, "ctx_search", `{"query":"TestFrobnicate failure","k":3}`), false, p.ID)
	want(t, call(t, cs, "ctx_search", `{"query":"   "}`), true, `"query" must not be empty`)
	want(t, call(t, cs, "ctx_search", `{"query":"x","k":500}`), true, `"k" must be between 1 and 50`)
}

// TestVaultPutBadInput: both encodings, neither, bad base64 and a block
// over the limit are refused with what to do, and store nothing; a block
// of exactly the limit is stored.
func TestVaultPutBadInput(t *testing.T) {
	f := newFixture(t)
	f.cfg.MaxPut = 1 << 20
	cs := f.connect(t, "test")
	want(t, call(t, cs, "vault_put", `{"text":"a","base64":"YQ=="}`), true, "not both")
	want(t, call(t, cs, "vault_put", `{}`), true, "nothing to store")
	want(t, call(t, cs, "vault_put", `{"kind":"log"}`), true, "nothing to store")
	want(t, call(t, cs, "vault_put", `{"base64":"not base64!"}`), true, "not valid standard base64")
	huge := strings.Repeat("x", 1<<20+1)
	want(t, call(t, cs, "vault_put", jsonOf(map[string]string{"text": huge})), true, "1048577 bytes", "at most 1048576", "split it")
	want(t, call(t, cs, "vault_put", jsonOf(map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(huge + strings.Repeat("y", 1<<10)))})), true, "at most 1048576")
	want(t, call(t, cs, "vault_put", `{"text":"x","color":"red"}`), true, "color")
	if n, err := f.v.Len(); err != nil || n != 0 {
		t.Fatalf("refused puts stored %d blocks (%v)", n, err)
	}
	p := put(t, cs, jsonOf(map[string]string{"text": huge[:1<<20]}))
	if p.Bytes != 1<<20 {
		t.Fatalf("put at the limit: %+v", p)
	}
}

// TestMemoryTools: memory_save remembers a fact that memory_search then
// finds; a secret is refused and nothing is stored; bad arguments are
// tool errors.
func TestMemoryTools(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, "test")
	want(t, call(t, cs, "memory_save", `{"text":"The API server listens on port 9090 (config/server.toml)","kind":"path"}`), false, "saved as", "project")
	if f.changes.Load() != 1 {
		t.Fatalf("memory_save told the workstation %d times", f.changes.Load())
	}
	want(t, call(t, cs, "memory_search", `{"query":"which port does the API server listen on"}`), false, "port 9090", "[path]")
	want(t, call(t, cs, "memory_save", `{"text":"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`), true, "memory never stores secrets")
	if res := call(t, cs, "memory_search", `{"query":"aws secret access key"}`); strings.Contains(text(res), "wJalr") {
		t.Fatalf("a refused secret was remembered: %s", text(res))
	}
	want(t, call(t, cs, "memory_search", `{"query":""}`), true, `"query" must not be empty`)
	want(t, call(t, cs, "memory_search", `{"query":"port","scope":"everywhere"}`), true, `"scope" must be project, global or all`)
	want(t, call(t, cs, "memory_save", `{"text":"a fact","kind":"gossip"}`), true, `unknown kind "gossip"`)
	if f.changes.Load() != 1 {
		t.Fatalf("refused saves told the workstation: %d", f.changes.Load())
	}
}

// TestMemoryOff: without a memory store the memory tools say so.
func TestMemoryOff(t *testing.T) {
	f := newFixture(t)
	f.cfg.Memory = nil
	cs := f.connect(t, "test")
	want(t, call(t, cs, "memory_search", `{"query":"port"}`), true, "memory is off")
}

// boardTask decodes a board tool's task.
func taskOf(t *testing.T, res *sdk.CallToolResult) vault.Task {
	t.Helper()
	want(t, res, false)
	var out boardTask
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out.Task
}

// TestBoardTools: two clients, known by their names, share the board: one
// adds and claims a task, the other cannot claim or finish it, and the
// owner finishes it; bad ids and an empty title are tool errors.
func TestBoardTools(t *testing.T) {
	f := newFixture(t)
	a, b := f.connect(t, "claude code"), f.connect(t, "codex")
	task := taskOf(t, call(t, a, "board_add", `{"title":"fix the flaky test","detail":"frob_test.go:42"}`))
	if task.ID != "t1" || task.Status != vault.TaskOpen || task.CreatedBy != "mcp:claude-code" {
		t.Fatalf("added %+v", task)
	}
	if task = taskOf(t, call(t, a, "board_claim", `{"id":"t1"}`)); task.Owner != "mcp:claude-code" || task.Status != vault.TaskClaimed {
		t.Fatalf("claimed %+v", task)
	}
	want(t, call(t, b, "board_claim", `{"id":"t1"}`), true, "t1 is claimed by mcp:claude-code")
	want(t, call(t, b, "board_done", `{"id":"T1"}`), true, "claimed by mcp:claude-code")
	if task = taskOf(t, call(t, a, "board_done", `{"id":"1"}`)); task.Status != vault.TaskDone {
		t.Fatalf("done %+v", task)
	}
	want(t, call(t, b, "board_claim", `{"id":"t1"}`), true, "already done")
	want(t, call(t, b, "board_claim", `{"id":"t9"}`), true, "no task with that id")
	want(t, call(t, b, "board_done", `{"id":"first"}`), true, `"first" (want t1, t2, …)`)
	want(t, call(t, b, "board_add", `{"title":"  "}`), true, "the title is empty")
	want(t, call(t, b, "board_add", `{}`), true, "title")
	res := call(t, b, "board_list", `{}`)
	want(t, res, false)
	var list boardList
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &list)
	if list.Agent != "mcp:codex" || len(list.Tasks) != 1 || list.Tasks[0].Owner != "mcp:claude-code" {
		t.Fatalf("board_list: %s", raw)
	}
	if f.changes.Load() != 3 {
		t.Fatalf("three board changes told the workstation %d times", f.changes.Load())
	}
	odd := f.connect(t, "evil\x1b[31m\tclient\u0007"+strings.Repeat("é", 40))
	if task = taskOf(t, call(t, odd, "board_add", `{"title":"odd"}`)); task.CreatedBy != "mcp:evil[31m-client"+strings.Repeat("é", 12) {
		t.Fatalf("a client's odd name: %q", task.CreatedBy)
	}
	f.cfg.Agent = "reviewer"
	c := f.connect(t, "codex")
	if task = taskOf(t, call(t, c, "board_add", `{"title":"review"}`)); task.CreatedBy != "reviewer" {
		t.Fatalf("--agent: %+v", task)
	}
}

// TestListenLoopbackOnly: the HTTP transport listens on loopback only.
func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0", "192.0.2.7:0", "example.com:0", "127.0.0.1"} {
		ln, err := ListenLoopback(addr)
		if err == nil {
			ln.Close()
			t.Fatalf("ListenLoopback(%q) listened on %s", addr, ln.Addr())
		}
		if !strings.Contains(err.Error(), "loopback") {
			t.Errorf("ListenLoopback(%q): %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := ListenLoopback(addr)
		if err != nil {
			t.Fatalf("ListenLoopback(%q): %v", addr, err)
		}
		ln.Close()
	}
}

// TestServeHTTP: a go-sdk client reaches the server over streamable HTTP;
// the server stops with its context and closes the session the client
// left open.
func TestServeHTTP(t *testing.T) {
	f := newFixture(t)
	ln, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	s := NewServer(f.cfg)
	const token = "0123456789abcdef0123456789abcdef"
	go func() { served <- ServeHTTP(ctx, s, ln, token) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "http", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/",
			HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := put(t, cs, `{"text":"over http"}`)
	want(t, call(t, cs, "ctx_get", jsonOf(map[string]string{"id": p.ID})), false, "over http")
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	for range s.Sessions() {
		t.Fatal("a session outlived ServeHTTP")
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "board_list", Arguments: map[string]any{}}); err == nil {
		t.Fatal("the client still reaches the stopped server")
	}
	cs.Close()
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeHTTPGuard: red-team trial 4 read the vault and saved a memory
// as another user through kws mcp serve --http. Without the token, with a
// wrong one, under another Host (DNS rebinding) or from a web page's
// Origin, a request never reaches the MCP handler.
func TestServeHTTPGuard(t *testing.T) {
	ln, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reached := 0
	h := Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }), "right-token-0123456789abcdef0123", ln.Addr())
	go http.Serve(ln, h)
	addr := ln.Addr().String()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, c := range []struct {
		name, host, origin, auth string
		status                   int
	}{
		{"no token", addr, "", "", http.StatusUnauthorized},
		{"wrong token", addr, "", "Bearer wrong-token-0123456789abcdef0123", http.StatusUnauthorized},
		{"token without Bearer", addr, "", "right-token-0123456789abcdef0123", http.StatusUnauthorized},
		{"rebound host name", fmt.Sprintf("evil.example:%d", port), "", "Bearer right-token-0123456789abcdef0123", http.StatusForbidden},
		{"web page origin", addr, "http://evil.example", "Bearer right-token-0123456789abcdef0123", http.StatusForbidden},
		{"right token", addr, "", "Bearer right-token-0123456789abcdef0123", http.StatusOK},
		{"localhost and own origin", fmt.Sprintf("localhost:%d", port), "http://" + addr, "Bearer right-token-0123456789abcdef0123", http.StatusOK},
	} {
		req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader("{}"))
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		before := reached
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status || (reached > before) != (c.status == http.StatusOK) {
			t.Errorf("%s: status %d (reached the handler: %v), want %d", c.name, resp.StatusCode, reached > before, c.status)
		}
	}
}

// serveOverPipes serves f's server with ServeStream over two pipes and
// returns the client's ends: what it writes to the server, what it reads
// from it, and ServeStream's result once it returns (the server's output
// is then closed).
func serveOverPipes(f *fixture) (*io.PipeWriter, *io.PipeReader, <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- ServeStream(context.Background(), NewServer(f.cfg), inR, outW)
		outW.Close()
	}()
	return inW, outR, served
}

// TestServeStreamRefusesAHugePut: over the stdio transport, a put one byte
// over DefaultMaxPut is a tool error and the session goes on; at the end
// of its input the session ends without an error.
func TestServeStreamRefusesAHugePut(t *testing.T) {
	f := newFixture(t)
	inW, outR, served := serveOverPipes(f)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "stdio", Version: "1"}, nil).
		Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", DefaultMaxPut+1)
	want(t, call(t, cs, "vault_put", jsonOf(map[string]string{"text": huge})), true, "33554433 bytes", "at most 33554432 (32 MiB)")
	p := put(t, cs, `{"text":"still serving"}`)
	want(t, call(t, cs, "ctx_get", jsonOf(map[string]string{"id": p.ID})), false, "still serving")
	cs.Close()
	if err := <-served; err != nil {
		t.Fatalf("ServeStream after the client closed: %v", err)
	}
	if n, _ := f.v.Len(); n != 1 {
		t.Fatalf("the vault holds %d blocks, want 1", n)
	}
}
