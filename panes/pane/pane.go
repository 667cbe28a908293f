// Package pane is what the workstation's application knows about panes:
// the Pane interface, the Env every pane is given, the typed Kind of a
// pane, the capabilities a pane may offer, and the Registry through which
// the application builds panes it has never seen the concrete type of.
// It imports no concrete pane; the panes package implements it and the
// composition root registers each kind's constructor.
package pane

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
)

// Kind names a kind of pane.
type Kind string

// The kinds of pane the workstation opens.
const (
	KindAgent  Kind = "agent"
	KindShell  Kind = "shell"
	KindVault  Kind = "vault"
	KindStats  Kind = "stats"
	KindMemory Kind = "memory"
	KindBoard  Kind = "board"
)

// Pane is what the layout holds in a leaf. Its Draw paints every cell of
// its rectangle: the screen is not cleared between frames, so a cell a
// pane leaves alone keeps what the last frame drew there.
type Pane interface {
	tview.Primitive
	// Kind is the pane's kind.
	Kind() Kind
	// Title is the text of the pane's frame.
	Title() string
	// Keys is the pane's key-action table.
	Keys() *keymap.Table
	// Close releases what the pane owns (a shell, a subscription).
	Close() error
}

// The capabilities below are optional: the application asks a Pane for
// one with a type assertion and does without when the pane lacks it.

// Waiter is a pane that can be waiting for the user (an agent asking for
// approval); the layout marks it and next-waiting leads there.
type Waiter interface {
	NeedsYou() bool
}

// Passer is a pane whose program takes keys itself (a shell pane): a key
// it passes on changes nothing on the screen until the program answers,
// so the application need not draw a frame for the key alone.
type Passer interface {
	// PassesKey reports whether ev goes to the program unseen.
	PassesKey(ev *tcell.EventKey) bool
}

// CloseWarner is a pane that would lose work when closed (a shell running
// a job, an agent mid-turn); CloseWarning says what, or "" when nothing
// would be lost.
type CloseWarner interface {
	CloseWarning() string
}

// Tasker is a pane that takes a task (an agent pane).
type Tasker interface {
	SendTask(text string) error
}

// BlockOpener is a pane that shows one vault block by id (the vault pane).
type BlockOpener interface {
	Open(id string) error
}

// Refresher is a pane that re-reads its data (the vault, the stats).
type Refresher interface {
	Refresh()
}

// CopyModer is a pane with a copy mode (a shell pane).
type CopyModer interface {
	EnterCopyMode()
}

// BufferPaster is a pane that pastes the workstation's paste buffer into
// its program or input line (a shell or agent pane).
type BufferPaster interface {
	PasteBuffer()
}

// Keeper is a pane that keeps its visible screen, or its selection, in
// the vault (a shell pane).
type Keeper interface {
	SendToVault()
}

// PrefixHinter is a pane that wants some prefix actions, by name, shown
// in the hints bar beside its own keys.
type PrefixHinter interface {
	PrefixHints() []string
}

// KeyTabler is a pane with modes of its own, such as a shell pane's copy
// mode: KeyTables returns its own table, then one per mode, whichever is
// in force. The help lists them all.
type KeyTabler interface {
	KeyTables() []*keymap.Table
}

// Spec says which pane to open: a kind and, for an agent pane, the role
// the new agent takes ("" for none). State, when set, is what a Persister
// pane gave before a restart, so that the pane comes back where it was; a
// new pane has none. A Spec is stored as JSON in the layout's journal.
type Spec struct {
	Kind  Kind              `json:"kind"`
	Role  string            `json:"role,omitempty"`
	State map[string]string `json:"state,omitempty"`
	// ID is the pane's id, tmux's %N: given when the pane first opens,
	// unique in its session and kept for its life, across restores too.
	ID int `json:"id,omitempty"`
	// Title is the title select-pane -T gave the pane, shown in place of
	// its own.
	Title string `json:"title,omitempty"`
	// Dir is the directory a new shell pane starts in (split-window -c);
	// empty is the workspace.
	Dir string `json:"-"`
	// Command is what a shell pane runs with sh -c in place of the
	// interactive shell, as tmux's split-window COMMAND; empty runs the
	// shell. A restored pane runs the shell.
	Command string `json:"-"`
}

// The keys of Spec.State that the workstation's panes use.
const (
	// StateAgent is an agent pane's agent name ("agent-3").
	StateAgent = "agent"
	// StateSession is the id of the session an agent pane's agent
	// records; a restored pane resumes it.
	StateSession = "session"
	// StateDir is a shell pane's working directory; a restored shell
	// starts there.
	StateDir = "dir"
)

// Persister is a pane that can come back after the workstation restarts:
// PersistState returns what it needs, stored in its Spec's State and given
// back to its factory. It is called on the UI goroutine and must be cheap.
type Persister interface {
	PersistState() map[string]string
}

// String is the spec as messages name it: the kind, then ":ROLE" when a
// role is set ("agent:coder").
func (s Spec) String() string {
	if s.Role == "" {
		return string(s.Kind)
	}
	return string(s.Kind) + ":" + s.Role
}

// Factory builds a pane of the kind it is registered for.
type Factory func(s Spec) (Pane, error)

// Info describes a kind of pane once, for everything that offers it: the
// palette's show command, the key tables config.toml may rebind, and the
// prefix key that shows or opens one. Each pane type declares its own
// (panes.VaultInfo, …); the composition root registers it with the
// factory.
type Info struct {
	Kind Kind
	// Scopes are the key-table scopes the kind's panes use, as
	// config.toml's [keys] entries name them ("shell", "copy").
	Scopes []string
	// Key is the prefix key that shows the kind's last pane, or with Fresh
	// opens a new one; "" for none. Action names it in the prefix table,
	// Help describes it there.
	Key, Action, Help string
	Fresh             bool
	// Keys, when set, returns the kind's key tables with their default
	// keys, its own first and then its modes', so that the help lists
	// them before a pane of the kind is open.
	Keys func() []*keymap.Table
}

// Registry holds each kind of pane: its Info and its factory. The
// composition root registers every kind before the application starts;
// the application builds its panes through it. Register is not safe to
// call concurrently with the other methods.
type Registry struct {
	kinds     []Info
	factories map[Kind]Factory
}

// NewRegistry returns a registry with no kinds.
func NewRegistry() *Registry {
	return &Registry{factories: map[Kind]Factory{}}
}

// Register adds the kind info describes, built by f. Registering a kind
// twice, or a nil factory, is a wiring mistake and panics.
func (r *Registry) Register(info Info, f Factory) {
	if f == nil {
		panic(fmt.Sprintf("pane: nil factory for kind %q", info.Kind))
	}
	if _, dup := r.factories[info.Kind]; dup {
		panic(fmt.Sprintf("pane: kind %q registered twice", info.Kind))
	}
	r.kinds = append(r.kinds, info)
	r.factories[info.Kind] = f
}

// Kinds returns the registered kinds, in the order they were registered.
func (r *Registry) Kinds() []Info { return append([]Info(nil), r.kinds...) }

// Scopes returns every registered kind's key-table scopes.
func (r *Registry) Scopes() []string {
	var out []string
	for _, k := range r.kinds {
		out = append(out, k.Scopes...)
	}
	return out
}

// New builds the pane s names with the factory registered for its kind.
func (r *Registry) New(s Spec) (Pane, error) {
	f, ok := r.factories[s.Kind]
	if !ok {
		return nil, fmt.Errorf("unknown pane kind %q", s.Kind)
	}
	return f(s)
}
