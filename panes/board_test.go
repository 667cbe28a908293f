package panes

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// fakeBoard is a TaskBoard in memory whose changes happen at a fixed time.
type fakeBoard struct {
	tasks []vault.Task
	at    time.Time
}

func (b *fakeBoard) List() ([]vault.Task, error) { return slices.Clone(b.tasks), nil }

func (b *fakeBoard) Add(by, title, detail string) (vault.Task, error) {
	t := vault.Task{ID: fmt.Sprintf("t%d", len(b.tasks)+1), Title: title, Detail: detail,
		Status: vault.TaskOpen, CreatedBy: by, Created: b.at, Updated: b.at}
	b.tasks = append(b.tasks, t)
	return t, nil
}

func (b *fakeBoard) Done(id, agent string) (vault.Task, error) {
	for i := range b.tasks {
		if b.tasks[i].ID == id {
			b.tasks[i].Status, b.tasks[i].Updated = vault.TaskDone, b.at
			return b.tasks[i], nil
		}
	}
	return vault.Task{}, fmt.Errorf("%w: %s", vault.ErrNoTask, id)
}

// boardRig is a board pane on a fakeBoard with a fixed clock.
type boardRig struct {
	p     *BoardPane
	board *fakeBoard
	team  []swarm.Info
	sent  []string
	notes []string
}

func newBoardRig(t *testing.T, withMessages bool) *boardRig {
	t.Helper()
	env := testEnv()
	now := env.Now()
	task := func(id, title, detail string, st vault.TaskStatus, owner string, age time.Duration) vault.Task {
		return vault.Task{ID: id, Title: title, Detail: detail, Status: st, Owner: owner,
			Created: now.Add(-age - time.Hour), Updated: now.Add(-age)}
	}
	r := &boardRig{board: &fakeBoard{at: now, tasks: []vault.Task{
		task("t1", "Write the lexer", "tokens and positions", vault.TaskDone, "agent-1", 3*time.Hour),
		task("t2", "Parse [red]expressions[-] \x1b[2J now", "", vault.TaskClaimed, "agent-2", 4*time.Minute),
		task("t3", "Document the grammar", "", vault.TaskOpen, "", 30*time.Second),
		task("t4", "Run the fuzzer overnight", "found 2 crashes so far", vault.TaskClaimed, "agent-1", 50*time.Hour),
	}}}
	env.Notify = func(m string) { r.notes = append(r.notes, m) }
	var message func(agent, text string) error
	if withMessages {
		message = func(agent, text string) error {
			r.sent = append(r.sent, agent+": "+text)
			return nil
		}
	}
	r.team = []swarm.Info{
		{Name: "agent-1", Role: "coder", State: swarm.StateThinking},
		{Name: "agent-2", Role: "tester", State: swarm.StateApproval},
	}
	r.p = NewBoardPane(env, r.board, func() []swarm.Info { return slices.Clone(r.team) }, message)
	return r
}

func (r *boardRig) key(k tcell.Key, ch rune) {
	r.p.InputHandler()(tcell.NewEventKey(k, ch, 0), func(tview.Primitive) {})
}

func (r *boardRig) typeText(s string) {
	for _, ch := range s {
		r.key(tcell.KeyRune, ch)
	}
}

func TestBoardPaneGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		r := newBoardRig(t, true)
		text := screenText(render(t, r.p, size[0], size[1]))
		if !strings.Contains(text, "[red]expressions[-]") || strings.Contains(text, "\x1b") {
			t.Fatalf("untrusted title not literal:\n%q", text)
		}
		golden(t, fmt.Sprintf("board_%dx%d", size[0], size[1]), text)
	}
}

func TestBoardPaneOrderAndTitle(t *testing.T) {
	r := newBoardRig(t, true)
	var ids []string
	for _, task := range r.p.tasks {
		ids = append(ids, task.ID)
	}
	if got := strings.Join(ids, " "); got != "t2 t4 t3 t1" {
		t.Errorf("order %s, want claimed, open, done: t2 t4 t3 t1", got)
	}
	if got := r.p.Title(); got != "board · 1 open · 2 claimed · 1 done" {
		t.Errorf("Title = %q", got)
	}
	if r.p.Kind() != BoardInfo.Kind || !slices.Contains(BoardInfo.Scopes, "board") {
		t.Errorf("Kind %q, Scopes %v", r.p.Kind(), BoardInfo.Scopes)
	}
}

func TestBoardPaneNewTaskAndDone(t *testing.T) {
	r := newBoardRig(t, true)
	r.typeText("n")
	r.typeText("Review t2")
	if text := screenText(render(t, r.p, 80, 10)); !strings.Contains(text, "new task: Review t2") {
		t.Fatalf("no input line:\n%s", text)
	}
	r.key(tcell.KeyEnter, 0)
	if n := len(r.board.tasks); n != 5 || r.board.tasks[4].Title != "Review t2" || r.board.tasks[4].CreatedBy != "" {
		t.Fatalf("tasks after n: %+v", r.board.tasks)
	}
	r.typeText("n")
	r.typeText("dropped")
	r.key(tcell.KeyEscape, 0)
	if len(r.board.tasks) != 5 {
		t.Errorf("Esc added a task")
	}
	r.typeText("j") // t4, the second claimed task
	r.typeText("d")
	if r.board.tasks[3].Status != vault.TaskDone {
		t.Errorf("d did not finish t4: %+v", r.board.tasks[3])
	}
	if cur := r.p.current(); cur == nil || cur.ID != "t4" {
		t.Errorf("the selection left t4 after the refresh: %+v", cur)
	}
	if !slices.Contains(r.notes, "t4 done") {
		t.Errorf("notes %v", r.notes)
	}
}

