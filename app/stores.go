package app

import (
	"cmp"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kwsdev/kws/internal/pubsub"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/secrets"
	"github.com/kwsdev/kws/sidecar"
	"github.com/kwsdev/kws/team"
	"github.com/kwsdev/kws/vault"
)

// mapAhead is how far past the vault file's size the shared vault is
// mapped (address space only; the file grows as blocks arrive).
const mapAhead = 256 << 20

// Stores are what every session of a data dir shares: the vault, the
// memory, the sidecar, the sandbox and the log. The server opens them
// once; a workstation opened without a server opens its own.
type Stores struct {
	opts    Options
	vault   *vault.Vault
	memory  *memory.Store
	memErr  error // why memory is off
	sidecar *sidecar.Switch
	tel     *sidecar.Telemetry
	// sandbox is what confines shell commands. Its probe runs in the
	// background from OpenStores (it starts a process and takes longer
	// than everything else before the first frame) and closes
	// sandboxReady once sandbox is set; Sandbox waits for that.
	sandbox      Sandbox
	sandboxReady chan struct{}
	log          *slog.Logger
	logF         *os.File
	// notes are what opening reported (a damaged memory file), shown in
	// each workstation's status bar.
	notes []string

	mu sync.Mutex
	// sidecarPath is the model to load, if any; sidecarErr says why there
	// is none. A model that fails to load clears sidecarPath.
	sidecarPath string
	sidecarErr  error
	loadOnce    sync.Once
	// progress hears the sidecar's progress (each workstation's status
	// bar).
	progress pubsub.Listeners[string]
	// changed hears that a command changed the vault or the memory.
	changed pubsub.Listeners[struct{}]
	// open are the workstations running on these stores, by session
	// name; ids holds the name each was opened with, which its shells'
	// KWS_SESSION keeps when the session is renamed.
	open map[*Workstation]string
	ids  map[*Workstation]string
	// bg counts blocks being described in the background.
	bg sync.WaitGroup
	// team is the server's team membership (StartTeam), nil outside a
	// team; teamStop ends its follower.
	team     *team.Team
	teamStop func()
	// teamAgents are the other members' agents as last heard.
	teamAgents atomic.Pointer[[]team.AgentState]
}

// redrawAll redraws every workstation open on the stores.
func (st *Stores) redrawAll() {
	st.mu.Lock()
	open := slices.Collect(maps.Keys(st.open))
	st.mu.Unlock()
	for _, w := range open {
		w.feed.update(func() {})
	}
}

// Sandbox is what confines the agents' shell commands, once its probe
// has ended (it waits for it).
func (st *Stores) Sandbox() Sandbox {
	<-st.sandboxReady
	return st.sandbox
}

// sandboxKnown is the sandbox when its probe has ended; false while it
// runs, for what must not wait (the status bar, which the probe's end
// redraws).
func (st *Stores) sandboxKnown() (Sandbox, bool) {
	select {
	case <-st.sandboxReady:
		return st.sandbox, true
	default:
		return Sandbox{}, false
	}
}

