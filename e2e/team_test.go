package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/vault"
)

// teamHost is one kws data dir of a team test: a host of its own.
type teamHost struct {
	t      *testing.T
	kws    string
	data   string
	env    []string
	server *exec.Cmd
	exited chan error
	// dir is where its commands run; "" is the test's directory.
	dir string
}

func (h *teamHost) run(stdin string, args ...string) (string, error) {
	cmd := exec.Command(h.kws, append([]string{"--data-dir", h.data}, args...)...)
	cmd.Env, cmd.Dir = h.env, h.dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (h *teamHost) must(stdin string, args ...string) string {
	h.t.Helper()
	out, err := h.run(stdin, args...)
	if err != nil {
		h.t.Fatalf("kws --data-dir %s %s: %v\n%s", h.data, strings.Join(args, " "), err, out)
	}
	return out
}

// start runs the data dir's server, as kws does, in its own session.
func (h *teamHost) start() {
	h.t.Helper()
	h.server = exec.Command(filepath.Join(filepath.Dir(h.kws), "kws-core"), "--data-dir", h.data, "server")
	h.server.Env = h.env
	h.server.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := h.server.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.exited = make(chan error, 1)
	go func(c *exec.Cmd, exited chan error) { exited <- c.Wait() }(h.server, h.exited)
	waitUntil(h.t, "the server of "+h.data, func() bool {
		_, err := h.run("", "ls")
		return err == nil
	})
}

// kill9 kills the server as a crash would.
func (h *teamHost) kill9() {
	_ = h.server.Process.Signal(syscall.SIGKILL)
	<-h.exited
	h.server = nil
}

func (h *teamHost) stop() {
	if h.server == nil {
		return
	}
	if _, err := h.run("", "kill-server"); err != nil {
		_ = h.server.Process.Kill()
	}
	<-h.exited
	h.server = nil
}

// status is kws team status --json.
type teamStatus struct {
	Ready   bool `json:"ready"`
	Running bool `json:"running"`
	Members []struct {
		Name    string `json:"name"`
		Current bool   `json:"current"`
		Offline bool   `json:"offline"`
	} `json:"members"`
	Agents []struct {
		Member, Agent string
	} `json:"agents"`
}

func (h *teamHost) status() teamStatus {
	h.t.Helper()
	var st teamStatus
	if err := json.Unmarshal([]byte(h.must("", "team", "status", "--json")), &st); err != nil {
		h.t.Fatal(err)
	}
	return st
}

// allCurrent reports whether h sees n members, all current.
func (h *teamHost) allCurrent(n int) bool {
	st := h.status()
	current := 0
	for _, m := range st.Members {
		if m.Current && !m.Offline {
			current++
		}
	}
	return st.Ready && current == n
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestTeamOfThreeServers makes three kws data dirs one team with kws
// team init and join, each served by its own kws server on loopback: a
// block put on a is answered to a ctx_get of an agent on c (the exact
// bytes reach the model's next request); a task an agent on c claimed
// is refused to an agent on a, naming c's agent; kws ls on a lists c's
// agents; b, killed with -9, catches up
// on the blocks and project memories stored meanwhile when it restarts;
// a global memory stays on its host; a data dir with a forged key never
// becomes a member.
func TestTeamOfThreeServers(t *testing.T) {
	root := t.TempDir()
	kws := buildKws(t, root)
	block := "--- FAIL: TestParse (0.00s)\n    parse_test.go:42: got 3, want 4\nexact evidence from host a\n"
	blockID := vault.IDFor([]byte(block))
	todo := func(id, args string) providertest.Step {
		return providertest.Step{ToolCalls: []provider.ToolCall{{ID: id, Name: "todo", Arguments: args}}}
	}
	srv := providertest.New(t,
		providertest.Step{ToolCalls: []provider.ToolCall{{ID: "c1", Name: "ctx_get", Arguments: fmt.Sprintf(`{"id":%q}`, blockID)}}},
		providertest.Step{Text: "done"},
		todo("a1", `{"action":"add","text":"fix the parser"}`), providertest.Step{Text: "added"},
		todo("c2", `{"action":"claim","id":1}`), providertest.Step{Text: "claimed"},
		todo("a2", `{"action":"claim","id":1}`), providertest.Step{Text: "taken already"},
	)
	env := withoutTMUX(os.Environ())
	for _, d := range []string{"home", "config"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env = append(env, "HOME="+filepath.Join(root, "home"), "XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"KWS_BASE_URL="+srv.URL(), "KWS_MODEL="+providertest.Model, "KWS_API_KEY=e2e-key")
	hosts := map[string]*teamHost{}
	for _, name := range []string{"a", "b", "c", "x"} {
		hosts[name] = &teamHost{t: t, kws: kws, data: filepath.Join(root, "data-"+name), env: env}
		if err := os.Mkdir(hosts[name].data, 0o700); err != nil {
			t.Fatal(err)
		}
		h := hosts[name]
		t.Cleanup(h.stop)
	}
	a, b, c, x := hosts["a"], hosts["b"], hosts["c"], hosts["x"]

	out := a.must("", "team", "init", "--name", "a", "--listen", freePort(t), "--lease", "2s")
	var join string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "kws" && f[1] == "team" && f[2] == "join" {
			join = f[3]
		}
	}
	if join == "" {
		t.Fatalf("kws team init printed no join line:\n%s", out)
	}
	if _, err := a.run("", "team", "init", "--listen", "0.0.0.0:7999"); err == nil {
		t.Fatal("a second init, off loopback without --public, was accepted")
	}
	for _, h := range []struct {
		h    *teamHost
		name string
	}{{b, "b"}, {c, "c"}} {
		h.h.must("", "team", "join", join, "--name", h.name, "--listen", freePort(t))
	}
	// x forges a token: the right address, another key.
	_, addr, _ := strings.Cut(join, "@")
	x.must("", "team", "join", strings.Repeat("A", 43)+"@"+addr, "--name", "x", "--listen", freePort(t))

	for _, h := range []*teamHost{a, b, c, x} {
		h.start()
	}
	for _, h := range []*teamHost{a, b, c} {
		waitLong(t, h.data+" sees three current members", func() bool { return h.allCurrent(3) })
	}

	// kws run joins a session of its workspace: c gets one, in a terminal.
	ws := filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	var exports strings.Builder
	for _, e := range env {
		if k, _, _ := strings.Cut(e, "="); k == "HOME" || k == "XDG_CONFIG_HOME" || strings.HasPrefix(k, "KWS_") {
			exports.WriteString("export " + shq(e) + "\n")
		}
	}
	conf := writeScript(t, filepath.Join(root, "tmux.conf"), "")
	for _, h := range []*teamHost{a, c} {
		dir := filepath.Join(root, "term-"+filepath.Base(h.data))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		launch := writeScript(t, filepath.Join(dir, "launch.sh"), exports.String()+"cd "+shq(ws)+"\nexec "+shq(kws)+" --data-dir "+shq(h.data)+" new --workspace "+shq(ws)+"\n")
		tm := startTerm(t, dir, conf, launch)
		tm.waitFor("the session of "+h.data, func(sc string) bool { return strings.Contains(sc, "┌ 0 agent-1") })
	}
	// Project memories are the workspace's: the commands run there.
	for _, h := range []*teamHost{a, b, c} {
		h.dir = ws
	}

	step(t, "a block put on a reaches an agent on c", func(t *testing.T) {
		if id := strings.TrimSpace(a.must(block, "vault", "put", "--kind", "tool")); id != blockID {
			t.Fatalf("kws vault put printed %q, want %s", id, blockID)
		}
		c.must("", "run", "--yes", "look at the failing test's output")
		reqs := srv.Requests()
		if len(reqs) < 2 {
			t.Fatalf("the model got %d requests", len(reqs))
		}
		if body := string(reqs[1].Body); !strings.Contains(body, jsonText(block)) {
			t.Fatalf("the request after ctx_get lacks the block's exact text:\n%s", body)
		}
	})

	step(t, "the board is the team's: a claim on c holds against a", func(t *testing.T) {
		a.must("", "run", "--yes", "put the parser on the board")
		c.must("", "run", "--yes", "take the parser task")
		if got := lastToolResult(t, srv.Requests()[5].Body); !strings.Contains(got, "fix the parser (claimed by you)") {
			t.Fatalf("c's claim answered:\n%s", got)
		}
		a.must("", "run", "--yes", "take the parser task too")
		if got := lastToolResult(t, srv.Requests()[7].Body); !regexp.MustCompile(`is claimed by agent-\d+@c`).MatchString(got) {
			t.Fatalf("a's claim of c's task was not refused naming c's agent:\n%s", got)
		}
	})

	step(t, "kws ls on a shows c's agents", func(t *testing.T) {
		waitLong(t, "a's kws ls lists c's session", func() bool {
			out, err := a.run("", "ls")
			return err == nil && strings.Contains(out, "@c: on team member c") && strings.Contains(out, "agent-1@c")
		})
	})

	step(t, "a project memory saved on a reaches c; a global one stays", func(t *testing.T) {
		a.must("", "memory", "add", "--scope", "project", "--workspace", ws, "the parser tests run with make test-parser")
		a.must("", "memory", "add", "--scope", "global", "I prefer tabs on host a")
		waitLong(t, "c lists a's project memory", func() bool {
			out, err := c.run("", "memory", "ls", "--scope", "all")
			return err == nil && strings.Contains(out, "make test-parser")
		})
		if out := c.must("", "memory", "ls", "--scope", "all"); strings.Contains(out, "tabs on host a") {
			t.Fatalf("a's global memory reached c:\n%s", out)
		}
	})

	step(t, "b killed with -9 catches up when it restarts", func(t *testing.T) {
		b.kill9()
		a.must("", "memory", "add", "--scope", "project", "--workspace", ws, "saved while b was down")
		var ids []string
		for i := range 3 {
			ids = append(ids, strings.TrimSpace(a.must(fmt.Sprintf("stored on a while b was down: %d\n", i), "vault", "put", "--kind", "tool")))
		}
		waitLong(t, "c keeps a's blocks", func() bool { return vaultHas(c, ids...) }, a, c)
		b.start()
		waitLong(t, "b is current again", func() bool { return b.allCurrent(3) })
		waitLong(t, "b keeps the blocks stored while it was down", func() bool { return vaultHas(b, ids...) })
		waitLong(t, "b has the memory saved while it was down", func() bool {
			out, err := b.run("", "memory", "ls", "--scope", "all")
			return err == nil && strings.Contains(out, "saved while b was down")
		}, a, b)
	})

	step(t, "a member with a forged key stays outside", func(t *testing.T) {
		st := x.status()
		if st.Ready {
			t.Fatalf("x, with a forged key, is in the team: %+v", st)
		}
		for _, m := range a.status().Members {
			if m.Name == "x" {
				t.Fatalf("the team lists x: %+v", a.status().Members)
			}
		}
		if vaultHas(x, blockID) {
			t.Fatal("x holds the team's block")
		}
	})
}

// teamWait bounds the waits for the team: a cluster that starts cold
// elects its leaders after several seconds (Raft's election timeouts),
// more on a loaded machine.
const teamWait = 2 * time.Minute

// waitLong is waitUntil for the team's states, with the team's log of
// each host given on failure.
func waitLong(t *testing.T, what string, cond func() bool, logs ...*teamHost) {
	t.Helper()
	var state []func() string
	for _, h := range logs {
		state = append(state, h.teamLog)
	}
	waitUntilIn(t, teamWait, what, cond, state...)
}

// teamLog is what h's server logged of its team: its warnings and the
// team's own lines.
func (h *teamHost) teamLog() string {
	data, _ := os.ReadFile(filepath.Join(h.data, "logs", "server.log"))
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "team") && (strings.Contains(l, "WARN") || strings.Contains(l, "ERROR") || strings.Contains(l, "leader")) {
			out = append(out, l)
		}
	}
	return h.data + ":\n" + strings.Join(out, "\n")
}

// vaultHas reports whether h's vault itself lists every id.
func vaultHas(h *teamHost, ids ...string) bool {
	out, err := h.run("", "vault", "ls")
	if err != nil {
		return false
	}
	for _, id := range ids {
		if !strings.Contains(out, id) {
			return false
		}
	}
	return true
}

// lastToolResult is the content of the last tool message of a request.
func lastToolResult(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "tool" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
