package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/vault"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/internal/goldentest"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/ui"
)

// wsRig is the whole workstation on a simulation screen, its agents
// talking to a scripted server.
type wsRig struct {
	t   *testing.T
	d   *ui.Driver
	w   *Workstation
	srv *providertest.Server
	ws  string
}

// newWSRig starts the workstation with the default layout; withModel
// configures a scripted server (steps are pushed to r.srv) as the model.
func newWSRig(t *testing.T, width, height int, withModel bool) *wsRig {
	t.Helper()
	return newWSRigWith(t, width, height, withModel, nil)
}

// newWSRigWith is newWSRig with setup run on the new workspace and the
// flags before the workstation opens.
func newWSRigWith(t *testing.T, width, height int, withModel bool, setup func(ws string, f *Flags)) *wsRig {
	t.Helper()
	return newWSRigOpts(t, width, height, withModel, setup, Options{})
}

// newWSRigIn is newWSRigWith on the data dir dataDir.
func newWSRigIn(t *testing.T, width, height int, withModel bool, dataDir string, setup func(ws string, f *Flags)) *wsRig {
	return newWSRigOpts(t, width, height, withModel, setup, Options{DataDir: dataDir})
}

// newWSRigOpts is newWSRigWith opening the workstation with o (its config
// home is the rig's; its data dir too unless o names one).
func newWSRigOpts(t *testing.T, width, height int, withModel bool, setup func(ws string, f *Flags), o Options) *wsRig {
	t.Helper()
	home := t.TempDir()
	for _, k := range []string{"KWS_BASE_URL", "KWS_MODEL", "KWS_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "KWS_THEME"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	r := &wsRig{t: t}
	if withModel {
		r.srv = providertest.New(t)
		t.Setenv("KWS_BASE_URL", r.srv.URL())
		t.Setenv("KWS_MODEL", providertest.Model)
		t.Setenv("KWS_API_KEY", "test-key")
	}
	r.ws = filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(r.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	f := Flags{Workspace: r.ws, Shell: "/bin/sh"}
	if setup != nil {
		setup(r.ws, &f)
	}
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	o.ConfigHome = filepath.Join(home, ".config")
	w, err := OpenWorkstation(o, f)
	if err != nil {
		t.Fatal(err)
	}
	r.ws = w.ws
	w.shell.Env = append(w.shell.Env, "PS1=$ ", "ENV=")
	r.w = w
	var d *ui.Driver
	_, err = w.Start(func(cfg ui.Config) (*ui.App, error) {
		var err error
		d, err = ui.NewDriver(cfg, width, height)
		if err != nil {
			return nil, err
		}
		return d.App, nil
	}, nil, nil)
	if err != nil {
		w.Close()
		t.Fatal(err)
	}
	r.d = d
	t.Cleanup(func() {
		_ = d.Stop()
		w.Close()
	})
	return r
}

func (r *wsRig) press(keys ...string) {
	r.t.Helper()
	if err := r.d.Press(keys...); err != nil {
		r.t.Fatal(err)
	}
}

func (r *wsRig) typeText(s string) {
	r.t.Helper()
	if err := r.d.Type(s); err != nil {
		r.t.Fatal(err)
	}
}

func (r *wsRig) waitFor(s string) {
	r.t.Helper()
	if err := r.d.WaitFor(s); err != nil {
		r.t.Fatal(err)
	}
}

func TestWorkstationDefaultScreenWithoutAModel(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			r := newWSRig(t, size[0], size[1], false)
			r.waitFor("$")
			text := r.d.Text()
			for _, want := range []string{"0 agent-1 · offline", "✗ no model", "KWS_BASE_URL", "1 shell", "2 vault (0 blocks)", "3 stats", "kws │ ws │ no model"} {
				if !strings.Contains(text, want) {
					t.Errorf("%q missing:\n%s", want, text)
				}
			}
			goldentest.Check(t, fmt.Sprintf("workstation_%dx%d", size[0], size[1]), text)
			// The shell works without a model.
			r.press("Ctrl-b", "q", "1")
			r.typeText("echo $((6*7))sh")
			r.press("Enter")
			r.waitFor("42sh")
			// kws typed in the pane finds this workstation's data dir.
			r.typeText(`[ "$KWS_DATA_DIR" = '` + r.w.st.opts.DataDir + `' ] && echo same-dir`)
			r.press("Enter")
			r.waitFor("same-dir")
			// C-b y keeps the screen; the id is shown and the vault pane
			// lists the block at once.
			r.press("Ctrl-b", "y")
			r.waitFor("kept ctx:")
			r.waitFor("2 vault (1 ")
		})
	}
}

