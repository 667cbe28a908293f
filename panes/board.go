package panes

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/vault"
)

// TaskBoard is what the board pane needs of the swarm's shared task board;
// *swarm.Board is one. The pane acts as the user, agent "".
type TaskBoard interface {
	List() ([]vault.Task, error)
	Add(by, title, detail string) (vault.Task, error)
	Done(id, agent string) (vault.Task, error)
}

// boardInput is what the pane's input line is typing, if anything.
type boardInput int

const (
	inputNone    boardInput = iota
	inputTask               // the title of a new task
	inputMessage            // a message to the selected task's owner
)

// BoardPane shows the swarm's shared task board: every task grouped by
// status (claimed, open, done) with its owner and age. The user adds tasks,
// marks them done and writes to the agent holding one; the user never
// claims a task.
type BoardPane struct {
	*tview.Box
	env     *Env
	board   TaskBoard
	message func(agent, text string) error
	keys    *keymap.Table

	tasks    []vault.Task
	sel, top int
	input    *tview.InputField
	typing   boardInput
	target   vault.Task // the task a message is about
	err      error
}

// NewBoardPane returns the board pane of board; message delivers the
// user's text to an agent (the mailbox). A nil message makes the message
// key say that messages are not available.
func NewBoardPane(env *Env, board TaskBoard, message func(agent, text string) error) *BoardPane {
	p := &BoardPane{Box: tview.NewBox(), env: env, board: board, message: message}
	p.input = tview.NewInputField()
	p.input.SetFieldStyle(env.Theme.Selection.TCell()).SetLabelStyle(env.Theme.HintKey.TCell())
	p.keys = env.keys("board",
		keymap.Bind("down", "j Down", "down", false, func() { p.move(1) }),
		keymap.Bind("up", "k Up", "up", false, func() { p.move(-1) }),
		keymap.Bind("new", "n", "new task", true, p.startTask),
		keymap.Bind("message", "m", "write to the task's owner", true, p.startMessage),
		keymap.Bind("done", "d", "mark the task done", true, p.markDone),
		keymap.Bind("refresh", "R Ctrl-r", "refresh", false, p.Refresh),
	)
	p.Refresh()
	return p
}

// Kind returns "board".
func (p *BoardPane) Kind() string { return "board" }

// Title counts the tasks by status.
func (p *BoardPane) Title() string {
	n := map[vault.TaskStatus]int{}
	for _, t := range p.tasks {
		n[t.Status]++
	}
	return fmt.Sprintf("board · %d open · %d claimed · %d done", n[vault.TaskOpen], n[vault.TaskClaimed], n[vault.TaskDone])
}

// Keys returns the pane's key table.
func (p *BoardPane) Keys() *keymap.Table { return p.keys }

// Close does nothing: the board outlives the pane.
func (p *BoardPane) Close() error { return nil }

// OnEvent refreshes the pane when the board changed.
func (p *BoardPane) OnEvent(e swarm.Event) {
	if e.Type == swarm.EvBoard {
		p.Refresh()
	}
}

// Refresh reloads the tasks, keeping the selection on the same task.
func (p *BoardPane) Refresh() {
	var keep string
	if t := p.current(); t != nil {
		keep = t.ID
	}
	p.tasks, p.err = p.board.List()
	sortTasks(p.tasks)
	p.sel = min(p.sel, max(0, len(p.tasks)-1))
	for i, t := range p.tasks {
		if t.ID == keep {
			p.sel = i
		}
	}
}

// statusRank orders the groups: work in progress, then open, then done.
var statusRank = map[vault.TaskStatus]int{vault.TaskClaimed: 0, vault.TaskOpen: 1, vault.TaskDone: 2}

// sortTasks groups tasks by status and keeps the order they were added
// within a group.
func sortTasks(ts []vault.Task) {
	slices.SortStableFunc(ts, func(a, b vault.Task) int {
		if c := cmp.Compare(statusRank[a.Status], statusRank[b.Status]); c != 0 {
			return c
		}
		return cmp.Compare(taskNumber(a.ID), taskNumber(b.ID))
	})
}

// taskNumber is the sequence number of a task id ("t12" is 12).
func taskNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "t"))
	return n
}

func (p *BoardPane) move(n int) {
	p.sel = min(max(p.sel+n, 0), max(0, len(p.tasks)-1))
}

func (p *BoardPane) current() *vault.Task {
	if p.sel < 0 || p.sel >= len(p.tasks) {
		return nil
	}
	return &p.tasks[p.sel]
}

func (p *BoardPane) startTask() {
	p.input.SetLabel("new task: ").SetText("")
	p.typing = inputTask
}

// startMessage opens the input line for a message to the owner of the
// selected task.
func (p *BoardPane) startMessage() {
	t := p.current()
	switch {
	case t == nil:
		return
	case p.message == nil:
		p.env.notify("messages to agents are not available here")
		return
	case t.Owner == "":
		p.env.notify(t.ID + " is open: no agent holds it")
		return
	}
	p.target = *t
	p.input.SetLabel(fmt.Sprintf("to %s about %s: ", t.Owner, t.ID)).SetText("")
	p.typing = inputMessage
}

// finishInput adds the typed task or sends the typed message.
func (p *BoardPane) finishInput(save bool) {
	mode, text := p.typing, strings.TrimSpace(p.input.GetText())
	p.typing = inputNone
	if !save || text == "" {
		return
	}
	switch mode {
	case inputTask:
		t, err := p.board.Add("", text, "")
		p.report("added "+t.ID, err)
	case inputMessage:
		t := p.target
		msg := fmt.Sprintf("About board task %s %q: %s", t.ID, t.Title, text)
		p.report("sent to "+t.Owner, p.message(t.Owner, msg))
	}
}

func (p *BoardPane) markDone() {
	t := p.current()
	if t == nil {
		return
	}
	_, err := p.board.Done(t.ID, "")
	p.report(t.ID+" done", err)
}

// report refreshes and tells the user what happened.
func (p *BoardPane) report(done string, err error) {
	if err != nil {
		p.env.notify(err.Error())
	} else {
		p.env.notify(done)
	}
	p.Refresh()
}
