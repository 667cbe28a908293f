package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/panes/pane"
)

// TestWorkstationFailedCtxGetKeepsTheFocus types .ctx_get of a block the
// vault does not hold: the error shows in the agent pane, which keeps the
// focus, so the same line typed again goes to the input line and none of
// its keys reaches the vault pane (whose i injects the selected block).
func TestWorkstationFailedCtxGetKeepsTheFocus(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	if _, err := Keep(r.w.st.vault, "log", "user", []byte(strings.Repeat("a long build log line\n", 3000))); err != nil {
		t.Fatal(err)
	}
	r.press("Ctrl-b", "q", "2", "R", "Ctrl-b", "q", "0") // the vault pane lists the block
	r.typeText(".ctx_get id=ctx:deadbeef00")
	r.press("Enter")
	r.waitFor("✗ open ctx:deadbeef00: vault: no block with that id")
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindAgent {
		t.Fatalf("a failed open moved the focus to %v", f)
	}
	r.typeText(".ctx_get id=")
	r.waitFor("› .ctx_get id=")
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindAgent {
		t.Fatalf("the focus left the agent pane while typing: %v", f)
	}
	info, err := r.w.swarm.Info("agent-1")
	if err != nil {
		t.Fatal(err)
	}
	if text := r.d.Text(); info.Injected != 0 || strings.Contains(text, "Inject ctx:") {
		t.Fatalf("keys typed in the agent pane reached the vault pane (%d injected):\n%s", info.Injected, text)
	}
}

// TestWorkstationPaletteCtxGetOfAMissingBlockKeepsTheFocus checks the
// palette's ctx_get, like the agent pane's .ctx_get, says a block the
// vault lacks is not there and leaves the focus where it was; a block it
// holds opens in the vault pane.
func TestWorkstationPaletteCtxGetOfAMissingBlockKeepsTheFocus(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	id, err := Keep(r.w.st.vault, "log", "user", []byte("the build log\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.press("Ctrl-b", ":")
	r.typeText("ctx_get ctx:deadbeef00")
	r.press("Enter")
	r.waitFor("open ctx:deadbeef00: vault: no block with that id")
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindAgent {
		t.Fatalf("a failed palette ctx_get moved the focus to %v", f)
	}
	r.press("Ctrl-b", ":")
	r.typeText("ctx_get " + id)
	r.press("Enter")
	r.waitFor("the build log")
	if f := r.d.App.Focused(); f == nil || f.Kind() != pane.KindVault {
		t.Fatalf("the palette's ctx_get of a held block left the focus on %v", f)
	}
}

// TestWorkstationQueuedTurnWaitsForTheAnswer sends a second message while
// the agent answers the first: the answer is not split, the second turn is
// shown queued below it, and its › line comes after the answer ends.
func TestWorkstationQueuedTurnWaitsForTheAnswer(t *testing.T) {
	r := newWSRig(t, 160, 48, true)
	if err := os.WriteFile(filepath.Join(r.ws, "notes.txt"), []byte("once upon a time\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for i := 7; i < 60; i++ {
		rest = append(rest, "w"+strconv.Itoa(i))
	}
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	t.Cleanup(release) // before the server closes, which waits for its handlers
	r.srv.Push(
		providertest.Step{Text: "w0 w1 w2 w3 w4 w5 w6.", ToolCalls: []provider.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"notes.txt"}`}}},
		providertest.Step{Text: strings.Join(rest, " ") + ".", Hold: hold},
		providertest.TextStep("the second answer"),
	)
	r.typeText("tell a story")
	r.press("Enter")
	r.waitFor("w6.")
	r.typeText("second question")
	r.press("Enter")
	r.waitFor("› second question  · queued")
	r.waitFor("1 queued")
	release()
	r.waitFor("the second answer")
	text := r.d.Text()
	at := -1
	for _, want := range []string{"› tell a story", "w0 w1", "w6.", "w7 w8", "w59.", "› second question", "the second answer"} {
		i := strings.Index(text, want)
		if i <= at || strings.Count(text, want) != 1 {
			t.Fatalf("%q is not shown once, after what precedes it:\n%s", want, text)
		}
		at = i
	}
	if strings.Contains(text, "queued") {
		t.Fatalf("the started turn is still shown queued:\n%s", text)
	}
}
