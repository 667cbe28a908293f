package swarm

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault"
)

// putter is the optional part of the Vault that keeps a diff for a
// file-touch notice to cite; *vault.Vault is one.
type putter interface {
	Put(data []byte, m vault.Meta) (string, error)
}

// touches follows which agents read which files, from their own tool
// events, and queues a notice for every reader when a file it read
// changes. read_file and edit_file count as reads; a successful edit_file
// or write_file is an edit, after which the editor counts as a reader of
// what it wrote. With a Dir for each agent, each reader's view of a file
// is stamped (modification time and size), so that a change by any other
// means is noticed too: after an agent's shell command, the change is its
// command's; otherwise, found before the reader's next call, it happened
// outside the agents' tools.
type touches struct {
	vault Vault
	dir   func(agent string) string

	mu sync.Mutex
	// calls holds each agent's file tool call waiting for its result; an
	// agent runs one tool at a time.
	calls map[string]fileCall
	// shells holds the agents running a shell command.
	shells map[string]bool
	// readers maps a workspace-relative path to the agents that read it,
	// with the file as each saw it last.
	readers map[string]map[string]stamp
	// notices holds each agent's notices until its next model call.
	notices map[string][]string
	// gone holds removed agents, whose late events are ignored; names
	// are never reused.
	gone map[string]bool
}

// stamp is a file as an agent saw it: its modification time and size, or
// its absence. The zero stamp is unknown (no Dir).
type stamp struct {
	known, exists bool
	mod, size     int64
}

// fileCall is one read_file, edit_file or write_file call.
type fileCall struct {
	id, tool, path string
}

func newTouches(v Vault, dir func(string) string) *touches {
	return &touches{vault: v, dir: dir, calls: map[string]fileCall{}, shells: map[string]bool{},
		readers: map[string]map[string]stamp{}, notices: map[string][]string{}, gone: map[string]bool{}}
}

// agentDir returns the directory name works in, or "".
func (t *touches) agentDir(name string) string {
	if t.dir == nil {
		return ""
	}
	return t.dir(name)
}

// sameDir reports whether a and b work in the same directory, or whether
// that is unknown, in which case an edit of one concerns the other.
func (t *touches) sameDir(a, b string) bool {
	da, db := t.agentDir(a), t.agentDir(b)
	return da == "" || db == "" || da == db
}

// stat stamps p as name sees it.
func (t *touches) stat(name, p string) stamp {
	d := t.agentDir(name)
	if d == "" {
		return stamp{}
	}
	fi, err := os.Stat(filepath.Join(d, filepath.FromSlash(p)))
	if err != nil {
		return stamp{known: true}
	}
	return stamp{known: true, exists: true, mod: fi.ModTime().UnixNano(), size: fi.Size()}
}

// observe takes one event of the agent called name. A shell command
// counts as running from its approval to its result, or to the end of
// the turn when it never gets one (cancelled).
func (t *touches) observe(name string, e agent.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gone[name] {
		return
	}
	switch e.Type {
	case agent.EvToolCall:
		t.endShellLocked(name)
		delete(t.calls, name)
		if p := callPath(e.Tool, e.Args); p != "" {
			t.calls[name] = fileCall{id: e.CallID, tool: e.Tool, path: p}
		} else if e.Tool == "shell" {
			t.calls[name] = fileCall{id: e.CallID, tool: e.Tool}
		}
	case agent.EvPermission:
		if c, ok := t.calls[name]; ok && c.id == e.CallID && c.tool == "shell" {
			if e.Decision == "deny" {
				delete(t.calls, name)
			} else {
				t.shells[name] = true
			}
		}
	case agent.EvToolResult:
		c, ok := t.calls[name]
		if !ok || c.id != e.CallID {
			return
		}
		delete(t.calls, name)
		switch {
		case c.tool == "shell":
			t.endShellLocked(name)
		case e.IsError:
		case c.tool == "read_file":
			t.readLocked(name, c.path)
		default:
			t.editedLocked(name, c, e)
		}
	}
}

// turnEnded forgets a tool call the agent's turn ended without a result
// for, and settles a shell command that was cut short.
func (t *touches) turnEnded(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endShellLocked(name)
	delete(t.calls, name)
}

// endShellLocked settles name's running shell command, if any.
func (t *touches) endShellLocked(name string) {
	if t.shells[name] {
		delete(t.shells, name)
		t.shellDoneLocked(name)
	}
}

