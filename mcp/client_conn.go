package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/sandbox"
)

// maxFrame bounds one message from a stdio server: a 50 MB result still
// arrives (and goes to the vault), a runaway one ends the connection.
const maxFrame = 64 << 20

// Restart backoff after a crash: the first retry waits restartBase, each
// failed retry doubles it up to restartMax; after maxRetries failed
// retries in a row the server is failed.
const (
	restartBase = 250 * time.Millisecond
	restartMax  = 30 * time.Second
	maxRetries  = 6
)

// crashGrace is how long a failed call waits for the server's exit to be
// seen, so it can say the server crashed rather than give the raw error.
const crashGrace = 2 * time.Second

// conn is one configured server and its current connection.
type conn struct {
	m       *Manager
	name    string
	cfg     config.MCPServer
	timeout time.Duration

	mu       sync.Mutex
	state    State
	reason   string             // why failed, refused or last crashed
	sess     *sdk.ClientSession // nil unless connected
	proc     *child             // the stdio server while it runs
	gone     chan struct{}      // closed when the current connection ended
	changed  chan struct{}      // closed and replaced on every state change
	tools    []*sdk.Tool        // the tools offered, from the first listing
	skipped  []string           // tools not offered, with why
	restarts int                // restarts after crashes
	notice   string             // a crash the next call's result reports
	crash    string             // how the last connection ended
	closed   bool
	stop     chan struct{} // closed by close
	agentTs  []tools.Tool  // the tools as agent tools
}

func newConn(m *Manager, name string, cfg config.MCPServer) *conn {
	return &conn{m: m, name: name, cfg: cfg, timeout: cfg.CallTimeout(), state: StateStarting, changed: make(chan struct{}),
		stop: make(chan struct{})}
}

// setState records a new state and wakes whoever waits for one; c.mu is
// held.
func (c *conn) setState(s State, reason string) {
	c.state, c.reason = s, reason
	close(c.changed)
	c.changed = make(chan struct{})
	c.m.opts.Log.Info("mcp server", "server", c.name, "state", string(s), "reason", reason)
}

// start runs the first start: the trust check for a workspace command,
// then the connection and the tool listing.
func (c *conn) start() {
	if NeedsTrust(c.cfg) {
		if err := c.m.trusted(c.name, c.cfg); err != nil {
			c.mu.Lock()
			c.setState(StateRefused, err.Error())
			c.mu.Unlock()
			return
		}
	}
	sess, proc, err := c.connect()
	if err == nil {
		err = c.listTools(sess)
		if err != nil {
			c.kill(sess, proc)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.setState(StateFailed, err.Error())
		return
	}
	c.attach(sess, proc)
}

// attach makes sess the current connection and watches it end; c.mu is
// held.
func (c *conn) attach(sess *sdk.ClientSession, proc *child) {
	if c.closed {
		go c.kill(sess, proc)
		return
	}
	c.sess, c.proc, c.gone = sess, proc, make(chan struct{})
	c.setState(StateConnected, "")
	go c.watch(sess, proc, c.gone)
}

// watch waits for the connection to end. Unless kws closed it, that is a
// crash: the next call is told, and the server is restarted with backoff.
func (c *conn) watch(sess *sdk.ClientSession, proc *child, gone chan struct{}) {
	waitErr := sess.Wait()
	why := c.kill(sess, proc)
	if why == "" && waitErr != nil {
		why = c.redact(waitErr)
	}
	if why == "" {
		why = "the connection closed"
	}
	c.mu.Lock()
	defer close(gone)
	defer c.mu.Unlock()
	if c.closed || c.sess != sess {
		return
	}
	c.sess, c.proc, c.crash = nil, nil, why
	c.notice = fmt.Sprintf("MCP server %s crashed (%s); kws restarted it", c.name, why)
	c.setState(StateRestarting, "crashed: "+why)
	go c.restart(why)
}

// restart starts the server again, waiting longer after each failure.
func (c *conn) restart(why string) {
	delay := restartBase
	for attempt := 1; ; attempt++ {
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-c.stop:
			timer.Stop()
			return
		}
		sess, proc, err := c.connect()
		c.mu.Lock()
		if err == nil {
			c.restarts++
			c.attach(sess, proc)
			c.mu.Unlock()
			return
		}
		if attempt >= maxRetries {
			c.setState(StateFailed, fmt.Sprintf("crashed (%s), and %d restarts failed; the last: %v", why, attempt, err))
			c.mu.Unlock()
			return
		}
		c.reason = fmt.Sprintf("crashed (%s); restart %d failed: %v", why, attempt, err)
		c.mu.Unlock()
		delay = min(2*delay, restartMax)
	}
}

