package panes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/termsafe"
)

// Agents is what an agent pane needs of the swarm.
type Agents interface {
	Send(name, text string) error
	Cancel(name string) error
	Answer(id string, a permission.Answer) error
	Info(name string) (swarm.Info, error)
	Remove(name string)
	Pause(name string) error
	Resume(name string) error
	Restart(name string) error
	RestartOn(name, session string) error
	Transcript(name string) (swarm.Transcript, error)
	StopJobs(name string) (int, error)
	Commands() []string
}

// Listener is a pane that follows the swarm's events; the application
// delivers them on the UI goroutine.
type Listener interface {
	OnEvent(e swarm.Event)
}

// AgentPane is a conversation with one agent: the transcript streamed as it
// arrives, tool calls as cards, the permission dialog, selectable vault
// refs and the input line.
type AgentPane struct {
	*tview.Box
	env     *pane.Env
	name    string
	agents  Agents
	openRef func(id string) error

	// view is the transcript, cur the assistant entry being streamed in
	// it and cards its tool cards by call id.
	view   transcript
	cur    *entry
	cards  map[string]*entry
	dialog askQueue
	input  *tview.TextArea
	// pasted holds the texts a long paste put in the prompt, by the
	// placeholder the prompt shows for each.
	pasted map[string]string
	keys   *keymap.Table

	// lastKey is the last key press: with the time the dialog in front
	// appeared, it arms the dialog's keys.
	lastKey time.Time
	// branch is the agent's git branch, diff keeps its worktree's diff
	// in the vault; both are unset without --worktree.
	branch string
	diff   func() (id string, err error)
	// seen is the Seq of the last event the transcript shown at
	// construction covers; OnEvent skips those.
	seen uint64
	// pending are the user turns queued and not started, oldest first.
	pending []*pendingTurn
	// restartAsk is set while the input line asks whether to restart
	// the agent (Ctrl-r); the next key answers.
	restartAsk bool
	// hist is the input line's history, which Up and Down walk.
	hist inputHistory
	// jobs are the agent's background jobs as its last EvJobs listed
	// them.
	jobs []tools.JobInfo
	// ticking is set while a redraw is due in a second (the title's
	// elapsed time).
	ticking bool
}

// NewAgentPane returns the pane of agent name. openRef shows a vault block
// exactly (the vault pane); when it fails, the focus stays in the agent
// pane, which shows the error in its transcript. An agent that already has a conversation (one
// that resumed its session) shows it first, through the same entries its
// live events make.
func NewAgentPane(env *pane.Env, name string, agents Agents, openRef func(id string) error) *AgentPane {
	p := &AgentPane{Box: tview.NewBox(), env: env, name: name, agents: agents, openRef: openRef,
		cards: map[string]*entry{}}
	p.view = transcript{env: env, keyName: p.keyName, selected: -1}
	th := env.Theme
	p.input = tview.NewTextArea().SetLabel("› ")
	p.input.SetTextStyle(th.ChatUser.TCell()).SetLabelStyle(th.HintKey.TCell()).
		SetPlaceholderStyle(th.ChatSystem.TCell())
	p.input.SetBackgroundColor(th.Base.Bg)
	p.keys = env.KeyTable("agent", agentActions(p)...)
	if info, err := agents.Info(name); err == nil && info.State == swarm.StateOffline {
		p.view.add(&entry{kind: entryError, text: info.Detail})
	}
	if t, err := agents.Transcript(name); err == nil {
		p.replay(t)
	}
	p.seedHistory()
	return p
}

// agentActions are the agent pane's keys, run on p.
func agentActions(p *AgentPane) []keymap.Action {
	return []keymap.Action{
		keymap.Bind("send", "Enter", "send (or open the selected ref)", true, p.submit),
		keymap.Bind("next-ref", "Tab", "complete a /command, else select the next vault ref", true, p.tab).Short("select the next vault ref"),
		keymap.Bind("prev-ref", "Backtab", "select the previous vault ref", false, func() { p.view.selectRef(-1) }),
		keymap.Bind("open-ref", "Ctrl-o", "open the selected ref's exact block", false, p.openSelected),
		keymap.Bind("expand", "Ctrl-e", "expand or collapse tool cards", true, func() { p.view.toggleCards() }),
		keymap.Bind("raw", "Ctrl-t", "show answers as the model wrote them, or rendered as Markdown", false, p.toggleRaw),
		keymap.Bind("cancel", "Ctrl-c", "stop the running turn", true, p.cancel),
		keymap.Bind("diff", "Ctrl-g", "show the diff of the agent's git worktree", false, p.showDiff),
		keymap.Bind("stop-jobs", "Ctrl-x", "stop the agent's background jobs", false, p.stopJobs),
		keymap.Bind("pause", "Ctrl-p", "pause or resume the agent's queued turns", false, p.togglePause),
		keymap.Bind("rewind", "Ctrl-z", "list the turns and the files each changed, to rewind one (/rewind)", false, func() { p.command(agent.CommandRewind) }),
		keymap.Bind("restart", "Ctrl-r", "restart the agent afresh, asking first (new session, same figures)", false, p.askRestart),
		keymap.Bind("history-prev", "Up", "recall the previous prompt sent (from the prompt's first line)", false, p.historyUp),
		keymap.Bind("history-next", "Down", "recall the next prompt sent, then the draft (from its last line)", false, p.historyDown),
		keymap.Bind("scroll-up", "PgUp", "scroll the transcript up", false, func() { p.view.scrollBy(p.pageRows()) }),
		keymap.Bind("scroll-down", "PgDn", "scroll the transcript down", false, func() { p.view.scrollBy(-p.pageRows()) }),
		keymap.Bind("unselect", "Esc", "clear the ref selection, else stop the running turn", false, p.escape),
	}
}