// callPath returns the cleaned path argument of a file tool call, or ""
// for any other call.
func callPath(tool, args string) string {
	switch tool {
	case "read_file", "edit_file", "write_file":
	default:
		return ""
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal([]byte(args), &a) != nil || strings.TrimSpace(a.Path) == "" {
		return ""
	}
	return path.Clean(filepath.ToSlash(strings.TrimSpace(a.Path)))
}

// readLocked notes that name has read p, as p is now.
func (t *touches) readLocked(name, p string) {
	rs := t.readers[p]
	if rs == nil {
		rs = map[string]stamp{}
		t.readers[p] = rs
	}
	rs[name] = t.stat(name, p)
}

// editedLocked queues a notice for every other reader of the file name
// changed in its directory and makes name a reader of what it wrote. The
// readers' view of the file is brought up to date in the same step, so
// that the change is never also found as one made outside the tools. The
// diff is kept in the vault only when someone is to be told; t.mu is let
// go meanwhile.
func (t *touches) editedLocked(name string, c fileCall, e agent.Event) {
	var readers []string
	for r := range t.readers[c.path] {
		if r != name && t.sameDir(r, name) {
			readers = append(readers, r)
			t.readers[c.path][r] = t.stat(r, c.path)
		}
	}
	t.readLocked(name, c.path)
	if len(readers) == 0 {
		return
	}
	sort.Strings(readers)
	verb := "edited"
	if c.tool == "write_file" {
		verb = "wrote"
	}
	t.mu.Unlock()
	notice := fmt.Sprintf("%s %s %s after you read it; read it again before relying on what you saw", name, verb, c.path)
	if id := t.keep(name, c.path, e); id != "" {
		notice = fmt.Sprintf("%s %s %s after you read it; the diff is %s (ctx_get it to see the change)", name, verb, c.path, id)
	}
	t.mu.Lock()
	for _, r := range readers {
		if !t.gone[r] {
			t.notices[r] = append(t.notices[r], notice)
		}
	}
}

// keep stores the edit's diff (its preview, else its result) in the vault
// and returns the id, or "" when the vault cannot store it.
func (t *touches) keep(name, p string, e agent.Event) string {
	v, ok := t.vault.(putter)
	data := e.Preview
	if data == "" {
		data = e.Text
	}
	if !ok || data == "" {
		return ""
	}
	c := tokens.Default().Count(data)
	meta := diet.Describe("diff", data).Meta("diff", -1, c.Tokens, !c.Exact)
	meta.Agent = name
	if len(meta.Files) == 0 {
		meta.Files = []string{p}
	}
	id, err := v.Put([]byte(data), meta)
	if err != nil {
		return ""
	}
	return id
}

// shellDoneLocked follows a shell command of name that has ended: every
// file read in its directory that changed since is the command's change,
// told to the other readers; name's own view is brought up to date.
func (t *touches) shellDoneLocked(name string) {
	if t.agentDir(name) == "" {
		return
	}
	for _, p := range t.pathsLocked() {
		for r, seen := range t.readers[p] {
			if !t.sameDir(r, name) {
				continue
			}
			now := t.stat(r, p)
			if !seen.known || now == seen {
				continue
			}
			t.readers[p][r] = now
			if r != name {
				t.notices[r] = append(t.notices[r], changeNotice(name+"'s shell command", p, now))
			}
		}
	}
}

// take returns and forgets the notices waiting for name, after looking
// for files it read that changed on disk outside the agents' tools. A file
// another agent's tool may be changing right now is looked at later, when
// that tool's result says who changed it.
func (t *touches) take(name string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.agentDir(name) != "" && !t.gone[name] {
		for _, p := range t.pathsLocked() {
			seen, ok := t.readers[p][name]
			if !ok || !seen.known || t.busyLocked(p, name) {
				continue
			}
			if now := t.stat(name, p); now != seen {
				t.readers[p][name] = now
				t.notices[name] = append(t.notices[name], changeNotice("something outside the agents' file tools (an editor, a build)", p, now))
			}
		}
	}
	out := t.notices[name]
	delete(t.notices, name)
	return out
}

// busyLocked reports whether another agent in name's directory runs an
// approved shell command, or a file tool on p.
func (t *touches) busyLocked(p, name string) bool {
	for a := range t.shells {
		if a != name && t.sameDir(a, name) {
			return true
		}
	}
	for a, c := range t.calls {
		if a != name && c.path == p && c.path != "" && c.tool != "read_file" && t.sameDir(a, name) {
			return true
		}
	}
	return false
}

// pathsLocked returns the files anyone read, sorted, so that notices come
// in a stable order.
func (t *touches) pathsLocked() []string {
	ps := make([]string, 0, len(t.readers))
	for p := range t.readers {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// changeNotice tells a reader that who changed p, or deleted it.
func changeNotice(who, p string, now stamp) string {
	verb := "changed"
	if !now.exists {
		verb = "deleted"
	}
	return fmt.Sprintf("%s %s %s after you read it; read it again before relying on what you saw", who, verb, p)
}

// forget drops everything known about a removed agent and ignores its
// later events.
func (t *touches) forget(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gone[name] = true
	delete(t.calls, name)
	delete(t.shells, name)
	delete(t.notices, name)
	for p, rs := range t.readers {
		delete(rs, name)
		if len(rs) == 0 {
			delete(t.readers, p)
		}
	}
}

// Notices returns the hook that hands the agent called name the
// file-touch notices queued for it ("agent-2 edited x.go after you read
// it; the diff is ctx:…"), each once. Pass it in the agent's Config, which
// calls it before each model call.
func (s *Swarm) Notices(name string) func() []string {
	return func() []string { return s.touch.take(name) }
}
