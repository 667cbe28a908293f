package panes

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
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
	inputMessage            // a message to an agent or to the whole team
)

// lineKind is what a row of the board pane shows.
type lineKind int

const (
	lineNote  lineKind = iota // a hint or a heading; it cannot be selected
	lineTask                  // a task
	lineAgent                 // an agent of the team, or the whole team
)

// boardLine is one row below the pane's header.
type boardLine struct {
	kind  lineKind
	task  *vault.Task // lineTask
	agent swarm.Info  // lineAgent; the name swarm.Everyone is the whole team
	text  string      // lineNote
}

// BoardPane shows the swarm's shared task board: every task grouped by
// status (claimed, open, done) with its owner and age, then the team: each
// agent with its role, its state and the tasks it holds. The user adds
// tasks, marks them done and writes to any agent, to the one holding a
// task, or to the whole team; the user never claims a task.
type BoardPane struct {
	*tview.Box
	env     *pane.Env
	board   TaskBoard
	team    func() []swarm.Info
	message func(agent, text string) error
	keys    *keymap.Table

	tasks      []vault.Task
	agents     []swarm.Info
	teamStale  bool // an agent event came since the team was listed
	listCursor      // the selected row and the first row shown, in lines()
	input      *tview.InputField
	typing     boardInput
	target     string      // the agent a message goes to
	about      *vault.Task // the task a message is about, if any
	err        error
}

// NewBoardPane returns the board pane of board. team lists the agents (a
// nil team shows none); message delivers the user's text to an agent or to
// swarm.Everyone (the mailbox), and a nil message makes the message key
// say that messages are not available.
func NewBoardPane(env *pane.Env, board TaskBoard, team func() []swarm.Info, message func(agent, text string) error) *BoardPane {
	p := &BoardPane{Box: tview.NewBox(), env: env, board: board, team: team, message: message}
	p.input = tview.NewInputField()
	p.input.SetFieldStyle(env.Theme.Selection.TCell()).SetLabelStyle(env.Theme.HintKey.TCell())
	p.keys = env.KeyTable("board", boardActions(p)...)
	p.Refresh()
	return p
}

// boardActions are the board pane's keys, run on p.
func boardActions(p *BoardPane) []keymap.Action {
	return []keymap.Action{
		keymap.Bind("down", "j Down", "down", false, func() { p.move(1) }),
		keymap.Bind("up", "k Up", "up", false, func() { p.move(-1) }),
		keymap.Bind("new", "n", "new task", true, p.startTask),
		keymap.Bind("message", "m", "write to the agent, or the task's owner", true, p.startMessage),
		keymap.Bind("done", "d", "mark the task done", true, p.markDone),
		keymap.Bind("refresh", "R Ctrl-r", "refresh", false, p.Refresh),
	}
}

// BoardInfo describes the board pane.
var BoardInfo = pane.Info{Kind: pane.KindBoard, Scopes: []string{"board"}, Key: "b", Action: "board", Help: "show the swarm's task board",
	Keys: func() []*keymap.Table { return []*keymap.Table{keymap.New("board", boardActions(nil)...)} }}

// Kind returns "board".
func (p *BoardPane) Kind() pane.Kind { return pane.KindBoard }

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

// OnEvent reloads the tasks when the board changed, and marks the team
// for reloading at the next draw when an agent came, went or changed
// state: a burst of events costs one reload.
func (p *BoardPane) OnEvent(e swarm.Event) {
	switch e.Type {
	case swarm.EvBoard:
		p.Refresh()
	case swarm.EvSpawned, swarm.EvRemoved, swarm.EvState:
		p.teamStale = true
	}
}

// Refresh reloads the tasks and the team, keeping the selection on the
// same task or agent.
func (p *BoardPane) Refresh() { p.reload(true) }