// OpenStores opens the data dir's shared stores. Memory that cannot open
// is not an error: kws works without it, and the notes say why.
func OpenStores(o Options) (*Stores, error) {
	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	st := &Stores{opts: o, open: map[*Workstation]string{}}
	var err error
	st.logF, err = os.OpenFile(filepath.Join(o.DataDir, cmp.Or(o.LogName, "kws.log")), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	st.log = slog.New(secrets.LogHandler(slog.NewTextHandler(st.logF, nil)))
	st.sandboxReady = make(chan struct{})
	go func() {
		st.sandbox = OpenSandbox(o.DataDir, o.ConfigHome, o.Config.Sandbox)
		if st.sandbox.Err != nil {
			st.log.Warn("shell commands run unconfined", "error", st.sandbox.Err)
		}
		close(st.sandboxReady)
		st.redrawAll()
	}()
	// The vault opens beside the memory: neither needs the other, and a
	// server's first frame waits for both. A server puts block after
	// block for hours: mapping room for them at once spares each growing
	// put a remap of the whole file.
	vaultOpened := make(chan error, 1)
	go func() {
		var err error
		st.vault, err = vault.OpenDir(o.DataDir, &vault.Options{Reserve: mapAhead})
		vaultOpened <- err
	}()
	st.sidecar = sidecar.NewSwitch(sidecar.Heuristic{})
	st.sidecarPath, st.sidecarErr = sidecar.Locate(cmp.Or(o.SidecarModel, o.Config.SidecarModel), o.DataDir)
	// Memory is a hint store: when it cannot open, kws works without it.
	// With the sidecar as its embedder it works once the model has loaded.
	if st.memory, err = OpenMemory(o.DataDir, o.Config, st.sidecar, o.EmbedLoader); err != nil {
		st.memErr = err
		st.log.Warn("memory unavailable", "error", err)
		st.notes = append(st.notes, "memory off: "+err.Error())
	} else {
		for _, d := range st.memory.Damaged() {
			st.log.Warn("memory: damaged file moved aside", "file", d.File, "to", d.MovedTo, "error", d.Err)
			st.notes = append(st.notes, d.String())
		}
	}
	if err := <-vaultOpened; err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// Close closes the memory, the vault, the sidecar and the log, once the
// blocks being described are.
func (st *Stores) Close() {
	st.StopTeam()
	st.bg.Wait()
	if st.memory != nil {
		_ = st.memory.Close() // stops its re-embedding; the next open goes on
	}
	if st.vault != nil {
		_ = st.vault.Close()
	}
	if st.sidecar != nil {
		CloseEngine(st.sidecar.Current())
	}
	_ = st.tel.Close()
	if st.logF != nil {
		_ = st.logF.Close()
	}
}

// Vault is the data dir's vault.
func (st *Stores) Vault() *vault.Vault { return st.vault }

// Memory is the data dir's memory store, or nil when it is off (the log
// says why).
func (st *Stores) Memory() *memory.Store { return st.memory }

// MemoryOff is why the memory store did not open; nil when it did.
func (st *Stores) MemoryOff() error { return st.memErr }

// Sidecar is the sidecar engine: the heuristic one until a model loads.
func (st *Stores) Sidecar() *sidecar.Switch { return st.sidecar }

// Log is the log every session of the data dir writes to.
func (st *Stores) Log() *slog.Logger { return st.log }

// Owner is the live agent that records a session.
type Owner struct {
	// Session is the name of the server session the agent runs in.
	Session string `json:"session"`
	// Agent is the agent's name.
	Agent string `json:"agent"`
	// State is the agent's state, as its pane shows it.
	State string `json:"state"`
}

// Owners maps each session id a live agent records to that agent.
func (st *Stores) Owners() map[string]Owner {
	st.mu.Lock()
	open := make(map[*Workstation]string, len(st.open))
	for w, name := range st.open {
		open[w] = name
	}
	st.mu.Unlock()
	out := map[string]Owner{}
	for w, name := range open {
		if w.swarm == nil {
			continue
		}
		for _, in := range w.swarm.Agents() {
			if in.Session != "" {
				out[in.Session] = Owner{Session: name, Agent: in.Name, State: string(in.State)}
			}
		}
	}
	return out
}

// register records w as running on these stores under the session name
// and returns its id, which stays when the session is renamed: the name,
// or when a renamed session still has that id, the name with a number.
// The returned function forgets w.
func (st *Stores) register(w *Workstation, name string) (id string, unregister func()) {
	st.mu.Lock()
	if st.ids == nil {
		st.ids = map[*Workstation]string{}
	}
	taken := func(id string) bool {
		for _, other := range st.ids {
			if other == id {
				return true
			}
		}
		return false
	}
	id = name
	for i := 2; taken(id); i++ {
		id = name + "-" + strconv.Itoa(i)
	}
	st.open[w], st.ids[w] = name, id
	st.mu.Unlock()
	return id, func() {
		st.mu.Lock()
		delete(st.open, w)
		delete(st.ids, w)
		st.mu.Unlock()
	}
}

// renamed records w's session's new name.
func (st *Stores) renamed(w *Workstation, name string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.open[w]; ok {
		st.open[w] = name
	}
}
