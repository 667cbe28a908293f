package keymap

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// Action is one named thing a user can do with a key.
type Action struct {
	// Name identifies the action in config.toml ("split-right").
	Name string
	// Keys are the keys that run it; the first is the one shown.
	Keys []Key
	// Desc says what it does, for the hints bar and the help screen.
	Desc string
	// Hint, when set, is the shorter word the hints bar shows instead of
	// Desc, so that a pane's keys fit an 80-column bar.
	Hint string
	// Visible puts the action in the hints bar; every action is in help.
	Visible bool
	// Run does it.
	Run func()
}

// Table is the key-action table of one scope: a pane kind ("agent",
// "shell") or the application's prefix table ("prefix").
type Table struct {
	// Scope names the table in config.toml: keys are rebound as
	// "<scope>.<action>".
	Scope   string
	actions []Action
}

// Bind is a convenience to build an Action from key spellings.
func Bind(name, keys, desc string, visible bool, run func()) Action {
	var ks []Key
	for _, f := range strings.Fields(keys) {
		ks = append(ks, MustParse(f))
	}
	return Action{Name: name, Keys: ks, Desc: desc, Visible: visible, Run: run}
}

// Short returns the action with hint as its word in the hints bar.
func (a Action) Short(hint string) Action {
	a.Hint = hint
	return a
}

// New returns a table holding actions in the order given, which is the
// order hints and help list them.
func New(scope string, actions ...Action) *Table {
	return &Table{Scope: scope, actions: actions}
}

// Add appends actions to the table.
func (t *Table) Add(actions ...Action) { t.actions = append(t.actions, actions...) }

// Actions returns a copy of the table's actions in order.
func (t *Table) Actions() []Action { return append([]Action(nil), t.actions...) }

// Lookup returns the action bound to k.
func (t *Table) Lookup(k Key) (Action, bool) {
	for _, a := range t.actions {
		for _, b := range a.Keys {
			if b == k {
				return a, true
			}
		}
	}
	return Action{}, false
}

// Handle runs the action bound to the event's key and reports whether
// there was one.
func (t *Table) Handle(ev *tcell.EventKey) bool {
	a, ok := t.Lookup(Of(ev))
	if ok && a.Run != nil {
		a.Run()
	}
	return ok
}

// Rebind replaces the keys of the action called name.
func (t *Table) Rebind(name string, keys []Key) error {
	for i := range t.actions {
		if t.actions[i].Name == name {
			t.actions[i].Keys = keys
			return nil
		}
	}
	return fmt.Errorf("keymap: %s has no action %q (actions: %s)", t.Scope, name, strings.Join(t.names(), ", "))
}

// BindKey binds k to a new action, taking k from any action that had it,
// as tmux's bind-key does: the action is first in the table, so it wins
// a lookup.
func (t *Table) BindKey(k Key, a Action) {
	for i := range t.actions {
		t.actions[i].Keys = slices.DeleteFunc(slices.Clone(t.actions[i].Keys), func(b Key) bool { return b == k })
	}
	a.Keys = []Key{k}
	t.actions = append([]Action{a}, t.actions...)
}

func (t *Table) names() []string {
	var out []string
	for _, a := range t.actions {
		out = append(out, a.Name)
	}
	return out
}

// Hint is one entry of the hints bar.
type Hint struct{ Key, Desc string }

// Hints returns the visible actions as key and description pairs.
func (t *Table) Hints() []Hint {
	var out []Hint
	for _, a := range t.actions {
		if a.Visible && len(a.Keys) > 0 {
			out = append(out, Hint{Key: a.Keys[0].String(), Desc: cmp.Or(a.Hint, a.Desc)})
		}
	}
	return out
}

// KeyNames returns the action's keys as shown, joined by "/".
func (a Action) KeyNames() string {
	var s []string
	for _, k := range a.Keys {
		s = append(s, k.String())
	}
	return strings.Join(s, "/")
}

// Apply rebinds actions from config.toml's [keys] section, whose entries
// are "<scope>.<action>" = "key [key…]" (keys separated by spaces). An
// entry for a scope none of tables has is an error, so a typo is reported
// instead of ignored.
func Apply(bindings map[string]string, tables ...*Table) error {
	byScope := map[string][]*Table{}
	for _, t := range tables {
		byScope[t.Scope] = append(byScope[t.Scope], t)
	}
	names := make([]string, 0, len(bindings))
	for n := range bindings {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, full := range names {
		scope, action, ok := strings.Cut(full, ".")
		if !ok {
			return fmt.Errorf("keymap: [keys] %q: write <scope>.<action>, such as prefix.split-right", full)
		}
		ts := byScope[scope]
		if len(ts) == 0 {
			return fmt.Errorf("keymap: [keys] %q: no key table %q", full, scope)
		}
		var keys []Key
		for _, f := range strings.Fields(bindings[full]) {
			k, err := Parse(f)
			if err != nil {
				return fmt.Errorf("keymap: [keys] %q: %w", full, err)
			}
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			return fmt.Errorf("keymap: [keys] %q: no key given", full)
		}
		for _, t := range ts {
			if err := t.Rebind(action, keys); err != nil {
				return err
			}
		}
	}
	return nil
}

// ApplyScope rebinds t's actions from the entries of bindings in t's
// scope and ignores the others; Apply has checked them all at start-up.
func ApplyScope(bindings map[string]string, t *Table) error {
	mine := map[string]string{}
	for full, keys := range bindings {
		if scope, _, _ := strings.Cut(full, "."); scope == t.Scope {
			mine[full] = keys
		}
	}
	return Apply(mine, t)
}