func TestBoardPaneMessage(t *testing.T) {
	r := newBoardRig(t, true)
	r.typeText("m")
	r.typeText("please add tests")
	r.key(tcell.KeyEnter, 0)
	want := "agent-2: About board task t2 \"Parse [red]expressions[-] \\x1b[2J now\": please add tests"
	if len(r.sent) != 1 || r.sent[0] != want {
		t.Fatalf("sent %q, want %q", r.sent, want)
	}
	r.typeText("jj") // t3 is open
	r.typeText("m")
	if r.p.typing != inputNone || !strings.Contains(r.notes[len(r.notes)-1], "t3 is open") {
		t.Errorf("m on an open task: notes %v", r.notes)
	}

	none := newBoardRig(t, false)
	none.typeText("m")
	if none.p.typing != inputNone || len(none.notes) != 1 || !strings.Contains(none.notes[0], "not available") {
		t.Errorf("m without a mailbox: notes %v", none.notes)
	}
}

func TestBoardPaneTeam(t *testing.T) {
	r := newBoardRig(t, true)
	text := screenText(render(t, r.p, 100, 14))
	for _, want := range []string{
		"team",
		"      thinking agent-1            coder · holds t4",
		"      approval agent-2            tester · holds t2",
		"               all                every agent",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no row %q in:\n%s", want, text)
		}
	}
	r.typeText("jjjj") // past t4, t3, t1 and the team's heading
	r.typeText("m")
	r.typeText("rebase on main")
	if text := screenText(render(t, r.p, 100, 14)); !strings.Contains(text, "to agent-1: rebase on main") {
		t.Fatalf("no input line for agent-1:\n%s", text)
	}
	r.key(tcell.KeyEnter, 0)
	r.typeText("jj") // agent-2, then the whole team
	r.typeText("jj") // the last row stays selected
	r.typeText("m")
	r.typeText("stand by")
	r.key(tcell.KeyEnter, 0)
	want := []string{"agent-1: rebase on main", "all: stand by"}
	if !slices.Equal(r.sent, want) {
		t.Fatalf("sent %q, want %q", r.sent, want)
	}
	if !slices.Contains(r.notes, "sent to every agent") {
		t.Errorf("notes %v", r.notes)
	}
	before := slices.Clone(r.board.tasks)
	notes := len(r.notes)
	r.typeText("d")
	if !slices.Equal(r.board.tasks, before) || len(r.notes) != notes {
		t.Errorf("d on a team row changed a task: %+v, notes %q", r.board.tasks, r.notes[notes:])
	}

	r.team[1].State = swarm.StateIdle
	r.team = append(r.team, swarm.Info{Name: "agent-3", State: swarm.StateIdle, Paused: true})
	r.p.OnEvent(swarm.Event{Type: swarm.EvSpawned, Agent: "agent-3"})
	if len(r.p.agents) != 2 {
		t.Error("the team was reloaded before the pane was drawn")
	}
	text = screenText(render(t, r.p, 100, 14))
	for _, want := range []string{"      idle     agent-2", "      paused   agent-3"} {
		if !strings.Contains(text, want) {
			t.Errorf("after the event no row %q in:\n%s", want, text)
		}
	}
	if l, ok := r.p.selected(); !ok || l.agent.Name != swarm.Everyone {
		t.Errorf("the selection left the whole team's row: %+v", l)
	}
}

func TestBoardPaneFollowsSwarmBoard(t *testing.T) {
	b := swarm.NewBoard(vaulttest.MustOpen(t), nil)
	p := NewBoardPane(testEnv(), b, nil, nil)
	if _, err := b.For("agent-1").Add("Shared work", ""); err != nil {
		t.Fatal(err)
	}
	p.OnEvent(swarm.Event{Type: swarm.EvState})
	if len(p.tasks) != 0 {
		t.Fatal("refreshed on an unrelated event")
	}
	p.OnEvent(swarm.Event{Type: swarm.EvBoard, Agent: "agent-1", Text: "t1"})
	if len(p.tasks) != 1 || p.tasks[0].Title != "Shared work" {
		t.Fatalf("tasks after EvBoard: %+v", p.tasks)
	}
	if text := screenText(render(t, p, 80, 6)); !strings.Contains(text, "t1    open     -") {
		t.Errorf("row:\n%s", text)
	}
}

func TestBoardPaneKeepsHeadingsInSight(t *testing.T) {
	r := newBoardRig(t, true)
	r.board.tasks = nil
	for i := 3; i <= 6; i++ {
		r.team = append(r.team, swarm.Info{Name: fmt.Sprintf("agent-%d", i), State: swarm.StateIdle})
	}
	r.p.Refresh()
	// A header, 4 rows and the input line: the hint, a blank line and the
	// heading sit above agent-1.
	r.typeText("jjjjjjj") // down to the whole team's row
	render(t, r.p, 100, 6)
	r.typeText("kkkkkkk") // back to agent-1
	text := screenText(render(t, r.p, 100, 6))
	if !strings.Contains(text, "No tasks yet") || !strings.Contains(text, "agent-1") {
		t.Errorf("scrolling back up hid the rows above the first agent:\n%s", text)
	}
}