// connect starts the server (or reaches its URL) and initializes the
// session within the timeout.
func (c *conn) connect() (*sdk.ClientSession, *child, error) {
	ctx, cancel := context.WithTimeout(c.m.ctx, c.timeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "kws", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	if c.cfg.URL != "" {
		t := &sdk.StreamableClientTransport{Endpoint: c.cfg.URL, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: headerTransport{headers: c.cfg.Headers, base: http.DefaultTransport}}}
		sess, err := client.Connect(ctx, t, nil)
		if err != nil {
			return nil, nil, c.startError(ctx, err)
		}
		return sess, nil, nil
	}
	proc, t, err := c.spawn()
	if err != nil {
		return nil, nil, err
	}
	sess, err := client.Connect(ctx, t, nil)
	if err != nil {
		exit := c.kill(nil, proc)
		err = c.startError(ctx, err)
		if exit != "" {
			err = fmt.Errorf("%w (the process %s)", err, exit)
		}
		return nil, nil, err
	}
	return sess, proc, nil
}

// startError explains a failed initialize.
func (c *conn) startError(ctx context.Context, err error) error {
	log := ""
	if p := c.m.logPath(c.name); p != "" && c.cfg.Command != "" {
		log = "; its stderr is in " + p
	}
	if c.m.ctx.Err() != nil {
		return fmt.Errorf("kws stopped before it answered initialize")
	}
	if ctx.Err() != nil {
		return fmt.Errorf("did not answer initialize within %s%s", c.timeout, log)
	}
	return fmt.Errorf("initialize failed: %s%s", c.redact(err), log)
}

// redact is err's text with the server's URL as Shown shows it: Go's HTTP
// errors quote the URL, and a token may be in its query.
func (c *conn) redact(err error) string {
	if c.cfg.URL == "" {
		return err.Error()
	}
	return strings.ReplaceAll(err.Error(), c.cfg.URL, c.cfg.Shown())
}

// spawn starts the stdio server in its own process group with its stderr
// in the log, a workspace's server in the sandbox, and returns the
// transport over its stdin and stdout. The pipes are kws's own, so that
// the process's exit never closes them under a read of its last message.
func (c *conn) spawn() (*child, sdk.Transport, error) {
	cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
	start, cleanup := cmd.Start, func() {}
	if p := c.m.opts.Sandbox; p != nil && c.cfg.Workspace {
		tmp, err := os.MkdirTemp("", "kws-mcp-")
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { os.RemoveAll(tmp) }
		policy := *p
		policy.Workspace, policy.Temp = c.m.opts.Workspace, tmp
		policy.ReadOnly, policy.Forbidden = sandbox.GitMetadata(policy.Workspace)
		if cmd, err = sandbox.Command(context.Background(), policy, append([]string{c.cfg.Command}, c.cfg.Args...)...); err != nil {
			cleanup()
			return nil, nil, err
		}
		start = func() error { return sandbox.Start(cmd, policy) }
	}
	cmd.Dir = c.m.opts.Workspace
	cmd.Env = c.env(cmd.Environ())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if p := c.m.logPath(c.name); p != "" {
		if err := os.MkdirAll(c.m.opts.LogDir, 0o700); err != nil {
			return nil, nil, fmt.Errorf("log: %w", err)
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("log: %w", err)
		}
		defer f.Close()
		fmt.Fprintf(f, "--- kws starts %s at %s\n", c.cfg.Shown(), time.Now().UTC().Format(time.RFC3339))
		cmd.Stderr = f
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		cleanup()
		return nil, nil, fmt.Errorf("cannot start %s: %w", c.cfg.Shown(), err)
	}
	return &child{p: cmd.Process, pipes: []*os.File{outR, inW}, cleanup: cleanup}, &sdk.IOTransport{Reader: outR, Writer: inW, MaxLineLength: maxFrame}, nil
}

// env is environ without the API keys, plus the server's env.
func (c *conn) env(environ []string) []string {
	hide := append([]string{config.EnvAPIKey, config.EnvOpenAIAPIKey}, c.m.opts.HideEnv...)
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := c.cfg.Env[k]; set || slices.Contains(hide, k) {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range c.cfg.Env {
		out = append(out, k+"="+v)
	}
	return out
}

// child is a stdio server's process and kws's ends of its pipes;
// cleanup removes its sandbox's temp dir once it has ended.
type child struct {
	p       *os.Process
	pipes   []*os.File
	cleanup func()
	once    sync.Once
	how     string
}

// end ends the process (idempotent): closing its stdin asks a
// well-behaved server to exit, one that does not is killed with its
// process group after two seconds. It reports how the process ended.
func (ch *child) end() string {
	if ch == nil {
		return ""
	}
	ch.once.Do(func() {
		for _, f := range ch.pipes {
			_ = f.Close()
		}
		exited := make(chan string, 1)
		go func() {
			st, err := ch.p.Wait()
			if err != nil {
				exited <- err.Error()
				return
			}
			exited <- st.String()
		}()
		timer := time.NewTimer(2 * time.Second)
		defer timer.Stop()
		select {
		case ch.how = <-exited:
			// Children the server left behind go with its group.
			_ = syscall.Kill(-ch.p.Pid, syscall.SIGKILL)
			return
		case <-timer.C:
		}
		_ = syscall.Kill(-ch.p.Pid, syscall.SIGKILL)
		ch.how = <-exited
	})
	if ch.cleanup != nil {
		ch.cleanup()
	}
	return ch.how
}

// kill closes sess and ends proc, and reports how the process ended (""
// without a process).
func (c *conn) kill(sess *sdk.ClientSession, proc *child) string {
	if sess != nil {
		_ = sess.Close()
	}
	return proc.end()
}

// listTools lists the server's tools and keeps those kws can offer: a
// tool whose name cannot be a function name or whose input schema is not
// a valid JSON Schema object is skipped, with the reason logged.
func (c *conn) listTools(sess *sdk.ClientSession) error {
	ctx, cancel := context.WithTimeout(c.m.ctx, c.timeout)
	defer cancel()
	var kept []*sdk.Tool
	var skipped []string
	schemas := map[string][]byte{}
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("did not list its tools within %s", c.timeout)
			}
			return fmt.Errorf("listing tools: %v", err)
		}
		schema, err := checkTool(c.name, t)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", t.Name, err))
			c.m.opts.Log.Warn("mcp tool skipped", "server", c.name, "tool", t.Name, "why", err.Error())
			continue
		}
		kept = append(kept, t)
		schemas[t.Name] = schema
	}
	c.mu.Lock()
	c.tools, c.skipped = kept, skipped
	c.agentTs = make([]tools.Tool, len(kept))
	for i, t := range kept {
		c.agentTs[i] = &mcpTool{c: c, name: t.Name, desc: t.Description, schema: schemas[t.Name]}
	}
	c.mu.Unlock()
	return nil
}

