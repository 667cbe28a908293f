package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/diet/replay"
	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/vault"
)

// run executes kws with args and stdin against dataDir.
func run(t *testing.T, dataDir string, stdin []byte, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(bytes.NewReader(stdin))
	root.SetArgs(append([]string{"--data-dir", dataDir}, args...))
	err := root.Execute()
	return out.String(), err
}

func TestVaultPutGetRoundTripsBinary(t *testing.T) {
	dir := t.TempDir()
	data := []byte("build log\x00\xff\xfe\x1b[31mred\x1b[0m\r\nend")
	out, err := run(t, dir, data, "vault", "put", "--kind", "log")
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(out)
	if id != vault.IDFor(data) {
		t.Fatalf("put printed %q", out)
	}
	got, err := run(t, dir, nil, "vault", "get", id)
	if err != nil || got != string(data) {
		t.Fatalf("get: %q %v", got, err)
	}
	if _, err := run(t, dir, nil, "vault", "put"); !errors.Is(err, vault.ErrEmpty) {
		t.Fatalf("empty stdin: %v", err)
	}
	_, err = run(t, dir, nil, "vault", "get", "ctx:000000000000")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestVaultLsSearchStats(t *testing.T) {
	dir := t.TempDir()
	log := "collected 40 items\nsecret middle line that only get may show\nFAILED test_auth.py::test_refresh AssertionError\n"
	run(t, dir, []byte(log), "vault", "put", "--kind", "tool:shell")
	run(t, dir, []byte("just some notes about \x1b]0;title\x07 the weather"), "vault", "put")
	ls, err := run(t, dir, nil, "vault", "ls")
	if err != nil || strings.Count(ls, "ctx:") != 2 || strings.Contains(ls, "\x1b") {
		t.Fatalf("ls: %q %v", ls, err)
	}
	js, err := run(t, dir, nil, "--json", "vault", "search", "-k", "1", "assertion")
	if err != nil {
		t.Fatal(err)
	}
	var hit map[string]any
	if json.Unmarshal([]byte(js), &hit) != nil || hit["kind"] != "tool:shell" || strings.Contains(js, "secret middle line") {
		t.Fatalf("search json: %q", js)
	}
	none, err := run(t, dir, nil, "vault", "search", "zzzqqq")
	if err != nil || !strings.HasPrefix(none, `no block matches "zzzqqq" (the vault holds 2 blocks)`) {
		t.Fatalf("empty search: %q %v", none, err)
	}
	st, err := run(t, dir, nil, "--json", "vault", "stats")
	if err != nil || !strings.Contains(st, `"blocks":2`) {
		t.Fatalf("stats: %q %v", st, err)
	}
}

func TestDietReplayEmitsPrompts(t *testing.T) {
	dir, emit := t.TempDir(), t.TempDir()
	files, _ := filepath.Glob("../../testdata/trajectories/ctf-crypto-*.traj")
	args := append([]string{"--json", "diet", "replay", "--trigger-tokens", "2000", "--emit-prompt", emit}, files...)
	out, err := run(t, dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d JSON lines for %d files", len(lines), len(files))
	}
	for _, l := range lines {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"file", "messages", "calls", "naive_tokens_total", "sent_tokens_total",
			"reduction_pct_total", "final_naive_tokens", "final_sent_tokens", "final_reduction_pct",
			"naive_chars_total", "sent_chars_total", "refs", "seen_refs", "cached_prefix_pct", "diet_ms_p50", "diet_ms_max",
			"cost_tokens", "naive_cost_tokens", "cost_pct_of_naive", "peak_tokens", "epochs"} {
			if _, ok := row[k]; !ok {
				t.Fatalf("row lacks %s: %s", k, l)
			}
		}
		name := strings.TrimSuffix(row["file"].(string), ".traj")
		raw, err := os.ReadFile(filepath.Join(emit, name+".prompt.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sent []struct {
			I int `json:"i"`
			diet.Message
		}
		if err := json.Unmarshal(raw, &sent); err != nil || len(sent) == 0 {
			t.Fatalf("emitted prompt for %s: %d entries, %v", name, len(sent), err)
		}
		// The messages not sent were elided into the run before them.
		prompt := make([]diet.Message, int(row["messages"].(float64)))
		for i := range prompt {
			prompt[i].Elided = true
		}
		for _, m := range sent {
			prompt[m.I] = m.Message
		}
		conv, err := replay.Load(filepath.Join("../../testdata/trajectories", name+".traj"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := vault.OpenDir(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = replay.Verify(v, conv.Messages, prompt)
		v.Close()
		if err != nil {
			t.Fatalf("emitted prompt %s: %v", name, err)
		}
	}
	table, err := run(t, dir, nil, append([]string{"diet", "replay", "--mode", "safe"}, files...)...)
	if err != nil || !strings.Contains(table, "TOTAL") || !strings.Contains(table, "reduction_pct_total") {
		t.Fatalf("table: %q %v", table, err)
	}
	table, err = run(t, dir, nil, append([]string{"diet", "replay", "--swarm", "--cache-discount", "0.25", "--concat", "crypto"}, files...)...)
	if err != nil || !strings.Contains(table, "cost_pct_of_naive") || !strings.Contains(table, "epochs") || strings.Count(table, "\n") != 2 {
		t.Fatalf("swarm table: %q %v", table, err)
	}
	if _, err := run(t, dir, nil, "diet", "replay", "--cache-discount", "2", files[0]); err == nil {
		t.Fatal("cache discount 2 accepted")
	}
	if _, err := run(t, dir, nil, "diet", "replay", "--mode", "nope", files[0]); err == nil {
		t.Fatal("unknown mode accepted")
	}
	if _, err := run(t, dir, nil, "diet", "replay", "missing.traj"); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestOverview(t *testing.T) {
	out, err := run(t, t.TempDir(), nil)
	if err != nil || !strings.Contains(out, "vault") || !strings.Contains(out, "0 blocks") {
		t.Fatalf("overview: %q %v", out, err)
	}
}

// TestVerbsNeedASession: a tmux verb run outside a kws session says
// where it works instead of doing nothing.
func TestVerbsNeedASession(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	for _, args := range [][]string{{"list-panes"}, {"send-keys", "ls", "Enter"}, {"capture-pane", "-p"}, {"split-window", "-h"}} {
		_, err := run(t, t.TempDir(), nil, args...)
		if err == nil || !strings.Contains(err.Error(), args[0]+" works on a running session") {
			t.Errorf("kws %v outside a session: %v", args, err)
		}
	}
}

// TestUnknownFlagSaysWhereTheFlagsAre: an unknown flag's error names the
// help that lists the command's flags (issue 26, item 13).
func TestUnknownFlagSaysWhereTheFlagsAre(t *testing.T) {
	_, err := run(t, t.TempDir(), nil, "vault", "ls", "--bogus")
	if err == nil || !strings.Contains(err.Error(), "unknown flag: --bogus") || !strings.Contains(err.Error(), "kws vault ls --help lists its flags") {
		t.Fatalf("unknown flag: %v", err)
	}
}

// TestSidecarFlagOnlyWhereItIsUsed: --sidecar-model is in the help of the
// commands that load the sidecar model or start the server that does, and
// not in kws ls's or kws kill-server's (issue 26, item 13).
func TestSidecarFlagOnlyWhereItIsUsed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		has  bool
	}{
		{[]string{"--help"}, true}, {[]string{"new", "--help"}, true}, {[]string{"run", "--help"}, true},
		{[]string{"sidecar", "info", "--help"}, true}, {[]string{"memory", "search", "--help"}, true},
		{[]string{"ls", "--help"}, false}, {[]string{"kill-server", "--help"}, false}, {[]string{"vault", "ls", "--help"}, false},
	} {
		out, err := run(t, t.TempDir(), nil, tc.args...)
		if err != nil {
			t.Fatalf("kws %v: %v", tc.args, err)
		}
		if has := strings.Contains(out, "--sidecar-model"); has != tc.has {
			t.Errorf("kws %v lists --sidecar-model: %v, want %v", tc.args, has, tc.has)
		}
	}
}

// TestLsShowsRoles: kws ls names each agent's role beside it (issue 26,
// item 13), escapes and all stripped from it.
func TestLsShowsRoles(t *testing.T) {
	var out strings.Builder
	printSessions(&out, []server.SessionInfo{{Name: "ws", Workspace: "/src/ws", Agents: []server.AgentState{
		{Name: "agent-1", State: "idle"},
		{Name: "agent-2", State: "thinking", Role: "tester\x1b[2J"},
		{Name: "agent-3", State: "approval", Role: "coder", Waiting: true},
	}}})
	got := out.String()
	for _, want := range []string{"  agent-1    idle\n", "  agent-2 (tester) thinking\n", "  ‼ agent-3 (coder) waits for approval\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("kws ls printed:\n%s\nwant a line %q", got, want)
		}
	}
}