func (p *BoardPane) reload(tasks bool) {
	var keepTask, keepAgent string
	switch l, ok := p.selected(); {
	case !ok:
	case l.kind == lineTask:
		keepTask = l.task.ID
	case l.kind == lineAgent:
		keepAgent = l.agent.Name
	}
	if tasks {
		p.tasks, p.err = p.board.List()
		sortTasks(p.tasks)
	}
	p.agents, p.teamStale = nil, false
	if p.team != nil {
		p.agents = p.team()
	}
	lines := p.lines()
	p.sel = min(p.sel, len(lines)-1)
	for i, l := range lines {
		if (l.kind == lineTask && l.task.ID == keepTask) || (l.kind == lineAgent && l.agent.Name == keepAgent) {
			p.sel = i
		}
	}
	if p.sel < 0 || lines[p.sel].kind == lineNote {
		p.sel = -1
		p.move(1)
	}
}

// lines returns the rows below the header: the tasks (or a hint when there
// are none), then the team and a row for all of it.
func (p *BoardPane) lines() []boardLine {
	var out []boardLine
	switch {
	case p.err != nil:
		out = append(out, boardLine{text: "board: " + p.err.Error()})
	case len(p.tasks) == 0:
		out = append(out, boardLine{text: "No tasks yet: n adds one; agents add and claim theirs with the todo tool."})
	}
	for i := range p.tasks {
		out = append(out, boardLine{kind: lineTask, task: &p.tasks[i]})
	}
	if len(p.agents) > 0 {
		out = append(out, boardLine{text: ""}, boardLine{text: "team"})
		for _, a := range p.agents {
			out = append(out, boardLine{kind: lineAgent, agent: a})
		}
		if len(p.agents) > 1 {
			out = append(out, boardLine{kind: lineAgent, agent: swarm.Info{Name: swarm.Everyone}})
		}
	}
	return out
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

// move selects the next selectable row n rows down (up when n < 0),
// staying put when there is none.
func (p *BoardPane) move(n int) {
	lines := p.lines()
	step := 1
	if n < 0 {
		step, n = -1, -n
	}
	for ; n > 0; n-- {
		i := p.sel + step
		for i >= 0 && i < len(lines) && lines[i].kind == lineNote {
			i += step
		}
		if i < 0 || i >= len(lines) {
			break
		}
		p.sel = i
	}
	p.sel = max(p.sel, 0)
}

// selected returns the selected row.
func (p *BoardPane) selected() (boardLine, bool) {
	lines := p.lines()
	if p.sel < 0 || p.sel >= len(lines) || lines[p.sel].kind == lineNote {
		return boardLine{}, false
	}
	return lines[p.sel], true
}

// current returns the selected task, or nil when the selection is not a
// task.
func (p *BoardPane) current() *vault.Task {
	if l, ok := p.selected(); ok && l.kind == lineTask {
		return l.task
	}
	return nil
}

func (p *BoardPane) startTask() {
	p.input.SetLabel("new task: ").SetText("")
	p.typing = inputTask
}

// startMessage opens the input line for a message to the selected agent,
// to the whole team, or to the owner of the selected task.
func (p *BoardPane) startMessage() {
	l, ok := p.selected()
	switch {
	case !ok:
		return
	case p.message == nil:
		p.env.Tell("messages to agents are not available here")
		return
	case l.kind == lineTask && l.task.Owner == "":
		p.env.Tell(l.task.ID + " is open: no agent holds it")
		return
	}
	if l.kind == lineTask {
		t := *l.task
		p.target, p.about = t.Owner, &t
		p.input.SetLabel(fmt.Sprintf("to %s about %s: ", t.Owner, t.ID))
	} else {
		p.target, p.about = l.agent.Name, nil
		label := "to " + l.agent.Name + ": "
		if l.agent.Name == swarm.Everyone {
			label = "to every agent: "
		}
		p.input.SetLabel(label)
	}
	p.input.SetText("")
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
		if t := p.about; t != nil {
			text = fmt.Sprintf("About board task %s %q: %s", t.ID, t.Title, text)
		}
		to := p.target
		if to == swarm.Everyone {
			to = "every agent"
		}
		p.report("sent to "+to, p.message(p.target, text))
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
		p.env.Tell(err.Error())
	} else {
		p.env.Tell(done)
	}
	p.Refresh()
}
