package permission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/internal/pubsub"
)

// Mode says who answers a Broker's requests.
type Mode int

const (
	// Interactive brokers wait for a front end to answer.
	Interactive Mode = iota
	// AutoAllow brokers (--yes) allow every request at once.
	AutoAllow
	// Unattended brokers (no front end) deny every request at once.
	Unattended
)

// UnattendedReason is the denial reason of an Unattended broker.
const UnattendedReason = "no one can approve this (run with --yes, or allow the tool in your own ~/.config/kws/config.toml)"

// Documented errors. Callers test them with errors.Is.
var (
	// ErrNotPending is returned by Answer for an id that is not waiting
	// (unknown, already answered, or its asker gave up).
	ErrNotPending = errors.New("permission: no pending request with that id")
	// ErrBadAnswer is returned by Answer for a decision other than
	// AllowOnce, AllowSession, AllowAll or Deny.
	ErrBadAnswer = errors.New("permission: an answer must be AllowOnce, AllowSession, AllowAll or Deny")
	// ErrDuplicate is returned by Ask for an id that is already pending.
	ErrDuplicate = errors.New("permission: a request with that id is already pending")
	// ErrClosed is returned by Ask once the broker is closed.
	ErrClosed = errors.New("permission: broker closed")
)

// Request asks for approval of one tool call.
type Request struct {
	// ID identifies the request (the tool call id); Ask assigns one when
	// it is empty.
	ID string `json:"id"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Args is the call's raw JSON arguments.
	Args string `json:"args"`
	// Preview is what the user approves: a diff or a command line.
	Preview string `json:"preview"`
	// Agent names the agent making the call.
	Agent string `json:"agent"`
	// Note is the sidecar's risk note on the call, when there is one.
	Note string `json:"note,omitempty"`
	// Waiting, when set, is called once if the request starts waiting for
	// a front end's answer: its agent now waits for the user. It must not
	// block.
	Waiting func() `json:"-"`
}

// Answer is the reply to a Request.
type Answer struct {
	// Decision is AllowOnce, AllowSession, AllowAll or Deny.
	Decision Decision `json:"decision"`
	// Reason optionally explains a denial; the model reads it.
	Reason string `json:"reason,omitempty"`
}

// waiter is one pending Ask.
type waiter struct {
	req Request
	ch  chan Answer // buffered: the answer never blocks
}

// Broker carries permission requests from agents to front ends and their
// answers back. It is safe for concurrent use.
type Broker struct {
	mode    Mode
	mu      sync.Mutex
	seq     int
	pending map[string]*waiter
	order   []string // pending ids, oldest first
	session map[grant]bool
	all     map[string]bool // tools allowed for every agent
	// requests delivers each request asked to the front ends; cancels
	// ends a subscription by its channel (Unsubscribe).
	requests *pubsub.Broker[Request]
	cancels  map[<-chan Request]func()
	closed   bool
	done     chan struct{} // closed by Close
}

// grant is one agent's permission to use one tool for its session.
type grant struct{ agent, tool string }

// edits names the grant write_file and edit_file share: allowing either
// for a session (or every agent) allows edits, as Claude Code's "allow
// edits" covers both.
const edits = "edits (write_file, edit_file)"

// grantOf is the grant a call of tool needs.
func grantOf(tool string) string {
	if tool == "write_file" || tool == "edit_file" {
		return edits
	}
	return tool
}

// NewBroker returns a broker in the given mode.
func NewBroker(mode Mode) *Broker {
	return &Broker{mode: mode, pending: map[string]*waiter{}, session: map[grant]bool{}, all: map[string]bool{},
		requests: pubsub.New(pubsub.Options[Request]{Buffer: subscriberBuffer}), cancels: map[<-chan Request]func(){},
		done: make(chan struct{})}
}

// Ask returns the answer to req. An AutoAllow broker answers AllowOnce
// and an Unattended one Deny with UnattendedReason, at once. An
// Interactive broker answers AllowSession at once for a tool the user
// allowed for the session; otherwise it delivers req to every subscriber
// and blocks until Answer is called with req's id or ctx is done.
func (b *Broker) Ask(ctx context.Context, req Request) (Answer, error) {
	switch b.mode {
	case AutoAllow:
		return Answer{Decision: AllowOnce, Reason: "allowed by --yes"}, nil
	case Unattended:
		return Answer{Decision: Deny, Reason: UnattendedReason}, nil
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return Answer{}, ErrClosed
	}
	if b.all[grantOf(req.Tool)] {
		b.mu.Unlock()
		return Answer{Decision: AllowAll, Reason: "allowed by the user for every agent"}, nil
	}
	if b.session[grant{req.Agent, grantOf(req.Tool)}] {
		b.mu.Unlock()
		return Answer{Decision: AllowSession, Reason: "allowed by the user for this agent's session"}, nil
	}
	if req.ID == "" {
		b.seq++
		req.ID = "perm-" + strconv.Itoa(b.seq)
	}
	if _, dup := b.pending[req.ID]; dup {
		b.mu.Unlock()
		return Answer{}, fmt.Errorf("%w: %s", ErrDuplicate, req.ID)
	}
	w := &waiter{req: req, ch: make(chan Answer, 1)}
	b.pending[req.ID] = w
	b.order = append(b.order, req.ID)
	b.requests.Publish(req)
	b.mu.Unlock()
	if req.Waiting != nil {
		req.Waiting()
	}

	select {
	case a := <-w.ch:
		return a, nil
	case <-ctx.Done():
		b.mu.Lock()
		if b.pending[req.ID] == w {
			b.drop(req.ID)
			b.mu.Unlock()
			return Answer{}, fmt.Errorf("permission: waiting for %s: %w", req.Tool, ctx.Err())
		}
		b.mu.Unlock()
		// Answered or closed while ctx ended: Close empties pending
		// without answering, so wait for either.
		select {
		case a := <-w.ch:
			return a, nil
		case <-b.done:
			return Answer{}, ErrClosed
		}
	case <-b.done:
		select {
		case a := <-w.ch:
			return a, nil
		default:
			return Answer{}, ErrClosed
		}
	}
}

// Answer replies to the pending request id. AllowSession also allows the
// tool for the rest of the asking agent's session and answers that
// agent's other pending requests of the tool; AllowAll does the same for
// every agent, present and future. Neither touches another tool.
func (b *Broker) Answer(id string, a Answer) error {
	if a.Decision != AllowOnce && a.Decision != AllowSession && a.Decision != AllowAll && a.Decision != Deny {
		return fmt.Errorf("%w, not %v", ErrBadAnswer, a.Decision)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.pending[id]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotPending, id)
	}
	b.drop(id)
	w.ch <- a
	if a.Decision != AllowSession && a.Decision != AllowAll {
		return nil
	}
	if a.Decision == AllowAll {
		b.all[grantOf(w.req.Tool)] = true
	} else {
		b.session[grant{w.req.Agent, grantOf(w.req.Tool)}] = true
	}
	for _, other := range slices.Clone(b.order) {
		o := b.pending[other]
		if grantOf(o.req.Tool) == grantOf(w.req.Tool) && (a.Decision == AllowAll || o.req.Agent == w.req.Agent) {
			b.drop(other)
			o.ch <- a
		}
	}
	return nil
}

// Revoke forgets the session grants of agent, as when it restarts with a
// new session. Grants for every agent stay.
func (b *Broker) Revoke(agent string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for g := range b.session {
		if g.agent == agent {
			delete(b.session, g)
		}
	}
}

// drop forgets pending request id; b.mu is held.
func (b *Broker) drop(id string) {
	delete(b.pending, id)
	if i := slices.Index(b.order, id); i >= 0 {
		b.order = slices.Delete(b.order, i, i+1)
	}
}

// Pending returns the requests waiting for an answer, oldest first.
func (b *Broker) Pending() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Request, len(b.order))
	for i, id := range b.order {
		out[i] = b.pending[id].req
	}
	return out
}

// SessionAllowed reports whether the user allowed tool for agent's
// session or for every agent.
func (b *Broker) SessionAllowed(agent, tool string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.all[grantOf(tool)] || b.session[grant{agent, grantOf(tool)}]
}

// Close ends the broker: pending and later Asks of an Interactive broker
// fail with ErrClosed and every subscription channel is closed.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	close(b.done)
	b.requests.Close()
	clear(b.cancels)
	clear(b.pending)
	b.order = nil
}

// Check decides whether the call req of a tool with the given access may
// run: by policy p (nil: defaults) when it allows or denies, else by
// asking broker b (nil: as Unattended). reason says why: for a denial it
// is the text the model reads as the tool result; for an approval it says
// who allowed the call. err is set only when the ask itself failed (ctx
// done, broker closed).
func Check(ctx context.Context, p *Policy, b *Broker, access tools.Access, req Request) (allowed bool, reason string, err error) {
	switch p.Decide(req.Tool, access, req.Preview) {
	case Allow:
		return true, "allowed by the permission policy", nil
	case Deny:
		return false, fmt.Sprintf("the %s tool is denied by the permissions in the configuration (~/.config/kws/config.toml or the workspace's .kws/config.toml)", req.Tool), nil
	}
	if b == nil {
		return false, UnattendedReason, nil
	}
	a, err := b.Ask(ctx, req)
	if err != nil {
		return false, "", err
	}
	switch {
	case a.Decision == Deny && a.Reason != "":
		return false, a.Reason, nil
	case a.Decision == Deny:
		return false, "the user denied this call", nil
	case a.Reason != "":
		return true, a.Reason, nil
	case a.Decision == AllowSession:
		return true, "allowed by the user for this agent's session", nil
	case a.Decision == AllowAll:
		return true, "allowed by the user for every agent", nil
	}
	return true, "allowed by the user", nil
}
