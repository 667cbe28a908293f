package app

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/panes"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/ui"
)

// status feeds the status bar from the swarm.
func (w *Workstation) status() ui.Status {
	st := ui.Status{Workspace: w.ws, Model: w.cfg.Model, MemoryPending: int(w.feed.memPending.Load())}
	if re := w.feed.reembed.Load(); re != nil {
		st.Reembed = *re
	}
	if w.mcp != nil {
		st.MCPFailed, st.MCPServers = w.mcp.Failed()
	}
	if sbx, known := w.st.sandboxKnown(); known && sbx.Policy == nil {
		st.Warning = "unsandboxed"
	}
	if w.cfgErr != nil && w.st.sidecarFile() != "" {
		st.Model = "sidecar (local only)"
	}
	for _, in := range w.swarm.Agents() {
		state := string(in.State)
		if in.Paused && in.State == swarm.StateIdle {
			state = "paused"
		}
		st.Agents = append(st.Agents, ui.AgentStatus{Name: in.Name, State: state, Detail: in.Detail, Busy: in.Busy()})
		st.NaiveTokens += in.Stats.NaiveTokens
		st.SentTokens += in.Stats.SentTokens
	}
	return st
}

// feed is the way into the panes from other goroutines: it delivers the
// swarm's events to them on the UI goroutine, in batches, and re-reads the
// vault, memory and board panes when those stores change. Panes listen;
// nothing else in the workstation calls them from outside the UI
// goroutine.
type feed struct {
	// app is the application, set before the pump starts; appP holds it
	// for the goroutines that may run before it exists.
	app  *ui.App
	appP atomic.Pointer[ui.App]
	// memory is the shared memory store, nil when memory is off.
	memory *memory.Store
	log    *slog.Logger
	// onAsk, when set, hears that an agent waits for approval (the
	// server notifies the attached terminals).
	onAsk func(agent string)
	// onChange, when set, hears that the swarm changed (the server
	// journals the session).
	onChange func()
	// memPending counts the memory candidates waiting for approval, for
	// the status bar; the memory store's events keep it current.
	memPending atomic.Int64
	// reembed is the memory's background re-embedding, for the status
	// bar; the same events keep it current.
	reembed atomic.Pointer[ui.Reembed]
	// vaultAt is the last vault pane refresh; vaultLater is set while a
	// trailing refresh is scheduled. Both belong to the UI goroutine.
	vaultAt    time.Time
	vaultLater bool
}

// start delivers events to app, once app exists, until events closes.
func (f *feed) start(app *ui.App, events <-chan swarm.Event) {
	f.app = app
	f.appP.Store(app)
	// The memory's events before the application existed were dropped
	// (a re-embedding's progress, say): read what they told.
	app.Update(f.refreshMemory)
	go f.pump(events)
}

// update runs fn on the UI goroutine once the application exists; before
// that it drops fn, as the first frame draws everything anyway.
func (f *feed) update(fn func()) {
	if a := f.appP.Load(); a != nil {
		a.Update(fn)
	}
}

// answer is update for a program's answer to the user's typing.
func (f *feed) answer(fn func()) {
	if a := f.appP.Load(); a != nil {
		a.Answer(fn)
	}
}

// pump delivers the swarm's events to the panes on the UI goroutine, in
// batches, and refreshes the vault pane at most once a second.
func (f *feed) pump(events <-chan swarm.Event) {
	for e := range events {
		batch := []swarm.Event{e}
	more:
		for len(batch) < 512 {
			select {
			case e, ok := <-events:
				if !ok {
					break more
				}
				batch = append(batch, e)
			default:
				break more
			}
		}
		f.app.Update(func() { f.deliver(batch) })
	}
}

func (f *feed) deliver(batch []swarm.Event) {
	vaultChanged := false
	for _, e := range batch {
		if e.Type == swarm.EvAgent && (e.Loop.Type == agent.EvToolResult || e.Loop.Type == agent.EvDiet) || e.Type == swarm.EvFinished {
			vaultChanged = true
		}
		if e.Type == swarm.EvAsk && f.onAsk != nil {
			f.onAsk(e.Agent)
		}
		if e.Type == swarm.EvAgent && e.Loop.Type == agent.EvError {
			f.log.Warn("agent error", "agent", e.Agent, "error", e.Loop.Error)
		}
		f.app.EachPane(func(p pane.Pane) {
			if l, ok := p.(panes.Listener); ok {
				l.OnEvent(e)
			}
		})
	}
	f.app.EachPane(func(p pane.Pane) {
		if r, ok := p.(pane.Refresher); ok && p.Kind() == pane.KindStats {
			r.Refresh()
		}
	})
	if vaultChanged {
		f.refreshVault()
	}
	if f.onChange != nil {
		f.onChange()
	}
}

// refreshVault re-lists the vault panes at most once a second; a change
// inside that second is picked up by one trailing refresh.
func (f *feed) refreshVault() {
	wait := time.Second - time.Since(f.vaultAt)
	if wait > 0 {
		if !f.vaultLater {
			f.vaultLater = true
			time.AfterFunc(wait, func() {
				f.app.Update(func() {
					f.vaultLater = false
					f.refreshVault()
				})
			})
		}
		return
	}
	f.vaultAt = time.Now()
	f.app.EachPane(func(p pane.Pane) {
		if r, ok := p.(pane.Refresher); ok && p.Kind() == pane.KindVault {
			r.Refresh()
		}
	})
}

// storesChanged re-reads the vault, memory and board panes after a kws
// command (typed in a shell pane, or anywhere) or an MCP client (kws mcp
// serve) changed the vault, the memory or the task board.
func (f *feed) storesChanged() {
	a := f.appP.Load()
	if a == nil {
		return
	}
	a.Update(func() {
		f.vaultAt = time.Time{}
		f.refreshVault()
		f.refreshMemory()
		f.app.EachPane(func(p pane.Pane) {
			if r, ok := p.(pane.Refresher); ok && p.Kind() == pane.KindBoard {
				r.Refresh()
			}
		})
	})
}

// memoryChanged hears the memory store's event that its pending queue
// changed or its re-embedding made progress and shows it: the status
// bar's count and progress, the memory panes.
func (f *feed) memoryChanged() {
	if a := f.appP.Load(); a != nil {
		a.Update(f.refreshMemory)
	}
}

// refreshMemory re-counts the candidates waiting for approval, re-reads
// the re-embedding's progress and the memory panes; it runs on the UI
// goroutine.
func (f *feed) refreshMemory() {
	if f.memory == nil {
		return
	}
	f.countMemory()
	f.app.EachPane(func(p pane.Pane) {
		if r, ok := p.(pane.Refresher); ok && p.Kind() == pane.KindMemory {
			r.Refresh()
		}
	})
}

// countMemory reads what the status bar shows of the memory: the
// candidates waiting for approval and the re-embedding's progress.
func (f *feed) countMemory() {
	f.memPending.Store(int64(len(f.memory.Pending())))
	re := f.memory.Reembedding()
	f.reembed.Store(&ui.Reembed{Done: re.Done, Total: re.Total, Running: re.Running, Failed: re.Err != nil})
}
