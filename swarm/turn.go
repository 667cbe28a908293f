package swarm

import (
	"context"
	"errors"
	"time"

	"github.com/kwsdev/kws/agent"
)

// next takes the resumed turn when one is pending, else the first queued
// turn with the injected blocks after its text (a turn that began with
// <ctx_exact would read as a page-in answer). A turn the user sent runs
// as its prompt (a /name line's skill, expanded); EvTurn shows its text.
// In the same critical section it marks the member thinking, records the
// turn's cancel function and starts the transcript's log of the turn, so
// Busy never sees a gap between a queued turn and a running one, Cancel
// always reaches a taken turn and Transcript never misses or repeats one
// of its events.
func (m *member) next(parent context.Context) (turn, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.queue) == 0 && !m.resumePending || m.stopped || m.paused {
		return turn{}, false
	}
	t := turn{resume: m.resumePending, r: m.runner}
	m.resumePending = false
	if !t.resume {
		q := m.queue[0]
		m.queue = m.queue[1:]
		t.text, t.prompt = q.text, q.text
		if q.ev == nil {
			t.prompt = m.s.prompt(q.text)
			t.command, _ = agent.IsCommand(q.text)
		}
		for _, b := range m.injected {
			t.text += "\n\n" + b.text
			t.prompt += "\n\n" + b.text
		}
		m.injected = nil
	}
	m.resetTranscriptLocked()
	var cancel context.CancelFunc
	t.ctx, cancel = context.WithCancel(parent)
	m.cancel = cancel
	m.state, m.detail, m.turnStarted = StateThinking, "", time.Now()
	if !t.resume {
		m.publishLocked(Event{Type: EvTurn, Agent: m.name, Text: t.text})
	}
	m.stateEventLocked()
	return t, true
}

// turn is one turn taken by next: a user turn's text as given and the
// prompt the agent runs, or the resumed turn.
type turn struct {
	ctx    context.Context
	text   string
	prompt string
	// command is the /context or /compact line the turn answers ("" for
	// a turn of the model).
	command string
	resume  bool
	r       Runner
}

// loop runs queued turns until the swarm stops or the member is removed.
func (m *member) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.quit:
			return
		case <-m.wake:
		}
		for {
			t, ok := m.next(ctx)
			if !ok {
				break
			}
			m.run(t)
			select {
			case <-ctx.Done():
				return
			case <-m.quit:
				return
			default:
			}
		}
	}
}

// run runs one turn taken by next and publishes its end.
func (m *member) run(t turn) {
	ctx := t.ctx
	var answer string
	var err error
	switch {
	case t.command != "":
		err = m.command(t)
	case t.resume:
		answer, _, err = t.r.(Resumer).Resume(ctx)
	default:
		answer, err = t.r.Run(ctx, t.prompt)
	}
	m.s.touch.turnEnded(m.name)
	cancelled := ctx.Err() != nil // before the turn's own cancel below
	var tools []agent.ToolStat
	if ts, ok := t.r.(ToolStatser); ok {
		tools = ts.ToolStats()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if tools != nil {
		m.stats.Tools = tools
	}
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	fin := Event{Type: EvFinished, Agent: m.name, Text: answer}
	switch {
	case err == nil:
		m.setStateLocked(StateIdle, "")
	case cancelled || errors.Is(err, context.Canceled):
		fin.Err = "cancelled"
		m.setStateLocked(StateIdle, "")
	default:
		fin.Err = err.Error()
		m.setStateLocked(StateError, err.Error())
	}
	fin.Info = m.infoLocked()
	m.publishLocked(fin)
}
