package main

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/secrets"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/vault"
)

// stores are what every session of a data dir shares: the vault, the
// memory, the sidecar, the sandbox and the log. The server opens them
// once; a workstation opened without a server opens its own.
type stores struct {
	g       *globals
	vault   *vault.Vault
	memory  *memory.Store
	sidecar *sidecar.Switch
	tel     *sidecar.Telemetry
	sandbox shellSandbox
	log     *slog.Logger
	logF    *os.File
	// notes are what opening reported (a damaged memory file), shown in
	// each workstation's status bar.
	notes []string

	mu sync.Mutex
	// sidecarPath is the model to load, if any; sidecarErr says why there
	// is none. A model that fails to load clears sidecarPath.
	sidecarPath string
	sidecarErr  error
	loadOnce    sync.Once
	// listeners hear the sidecar's progress (each workstation's status
	// bar).
	listeners map[int]func(string)
	// watchers hear that a command changed the vault or the memory.
	watchers map[int]func()
	// open are the workstations running on these stores, by session
	// name.
	open map[*workstation]string
	// bg counts blocks being described in the background.
	bg     sync.WaitGroup
	nextID int
}

// openStores opens the data dir's shared stores; cfg (the first
// workspace's configuration) names the memory's embedder and the sidecar
// model.
func openStores(g *globals, cfg config.Config, logName string) (*stores, error) {
	if err := os.MkdirAll(g.dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	st := &stores{g: g, listeners: map[int]func(string){}, watchers: map[int]func(){}, open: map[*workstation]string{}}
	var err error
	st.logF, err = os.OpenFile(filepath.Join(g.dataDir, logName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	st.log = slog.New(secrets.LogHandler(slog.NewTextHandler(st.logF, nil)))
	if st.vault, err = vault.OpenDir(g.dataDir, nil); err != nil {
		st.close()
		return nil, err
	}
	if st.sandbox = g.openSandbox(); st.sandbox.Err != nil {
		st.log.Warn("shell commands run unconfined", "error", st.sandbox.Err)
	}
	st.sidecar = sidecar.NewSwitch(sidecar.Heuristic{})
	st.sidecarPath, st.sidecarErr = sidecar.Locate(cmp.Or(g.sidecarModel, cfg.SidecarModel), g.dataDir)
	// Memory is a hint store: when it cannot open, kws works without it.
	// With the sidecar as its embedder it works once the model has loaded.
	if st.memory, err = app.OpenMemory(g.dataDir, cfg, st.sidecar); err != nil {
		st.log.Warn("memory unavailable", "error", err)
		st.notes = append(st.notes, "memory off: "+err.Error())
	} else {
		for _, d := range st.memory.Damaged() {
			st.log.Warn("memory: damaged file moved aside", "file", d.File, "to", d.MovedTo, "error", d.Err)
			st.notes = append(st.notes, d.String())
		}
	}
	return st, nil
}

// close closes the vault, the sidecar and the log, once the blocks being
// described are.
func (st *stores) close() {
	st.bg.Wait()
	if st.vault != nil {
		_ = st.vault.Close()
	}
	if st.sidecar != nil {
		app.CloseEngine(st.sidecar.Current())
	}
	_ = st.tel.Close()
	if st.logF != nil {
		_ = st.logF.Close()
	}
}

// sidecarFile is the sidecar model loaded or loading, "" when there is
// none.
func (st *stores) sidecarFile() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sidecarPath
}

// listen registers fn to hear the sidecar's progress; the returned
// function unregisters it.
func (st *stores) listen(fn func(string)) func() {
	st.mu.Lock()
	defer st.mu.Unlock()
	id := st.nextID
	st.nextID++
	st.listeners[id] = fn
	return func() {
		st.mu.Lock()
		delete(st.listeners, id)
		st.mu.Unlock()
	}
}

// watch registers fn to hear that a command changed the vault or the
// memory; the returned function unregisters it.
func (st *stores) watch(fn func()) func() {
	st.mu.Lock()
	defer st.mu.Unlock()
	id := st.nextID
	st.nextID++
	st.watchers[id] = fn
	return func() {
		st.mu.Lock()
		delete(st.watchers, id)
		st.mu.Unlock()
	}
}

// changed tells every watcher that a command changed the stores.
func (st *stores) changed() {
	st.mu.Lock()
	fns := make([]func(), 0, len(st.watchers))
	for _, fn := range st.watchers {
		fns = append(fns, fn)
	}
	st.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// say tells every listener msg.
func (st *stores) say(msg string) {
	st.mu.Lock()
	fns := make([]func(string), 0, len(st.listeners))
	for _, fn := range st.listeners {
		fns = append(fns, fn)
	}
	st.mu.Unlock()
	for _, fn := range fns {
		fn(msg)
	}
}

// loadSidecar loads the sidecar model in the background, once, telling
// the listeners its progress; until it is ready, and if it fails, the
// heuristic engine answers.
func (st *stores) loadSidecar() {
	st.loadOnce.Do(func() {
		path, err := st.sidecarPath, st.sidecarErr
		if err != nil {
			if !errors.Is(err, sidecar.ErrNoModel) {
				st.say(err.Error())
			}
			return
		}
		st.tel, _ = sidecar.OpenTelemetry(filepath.Join(st.g.dataDir, "sidecar.jsonl"))
		go func() {
			last := -1
			progress := func(f float32) {
				if pct := int(f * 10); pct != last {
					last = pct
					st.say(fmt.Sprintf("loading the sidecar model %s: %d%%", filepath.Base(path), pct*10))
				}
			}
			e, err := sidecar.Open(path, st.g.dataDir, sidecarLoader, progress, st.tel, st.log)
			if err != nil {
				st.log.Warn("sidecar", "error", err)
				// The status bar stops promising local-only answers.
				st.mu.Lock()
				st.sidecarPath = ""
				st.mu.Unlock()
				st.say("the heuristic engine answers: " + err.Error())
				return
			}
			st.sidecar.Set(e)
			st.say("sidecar ready: " + e.Info().Name)
		}()
	})
}

// owner is the live agent that records a session.
type owner struct {
	Session string `json:"session"`
	Agent   string `json:"agent"`
	State   string `json:"state"`
}

// owners maps each session id a live agent records to that agent.
func (st *stores) owners() map[string]owner {
	st.mu.Lock()
	open := make(map[*workstation]string, len(st.open))
	for w, name := range st.open {
		open[w] = name
	}
	st.mu.Unlock()
	out := map[string]owner{}
	for w, name := range open {
		if w.swarm == nil {
			continue
		}
		for _, in := range w.swarm.Agents() {
			if in.Session != "" {
				out[in.Session] = owner{Session: name, Agent: in.Name, State: string(in.State)}
			}
		}
	}
	return out
}

// register records w as running on these stores under the session name;
// the returned function forgets it.
func (st *stores) register(w *workstation, name string) func() {
	st.mu.Lock()
	st.open[w] = name
	st.mu.Unlock()
	return func() {
		st.mu.Lock()
		delete(st.open, w)
		st.mu.Unlock()
	}
}