// AgentInfo describes agent panes; a new one is opened through the new-agent dialog (which asks for a role and a task), so it has no prefix key of its own.
var AgentInfo = pane.Info{Kind: pane.KindAgent, Scopes: []string{"agent"},
	Keys: func() []*keymap.Table { return []*keymap.Table{keymap.New("agent", agentActions(nil)...)} }}

// Kind returns "agent".
func (p *AgentPane) Kind() pane.Kind { return pane.KindAgent }

// Name returns the agent's name.
func (p *AgentPane) Name() string { return p.name }

// Title names the agent and its state.
func (p *AgentPane) Title() string {
	info, err := p.agents.Info(p.name)
	if err != nil {
		return p.name
	}
	t := p.name
	if info.Role != "" {
		t += " (" + termsafe.OneLine(info.Role) + ")"
	}
	t += " · " + string(info.State)
	if info.State == swarm.StateTool && info.Detail != "" {
		t += " " + termsafe.OneLine(info.Detail)
	}
	if !info.TurnStarted.IsZero() {
		// How long the turn has run, ticking while it does, and how to
		// stop it, as Claude Code and Codex show them.
		t += " " + p.env.Time().Sub(info.TurnStarted).Round(time.Second).String() + " · Esc stops"
		p.tick()
	}
	if info.Paused {
		t += " · paused"
	}
	if info.Queued > 0 {
		t += " · " + strconv.Itoa(info.Queued) + " queued"
	}
	if n := runningJobs(p.jobs); n > 0 {
		t += fmt.Sprintf(" · %d job", n)
		if n > 1 {
			t += "s"
		}
	}
	if p.branch != "" {
		t += " · " + p.branch
	}
	return t
}

// Keys returns the pane's key table.
func (p *AgentPane) Keys() *keymap.Table { return p.keys }

// Close stops the agent and removes it from the swarm, as closing a tmux
// pane ends its process; its session stays on disk.
func (p *AgentPane) Close() error {
	p.agents.Remove(p.name)
	return nil
}

// Focus puts the cursor in the input line.
func (p *AgentPane) Focus(delegate func(tview.Primitive)) { delegate(p.input) }

// HasFocus reports whether the pane or its input line has the focus.
func (p *AgentPane) HasFocus() bool { return p.input.HasFocus() || p.Box.HasFocus() }

// SendTask sends text as the user's turn, as typing it would. A turn sent
// while the agent works is shown queued until it starts.
func (p *AgentPane) SendTask(text string) error {
	info, infoErr := p.agents.Info(p.name)
	if err := p.agents.Send(p.name, text); err != nil {
		return err
	}
	p.view.scroll = 0
	p.queueTurn(text, infoErr == nil && startsNow(info))
	return nil
}

// NeedsYou reports whether the agent waits for the user's approval.
func (p *AgentPane) NeedsYou() bool { return p.dialog.waiting() }

// Pending returns the permission requests the pane is showing.
func (p *AgentPane) Pending() []permission.Request {
	return p.dialog.list()
}

// command sends a /command as if typed, saying in the status bar why not
// when it cannot go.
func (p *AgentPane) command(line string) {
	if err := p.SendTask(line); err != nil {
		p.env.Tell(err.Error())
	}
}

// submit sends the input line, or opens the selected ref.
func (p *AgentPane) submit() {
	if _, ok := p.view.selectedRef(); ok {
		p.openSelected()
		return
	}
	text := p.promptText()
	if strings.TrimSpace(text) == "" {
		return
	}
	if id, ok := parseCtxGet(text); ok {
		p.hist.add(text)
		p.setPrompt("")
		p.open(id)
		return
	}
	if strings.HasPrefix(strings.TrimSpace(text), ".ctx_get") {
		p.env.Tell("malformed .ctx_get: write .ctx_get id=ctx:<8 to 16 hex digits>")
		return
	}
	if p.runCommand(text) {
		p.hist.add(text)
		p.setPrompt("")
		return
	}
	if err := p.SendTask(text); err != nil {
		p.env.Tell(err.Error())
		return
	}
	p.hist.add(text)
	p.setPrompt("")
}

