package app

import (
	"time"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/panes"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/ui"
)

// status feeds the status bar from the swarm.
func (w *Workstation) status() ui.Status {
	st := ui.Status{Workspace: w.ws, Model: w.cfg.Model, MemoryPending: int(w.memPending.Load())}
	if re := w.reembed.Load(); re != nil {
		st.Reembed = *re
	}
	if w.mcp != nil {
		st.MCPFailed, st.MCPServers = w.mcp.Failed()
	}
	if w.st.sandbox.Policy == nil {
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

// pump delivers the swarm's events to the panes on the UI goroutine, in
// batches, and refreshes the vault pane at most once a second.
func (w *Workstation) pump() {
	events := w.events
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
		w.app.Update(func() { w.deliver(batch) })
	}
}

func (w *Workstation) deliver(batch []swarm.Event) {
	vaultChanged := false
	for _, e := range batch {
		if e.Type == swarm.EvAgent && (e.Loop.Type == agent.EvToolResult || e.Loop.Type == agent.EvDiet) || e.Type == swarm.EvFinished {
			vaultChanged = true
		}
		if e.Type == swarm.EvAsk && w.onAsk != nil {
			w.onAsk(e.Agent)
		}
		if e.Type == swarm.EvAgent && e.Loop.Type == agent.EvError {
			w.st.log.Warn("agent error", "agent", e.Agent, "error", e.Loop.Error)
		}
		w.app.EachPane(func(p pane.Pane) {
			if l, ok := p.(panes.Listener); ok {
				l.OnEvent(e)
			}
		})
	}
	w.app.EachPane(func(p pane.Pane) {
		if r, ok := p.(pane.Refresher); ok && p.Kind() == pane.KindStats {
			r.Refresh()
		}
	})
	if vaultChanged {
		w.refreshVault()
	}
	if w.onChange != nil {
		w.onChange()
	}
}

// refreshVault re-lists the vault panes at most once a second; a change
// inside that second is picked up by one trailing refresh.
func (w *Workstation) refreshVault() {
	wait := time.Second - time.Since(w.vaultAt)
	if wait > 0 {
		if !w.vaultLater {
			w.vaultLater = true
			time.AfterFunc(wait, func() {
				w.app.Update(func() {
					w.vaultLater = false
					w.refreshVault()
				})
			})
		}
		return
	}
	w.vaultAt = time.Now()
	w.app.EachPane(func(p pane.Pane) {
		if r, ok := p.(pane.Refresher); ok && p.Kind() == pane.KindVault {
			r.Refresh()
		}
	})
}

// storesChanged re-reads the vault, memory and board panes after a kws
// command (typed in a shell pane, or anywhere) or an MCP client (kws mcp
// serve) changed the vault, the memory or the task board.
func (w *Workstation) storesChanged() {
	a := w.appP.Load()
	if a == nil {
		return
	}
	a.Update(func() {
		w.vaultAt = time.Time{}
		w.refreshVault()
		w.refreshMemory()
		w.app.EachPane(func(p pane.Pane) {
			if r, ok := p.(pane.Refresher); ok && p.Kind() == pane.KindBoard {
				r.Refresh()
			}
		})
	})
}

// memoryChanged hears the memory store's event that its pending queue
// changed or its re-embedding made progress and shows it: the status
// bar's count and progress, the memory panes.
func (w *Workstation) memoryChanged() {
	if a := w.appP.Load(); a != nil {
		a.Update(w.refreshMemory)
	}
}

// refreshMemory re-counts the candidates waiting for approval, re-reads
// the re-embedding's progress and the memory panes; it runs on the UI
// goroutine.
func (w *Workstation) refreshMemory() {
	if w.st.memory == nil {
		return
	}
	w.countMemory()
	w.app.EachPane(func(p pane.Pane) {
		if r, ok := p.(pane.Refresher); ok && p.Kind() == pane.KindMemory {
			r.Refresh()
		}
	})
}

// countMemory reads what the status bar shows of the memory: the
// candidates waiting for approval and the re-embedding's progress.
func (w *Workstation) countMemory() {
	w.memPending.Store(int64(len(w.st.memory.Pending())))
	re := w.st.memory.Reembedding()
	w.reembed.Store(&ui.Reembed{Done: re.Done, Total: re.Total, Running: re.Running, Failed: re.Err != nil})
}