func (c *conn) agentTools() []tools.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.agentTs
}

func (c *conn) status() ServerStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := ServerStatus{Name: c.name, State: c.state, Error: c.reason, Workspace: c.cfg.Workspace, Restarts: c.restarts,
		Skipped: append([]string(nil), c.skipped...), Log: c.m.logPath(c.name)}
	if c.cfg.URL != "" {
		s.Transport, s.Log = c.cfg.Shown(), ""
	} else {
		s.Transport = c.cfg.Shown()
	}
	for _, t := range c.tools {
		s.Tools = append(s.Tools, toolName(c.name, t.Name))
	}
	if c.proc != nil {
		s.PID = c.proc.p.Pid
	}
	return s
}

// Wait waits until cond holds for server name's status, or ctx ends;
// tests use it to wait for a restart.
func (m *Manager) Wait(ctx context.Context, name string, cond func(ServerStatus) bool) error {
	for _, c := range m.conns {
		if c.name != name {
			continue
		}
		for {
			c.mu.Lock()
			ch := c.changed
			c.mu.Unlock()
			st := c.status()
			if cond(st) {
				return nil
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return fmt.Errorf("mcp server %s is %s (%s): %w", name, st.State, st.Error, ctx.Err())
			}
		}
	}
	return fmt.Errorf("no mcp server %s", name)
}

func (c *conn) close() {
	c.mu.Lock()
	if !c.closed {
		close(c.stop)
	}
	c.closed = true
	sess, proc := c.sess, c.proc
	c.sess, c.proc = nil, nil
	c.mu.Unlock()
	c.kill(sess, proc)
}

// session returns the connection to call on, waiting (up to ctx) while
// the server starts or restarts, and the crash notice the call's result
// must carry.
func (c *conn) session(ctx context.Context) (*sdk.ClientSession, chan struct{}, string, error) {
	for {
		c.mu.Lock()
		st, ch, sess, gone, reason := c.state, c.changed, c.sess, c.gone, c.reason
		if st == StateConnected {
			notice := c.notice
			c.notice = ""
			c.mu.Unlock()
			return sess, gone, notice, nil
		}
		c.mu.Unlock()
		switch st {
		case StateFailed, StateRefused:
			return nil, nil, "", fmt.Errorf("MCP server %s is %s: %s", c.name, st, reason)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, nil, "", fmt.Errorf("MCP server %s is still %s (%s) after %s", c.name, st, reason, c.timeout)
		}
	}
}

// call calls tool with the raw JSON arguments within the timeout. A
// crash, a timeout or a refusal is a Result the model reads; only the
// caller's own cancellation is an error.
func (c *conn) call(ctx context.Context, tool string, args json.RawMessage) (*sdk.CallToolResult, string, error) {
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	sess, gone, notice, err := c.session(cctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "", callError{err.Error()}
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	res, err := sess.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err == nil {
		return res, notice, nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, "", ctx.Err()
	case cctx.Err() != nil:
		return nil, "", callError{fmt.Sprintf("MCP server %s did not answer %s within %s; the call was cancelled (the timeout is [mcp.servers.%s] timeout)", c.name, tool, c.timeout, c.name)}
	}
	timer := time.NewTimer(crashGrace)
	defer timer.Stop()
	select {
	case <-gone:
		c.mu.Lock()
		why := c.crash
		c.notice = "" // this result tells the model
		c.mu.Unlock()
		return nil, "", callError{fmt.Sprintf("MCP server %s crashed (%s) during the call to %s, which did not complete; kws is restarting the server: call again", c.name, why, tool)}
	case <-timer.C:
	}
	return nil, "", callError{fmt.Sprintf("MCP server %s: %s: %s", c.name, tool, c.redact(err))}
}

// callError is a failed call the model is told about.
type callError struct{ msg string }

func (e callError) Error() string { return e.msg }

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}
