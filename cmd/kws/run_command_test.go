package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/transcript"
)

// TestRunContextAndCompact checks kws run's /context and /compact: they
// answer without calling the model, /context of a fresh agent leaves no
// session behind, /compact needs a session and reports tokens before and
// after, and a resumed session's status is left as it was.
func TestRunContextAndCompact(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t)
	data, ws := t.TempDir(), t.TempDir()
	base := []string{"run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws}
	out, err := run(t, data, nil, append(base, "/context")...)
	if err != nil || !strings.Contains(out, "next prompt of agent: ") || !strings.Contains(out, "tool schemas (") {
		t.Fatalf("/context: %q %v", out, err)
	}
	if list, _ := transcript.List(data); len(list) != 0 {
		t.Fatalf("/context left sessions %+v", list)
	}
	if _, err := run(t, data, nil, append(base, "/compact")...); err == nil || !strings.Contains(err.Error(), "--resume ID") {
		t.Fatalf("/compact without a session: %v", err)
	}
	id := ""
	for i := 0; i < 4; i++ {
		name := fmt.Sprintf("f%d.txt", i)
		os.WriteFile(filepath.Join(ws, name), []byte(strings.Repeat(fmt.Sprintf("data row %d of file %d\n", i, i), 120)), 0o644)
		args, _ := json.Marshal(map[string]any{"path": name, "mode": "full"})
		srv.Push(providertest.ToolStep(provider.ToolCall{ID: fmt.Sprint("c", i), Name: "read_file", Arguments: string(args)}),
			providertest.TextStep("noted"))
		cmdArgs := base
		if id != "" {
			cmdArgs = append(append([]string{}, base...), "--resume", id)
		}
		if out, err := run(t, data, nil, append(cmdArgs, "read "+name)...); err != nil {
			t.Fatalf("turn %d: %q %v", i, out, err)
		}
		id = onlySession(t, data).ID
	}
	calls := len(srv.Requests())
	resumed := append(append([]string{}, base...), "--resume", id)
	out, err = run(t, data, nil, append([]string{"--json"}, append(resumed, "/context")...)...)
	var line struct {
		Type    string
		Context agent.ContextView
	}
	if err != nil || json.Unmarshal([]byte(out), &line) != nil || line.Type != "context" || line.Context.Messages != 1+4*4 || line.Context.Total == 0 {
		t.Fatalf("--json /context: %q %v", out, err)
	}
	out, err = run(t, data, nil, append(resumed, "/compact")...)
	if err != nil || !strings.Contains(out, "compacted: ") || strings.Contains(out, "not compacted") {
		t.Fatalf("/compact: %q %v", out, err)
	}
	if n := len(srv.Requests()); n != calls {
		t.Errorf("the commands made %d requests", n-calls)
	}
	if s := onlySession(t, data); s.Status != "done" {
		t.Errorf("the session's status is %q after the commands, want done", s.Status)
	}
}

// TestRunDietFlags checks that kws run's diet flags are checked as
// config.toml's keys are, before anything runs, and that a valid one
// reaches the session's recorded diet parameters.
func TestRunDietFlags(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t, providertest.TextStep("ok"))
	data, ws := t.TempDir(), t.TempDir()
	base := []string{"run", "--base-url", srv.URL(), "--model", "m", "--workspace", ws}
	for flag, want := range map[string]string{"--recent=-1": "diet.recent = -1", "--compact-at=2": "diet.compact_at = 2",
		"--compact-model=gpt": `diet.compact_model = "gpt"`} {
		if _, err := run(t, data, nil, append(base, flag, "hi")...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", flag, err, want)
		}
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a refused flag let the run call the model")
	}
	if out, err := run(t, data, nil, append(base, "--trigger-tokens", "1234", "--recent", "3", "hi")...); err != nil {
		t.Fatalf("%q %v", out, err)
	}
	s, _, err := transcript.Open(data, onlySession(t, data).ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw, _ := json.Marshal(s.Run().Params)
	var p diet.Params
	if err := json.Unmarshal(raw, &p); err != nil || p.TriggerTokens != 1234 || p.Recent != 3 || p.MinBlockChars != 420 {
		t.Errorf("recorded params %+v; want the flags' trigger 1234 and recent 3 over the preset", p)
	}
}

// TestRunHelpModelClearExit: the commands Claude Code users type answer
// in kws run too: /help lists the built-in commands and the skills,
// /model names the model, /clear and /exit say what does that in kws.
func TestRunHelpModelClearExit(t *testing.T) {
	runEnv(t)
	srv := providertest.New(t)
	for cmd, want := range map[string][]string{
		"/help":  {"/context", "/compact", "/model", "no skills are loaded"},
		"/model": {"talks to the-model", "KWS_MODEL"},
		"/clear": {"Ctrl-r restarts"},
		"/exit":  {"Ctrl-b x closes this pane"},
	} {
		out, err := run(t, t.TempDir(), nil, "run", "--base-url", srv.URL(), "--model", "the-model", "--workspace", t.TempDir(), cmd)
		for _, w := range want {
			if err != nil || !strings.Contains(out, w) {
				t.Errorf("kws run %s: %v\n%s\nwant %q", cmd, err, out, w)
			}
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the commands called the model %d times", n)
	}
}