// runCommand runs "/NAME ARGS…" as a line of the workstation's command
// language (/split-window -h, /spawn 2 tester "run the suite") when NAME
// is one of its commands and no agent command or skill has that name,
// and reports whether it did. What the command prints, or its error, is
// shown in the transcript; nothing reaches the agent.
func (p *AgentPane) runCommand(text string) bool {
	line, ok := strings.CutPrefix(strings.TrimSpace(text), "/")
	if !ok || strings.HasPrefix(line, "/") || p.env.Commands == nil {
		return false
	}
	name, _, _ := strings.Cut(line, " ")
	if slices.Contains(p.agents.Commands(), "/"+name) || !slices.Contains(p.env.Commands.CommandNames(), name) {
		return false
	}
	out, err := p.env.Commands.RunLine(line)
	p.cur, p.view.scroll = nil, 0
	switch {
	case err != nil:
		p.view.add(&entry{kind: entryError, text: "/" + name + ": " + err.Error()})
	case out != "":
		p.view.add(&entry{kind: entrySystem, text: strings.TrimRight(out, "\n")})
	}
	return true
}

func (p *AgentPane) openSelected() {
	if id, ok := p.view.selectedRef(); ok {
		p.open(id)
	}
}

// open shows block id in the vault pane. A block that cannot be opened
// leaves the focus here and says why in the transcript, so the next keys
// typed still reach this input line.
func (p *AgentPane) open(id string) {
	if err := p.openRef(id); err != nil {
		p.cur, p.view.scroll = nil, 0
		p.view.add(&entry{kind: entryError, text: err.Error()})
	}
}

// toggleRaw switches the answers between rendered Markdown and the text
// as the model wrote it.
func (p *AgentPane) toggleRaw() {
	if p.view.toggleRaw() {
		p.env.Tell("answers as the model wrote them (" + p.keyName("raw") + " renders them)")
	}
}

// armDelay is how long the keyboard must be quiet, after a permission
// dialog appears, before its keys answer it: someone typing the next turn
// when the dialog pops up must not approve a call with a stray "y".
const armDelay = 600 * time.Millisecond

// armed reports whether the dialog's keys answer it now.
func (p *AgentPane) armed() bool {
	if !p.dialog.waiting() {
		return false
	}
	since := p.dialog.at
	if p.lastKey.After(since) {
		since = p.lastKey
	}
	return p.env.Time().Sub(since) >= armDelay
}

// showAsk starts the arming delay of the dialog now in front and redraws
// when it arms.
func (p *AgentPane) showAsk() {
	p.dialog.at, p.dialog.scroll = p.env.Time(), 0
	p.redrawAfter(armDelay)
}

// tick redraws in a second, once, so that the turn's elapsed time in the
// title moves on.
func (p *AgentPane) tick() {
	if p.ticking {
		return
	}
	p.ticking = true
	time.AfterFunc(time.Second, func() { p.env.Update(func() { p.ticking = false }) })
}

func (p *AgentPane) redrawAfter(d time.Duration) {
	time.AfterFunc(d, func() { p.env.Update(func() {}) })
}

// InputHandler runs the pane's keys. While the pane asks whether to
// restart the agent, the next key answers that and nothing else. While a
// permission dialog waits, its fixed keys (dialogChoices) answer it once
// it is armed, PgUp and PgDn scroll its preview, and everything else goes
// to the input line, which stays usable under the dialog.
func (p *AgentPane) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(tview.Primitive)) {
		armed := p.armed()
		p.lastKey = p.env.Time()
		if p.restartAsk {
			p.answerRestart(ev)
			return
		}
		if p.dialog.waiting() {
			if !armed {
				p.redrawAfter(armDelay)
			}
			if c, ok := dialogKey(ev); ok && armed {
				p.answer(c.decision)
				return
			}
			switch ev.Key() {
			case tcell.KeyPgUp:
				p.dialog.scroll -= max(1, dialogRows/2)
				return
			case tcell.KeyPgDn:
				p.dialog.scroll += max(1, dialogRows/2)
				return
			}
		}
		if newlineKey(ev) {
			p.insertNewline(setFocus)
			return
		}
		if act, ok := p.keys.Lookup(keymap.Of(ev)); ok {
			if p.dialog.waiting() && act.Name == "send" {
				p.env.Tell("answer " + p.name + "'s request first: y allow once, A for this agent's session, E for every agent, n deny")
				return
			}
			act.Run()
			return
		}
		if ev.Key() == tcell.KeyRune {
			p.view.selected = -1
		}
		if h := p.input.InputHandler(); h != nil {
			h(ev, setFocus)
		}
	})
}

// escape clears the ref selection, or when there is none stops the
// running turn, as Esc interrupts in Claude Code and Codex.
func (p *AgentPane) escape() {
	if p.view.selected >= 0 {
		p.view.selected = -1
		return
	}
	if info, err := p.agents.Info(p.name); err == nil && info.Busy() {
		p.cancel()
	}
}

// PasteHandler pastes into the prompt (see paste).
func (p *AgentPane) PasteHandler() func(string, func(tview.Primitive)) {
	return p.WrapPasteHandler(func(text string, setFocus func(tview.Primitive)) { p.paste(text, setFocus) })
}
