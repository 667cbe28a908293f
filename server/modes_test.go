package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/server/wire"
)

// refused checks that hello is answered with a failure saying want.
func (h *harness) refused(hello wire.Hello, want string) {
	h.t.Helper()
	if _, e := h.request(hello); e.Code == 0 || !strings.Contains(e.Message, want) {
		h.t.Fatalf("%+v got %+v, want a failure saying %q", hello, e, want)
	}
}

// names is the sessions' names.
func names(list []SessionInfo) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}

// waitEnded waits for the session to be ended.
func (f *fakeSession) waitEnded(t *testing.T) {
	t.Helper()
	select {
	case <-f.ended:
	case <-time.After(waitLimit):
		t.Fatalf("session %s was not ended", f.spec.Name)
	}
}

// journals is the journal files left in the data dir.
func (h *harness) journals() []string {
	entries, _ := os.ReadDir(h.d.journalDir())
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestAttachModes checks how attach, new and default find their session,
// and ls, kill-session and kill-server.
func TestAttachModes(t *testing.T) {
	h := newHarness(t, nil)
	h.refused(wire.Hello{Op: "attach", Mode: "attach"}, "no sessions")
	h.refused(wire.Hello{Op: "attach", Mode: "attach", Session: "nope"}, "can't find session: nope")
	h.refused(wire.Hello{Op: "attach", Mode: "new", Session: "a/b", Workspace: "/w/app"}, "session name")
	h.refused(wire.Hello{Op: "attach", Mode: "new", Session: "../x", Workspace: "/w/app"}, "session name")

	size := wire.Size{Cols: 80, Rows: 24}
	a, at := h.attach(wire.Hello{Workspace: "/w/app", Size: size})
	app := h.session()
	_, again := h.attach(wire.Hello{Mode: "default", Workspace: "/w/app", Size: size})
	if at.Session != "app" || again.Session != "app" {
		t.Fatalf("default mode attached to %q, then %q", at.Session, again.Session)
	}
	h.refused(wire.Hello{Op: "attach", Mode: "new", Session: "app", Workspace: "/w/other"}, "duplicate session: app")
	_, second := h.attach(wire.Hello{Mode: "new", Workspace: "/w/app", Size: size})
	app2 := h.session()
	_, other := h.attach(wire.Hello{Mode: "new", Session: "other", Workspace: "/x", Args: []string{"--theme", "dark"}, Size: size})
	f := h.session()
	if second.Session != "app-2" || other.Session != "other" || !slices.Equal(f.spec.Args, []string{"--theme", "dark"}) {
		t.Fatalf("new sessions %q, %q with args %q", second.Session, other.Session, f.spec.Args)
	}
	_, last := h.attach(wire.Hello{Mode: "attach", Size: size})
	if last.Session != "other" {
		t.Fatalf("attach without a name went to %q, want the latest, other", last.Session)
	}
	select {
	case f := <-h.created:
		t.Fatalf("an extra session %s was created", f.spec.Name)
	default:
	}

	list := h.ls()
	if got := names(list); !slices.Equal(got, []string{"app", "app-2", "other"}) {
		t.Fatalf("ls: %q", got)
	}
	if list[0].Clients != 2 || list[0].Workspace != "/w/app" || !slices.Equal(list[0].Agents, h.agents) || !list[0].Agents[1].Waiting {
		t.Fatalf("ls: %+v", list[0])
	}

	h.refused(wire.Hello{Op: "kill-session", Session: "nope"}, "can't find session: nope")
	if _, e := h.request(wire.Hello{Op: "kill-session", Session: "app-2"}); e.Code != 0 {
		t.Fatalf("kill-session: %+v", e)
	}
	app2.waitEnded(t)
	if got := names(h.ls()); !slices.Equal(got, []string{"app", "other"}) {
		t.Fatalf("ls after kill-session: %q", got)
	}
	if got := h.journals(); !slices.Equal(got, []string{"app.json", "other.json"}) {
		t.Fatalf("journals after kill-session: %q", got)
	}

	if _, e := h.request(wire.Hello{Op: "kill-server"}); e.Code != 0 {
		t.Fatalf("kill-server: %+v", e)
	}
	app.waitEnded(t)
	f.waitEnded(t)
	if e := a.waitExit(); e.Code != 0 || !strings.Contains(e.Message, "exited") {
		t.Fatalf("a client of a killed server got %+v", e)
	}
	h.waitServed()
	if got := h.journals(); len(got) != 0 {
		t.Fatalf("kill-server left journals %q", got)
	}
	if _, err := wire.Dial(h.sock); err == nil {
		t.Fatal("the socket still answers after kill-server")
	}
}

// TestJournalsRestore checks that a server stopped without ending its
// sessions leaves their journals, that the next server restores them with
// their saved state, and that a damaged journal is moved aside.
func TestJournalsRestore(t *testing.T) {
	h := newHarness(t, nil)
	size := wire.Size{Cols: 80, Rows: 24}
	h.attach(wire.Hello{Mode: "new", Session: "keep", Workspace: "/w/k", Args: []string{"--shell", "sh"}, Size: size})
	keep := h.session()
	h.attach(wire.Hello{Mode: "new", Session: "gone", Workspace: "/w/g", Size: size})
	gone := h.session()
	state := `{"panes":[{"kind":"agent","name":"agent-3"}]}`
	if err := keep.spec.Save([]byte(state)); err != nil {
		t.Fatal(err)
	}
	if _, e := h.request(wire.Hello{Op: "kill-session", Session: "gone"}); e.Code != 0 {
		t.Fatalf("kill-session: %+v", e)
	}
	gone.waitEnded(t)
	// A session may save once more as it ends; that must not bring a
	// killed session back.
	if err := gone.spec.Save([]byte(`{}`)); err == nil {
		t.Error("a session saved after it ended")
	}
	dir := h.d.journalDir()
	bad := map[string]string{"bad.json": "{not json", "liar.json": `{"name":"keep2","workspace":"/w"}`, "empty.json": `{"name":"empty"}`}
	for name, data := range bad {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.d.Shutdown(false)
	keep.waitEnded(t)
	h.waitServed()

	h.start(nil)
	f := h.session()
	if f.spec.Name != "keep" || f.spec.Workspace != "/w/k" || string(f.spec.Journal) != state || !slices.Equal(f.spec.Args, []string{"--shell", "sh"}) {
		t.Fatalf("restored %q of %q with %q and journal %q", f.spec.Name, f.spec.Workspace, f.spec.Args, f.spec.Journal)
	}
	if got := names(h.ls()); !slices.Equal(got, []string{"keep"}) {
		t.Fatalf("ls after the restore: %q", got)
	}
	for name := range bad {
		if _, err := os.Stat(filepath.Join(dir, name+".damaged")); err != nil {
			t.Errorf("%s was not moved aside: %v", name, err)
		}
	}
	var j journal
	data, err := os.ReadFile(filepath.Join(dir, "keep.json"))
	if err != nil || json.Unmarshal(data, &j) != nil || string(j.State) != state {
		t.Fatalf("the restored session's journal: %q %v", data, err)
	}
}

// TestRenameSession: a session renamed is known by its new name to ls and
// attach -t, its journal moves with it, and the next server restores it
// under that name; a name another session has, or that is not a name, is
// refused and changes nothing.
func TestRenameSession(t *testing.T) {
	h := newHarness(t, nil)
	size := wire.Size{Cols: 80, Rows: 24}
	h.attach(wire.Hello{Mode: "new", Session: "ws", Workspace: "/w/a", Size: size})
	f := h.session()
	h.attach(wire.Hello{Mode: "new", Session: "other", Workspace: "/w/b", Size: size})
	h.session()
	if err := f.spec.Rename("other"); err == nil || !strings.Contains(err.Error(), "duplicate session: other") {
		t.Fatalf("renaming to a taken name: %v", err)
	}
	if err := f.spec.Rename("no/slash"); err == nil {
		t.Fatal("a name with a slash was taken")
	}
	if err := f.spec.Rename("work"); err != nil {
		t.Fatal(err)
	}
	if got := names(h.ls()); !slices.Equal(got, []string{"work", "other"}) && !slices.Equal(got, []string{"other", "work"}) {
		t.Fatalf("ls after the rename: %q", got)
	}
	if got := h.journals(); !slices.Contains(got, "work.json") || slices.Contains(got, "ws.json") {
		t.Fatalf("journals after the rename: %q", got)
	}
	_, a := h.attach(wire.Hello{Mode: "attach", Session: "work", Size: size})
	if a.Session != "work" {
		t.Fatalf("attach -t work reached %q", a.Session)
	}
	if err := f.spec.Save([]byte(`{"kept":1}`)); err != nil {
		t.Fatal(err)
	}
	h.d.Shutdown(false)
	h.waitServed()
	h.start(nil)
	var restored []string
	for range 2 {
		g := h.session()
		restored = append(restored, g.spec.Name)
		if g.spec.Name == "work" && string(g.spec.Journal) != `{"kept":1}` {
			t.Errorf("the renamed session came back with %q", g.spec.Journal)
		}
	}
	if !slices.Contains(restored, "work") || slices.Contains(restored, "ws") {
		t.Fatalf("restored %q", restored)
	}
}