func TestWorkstationStreamsAnAnswerAndOpensItsRef(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	id, err := Keep(r.w.st.vault, "log", "user", []byte("exact build log\nFAIL TestFoo\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.srv.Push(providertest.Step{Text: "The failure is in " + id + ", see there.", ChunkSize: 5})
	r.typeText("where is the failure?")
	r.press("Enter")
	r.waitFor("see there.")
	r.press("Tab", "Enter")
	r.waitFor("FAIL TestFoo")
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindVault {
		t.Fatalf("the vault pane is not focused after opening the ref")
	}
	// Back in the agent pane, typing .ctx_get opens the same block.
	r.press("q", "Ctrl-b", "q", "0")
	r.typeText(".ctx_get id=" + id)
	r.press("Enter")
	r.waitFor("FAIL TestFoo")
}

func TestWorkstationApprovesAndDeniesToolCalls(t *testing.T) {
	for _, tc := range []struct {
		key, want string
		written   bool
	}{{"y", "wrote it", true}, {"n", "not allowed", false}} {
		t.Run(tc.key, func(t *testing.T) {
			r := newWSRig(t, 160, 48, true)
			r.srv.Push(
				providertest.ToolStep(provider.ToolCall{ID: "call-1", Name: "write_file", Arguments: `{"path":"out.txt","content":"hello\n"}`}),
				providertest.TextStep(tc.want),
			)
			r.typeText("write out.txt")
			r.press("Enter")
			r.waitFor("agent-1 wants to run write_file")
			r.waitFor("+hello")
			r.waitFor("‼ approval")
			r.waitFor("y  allow once") // the dialog's keys are armed
			r.press(tc.key)
			r.waitFor(tc.want)
			_, err := os.Stat(filepath.Join(r.ws, "out.txt"))
			if written := err == nil; written != tc.written {
				t.Fatalf("out.txt written: %v, want %v", written, tc.written)
			}
			if !tc.written {
				r.waitFor("denied")
			}
			r.waitFor("agent-1 ○ idle")
		})
	}
}

func TestWorkstationVaultPaneOpensAndInjectsABlock(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	id, err := Keep(r.w.st.vault, "log", "user", []byte("panic: nil map write\ngoroutine 1 [running]\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.press("Ctrl-b", "q", "2", "R") // the vault pane, refreshed
	r.waitFor(id[:12])
	r.press("Enter")
	r.waitFor("goroutine 1 [running]")
	r.press("i")
	r.waitFor("(y/n)") // inject asks first, naming the block's size
	r.waitFor(" tokens, ")
	r.press("y")
	r.waitFor("rides the next turn")
	r.srv.Push(providertest.TextStep("seen the panic"))
	r.press("Ctrl-b", "q", "0")
	r.typeText("what broke?")
	r.press("Enter")
	r.waitFor("seen the panic")
	reqs := r.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	last := reqs[len(reqs)-1]
	body := fmt.Sprint(last.Messages)
	if !strings.Contains(body, "panic: nil map write") || !strings.Contains(body, "what broke?") {
		t.Fatalf("the injected block is not in the turn: %s", body)
	}
}

func TestWorkstationRemembersAndRecalls(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.srv.Push(providertest.TextStep("noted"), providertest.TextStep("with make release"))
	r.typeText("Remember that deploys always go through make release.")
	r.press("Enter")
	r.waitFor("noted")
	r.press("Ctrl-b", "m")
	// The memory pane's row, by its kind and scope columns: the agent
	// pane shows the turn's words as well.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(r.d.Text(), "remember   project") {
		if time.Now().After(deadline) {
			t.Fatalf("the memory pane never listed the memory:\n%s", r.d.Text())
		}
		r.press("R")
	}
	// Enter on the memory opens its provenance: the exact turn, kept in
	// the vault.
	turn := "Remember that deploys always go through make release."
	r.press("Enter")
	r.waitFor("vault: " + vault.IDFor([]byte(turn)))
	r.press("Ctrl-b", "q", "0")
	r.typeText("how do deploys work here?")
	r.press("Enter")
	r.waitFor("with make release")
	reqs := r.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if turn := last[len(last)-1].Content; !strings.Contains(turn, "<memory") || !strings.Contains(turn, "make release") {
		t.Fatalf("the second turn carries no memory hint: %q", turn)
	}
}

func TestWorkstationSwarmBoardAndMessages(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.srv.Push(
		providertest.ToolStep(provider.ToolCall{ID: "c1", Name: "todo", Arguments: `{"action":"add","text":"fix the login flow"}`}),
		providertest.ToolStep(provider.ToolCall{ID: "c2", Name: "todo", Arguments: `{"action":"claim","id":1}`}),
		providertest.TextStep("claimed t1"),
		providertest.TextStep("agent-2 here"), providertest.TextStep("agent-3 here"),
		providertest.TextStep("got your message"))
	r.typeText("plan the work")
	r.press("Enter")
	r.waitFor("claimed t1")
	r.press("Ctrl-b", ":")
	r.typeText(`spawn 2 "say hello"`)
	r.press("Enter")
	r.waitFor("agent-3 here")
	r.waitFor("agent-2 ○ idle")
	r.waitFor("agent-3 ○ idle")
	r.press("Ctrl-b", "b")
	r.waitFor("fix the login flow")
	text := r.d.Text()
	if !strings.Contains(text, "agent-1") || !strings.Contains(text, "claimed") {
		t.Fatalf("the board does not show who claimed t1:\n%s", text)
	}
	// A message to t1's owner from the board arrives as a marked turn.
	r.press("m")
	r.typeText("please hurry")
	r.press("Enter")
	r.waitFor("got your message")
	reqs := r.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if turn := last[len(last)-1].Content; !strings.Contains(turn, "[message from the user]") || !strings.Contains(turn, "please hurry") {
		t.Fatalf("the message arrived as %q", turn)
	}
}

func TestWorkstationSpawnsAnAgentWithARole(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.srv.Push(providertest.TextStep("planning"))
	r.press("Ctrl-b", "a")
	r.waitFor("role (coder, planner, reviewer, tester) and task")
	r.typeText("planner split the login work")
	r.press("Enter")
	r.waitFor("agent-2 (planner)")
	r.waitFor("planning")
	sys := r.srv.Requests()[0].Messages[0].Content
	if !strings.Contains(sys, "# Your role: planner") || !strings.Contains(sys, "shared task board") {
		t.Fatalf("the planner's system prompt lacks its role: %q", sys[max(0, len(sys)-600):])
	}
}

// TestWorkstationAgentPaneRunsWorkstationCommands checks that an agent
// pane's /NAME runs the command language's NAME on the screen, shows what
// it prints in the transcript, and sends the model nothing; /help and a
// /line naming nothing still go where they went.
func TestWorkstationAgentPaneRunsWorkstationCommands(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	r.srv.Push(providertest.TextStep("heard you"))
	r.typeText("/rename-window build")
	r.press("Enter")
	r.typeText("/list-windows")
	r.press("Enter")
	r.waitFor("0: build*")
	r.typeText("/new-window -n logs")
	r.press("Enter")
	r.waitFor("0:build- 1:logs*")
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindShell {
		t.Fatalf("new-window from the agent pane did not show the new window's shell")
	}
	r.press("Ctrl-b", "0")
	r.typeText("/select-layout nosuch")
	r.press("Enter")
	r.waitFor("/select-layout: ")
	r.typeText("/nosuchthing")
	r.press("Enter")
	r.waitFor("/nosuchthing")
	if n := len(r.srv.Requests()); n != 0 {
		t.Fatalf("the workstation's commands reached the model: %d requests", n)
	}
	// "//" still sends the line as text.
	r.typeText("//list-windows please")
	r.press("Enter")
	r.waitFor("heard you")
	reqs := r.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, "/list-windows please") {
		t.Fatalf("the model was sent %q", got)
	}
}
