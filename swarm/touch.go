package swarm

import (
	"encoding/json"
	"fmt"
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
// events, and queues a notice for every reader when another agent edits
// a file it read. read_file and edit_file count as reads; a successful
// edit_file or write_file is an edit, after which the editor counts as a
// reader of what it wrote.
type touches struct {
	vault Vault

	mu sync.Mutex
	// calls holds each agent's file tool call waiting for its result; an
	// agent runs one tool at a time.
	calls map[string]fileCall
	// readers maps a workspace-relative path to the agents that read it.
	readers map[string]map[string]bool
	// notices holds each agent's notices until its next model call.
	notices map[string][]string
	// gone holds removed agents, whose late events are ignored; names
	// are never reused.
	gone map[string]bool
}

// fileCall is one read_file, edit_file or write_file call.
type fileCall struct {
	id, tool, path string
}

func newTouches(v Vault) *touches {
	return &touches{vault: v, calls: map[string]fileCall{}, readers: map[string]map[string]bool{},
		notices: map[string][]string{}, gone: map[string]bool{}}
}

// observe takes one event of the agent called name.
func (t *touches) observe(name string, e agent.Event) {
	switch e.Type {
	case agent.EvToolCall:
		p := callPath(e.Tool, e.Args)
		t.mu.Lock()
		if p == "" || t.gone[name] {
			delete(t.calls, name)
		} else {
			t.calls[name] = fileCall{id: e.CallID, tool: e.Tool, path: p}
		}
		t.mu.Unlock()
	case agent.EvToolResult:
		t.mu.Lock()
		c, ok := t.calls[name]
		if ok && c.id == e.CallID {
			delete(t.calls, name)
		}
		t.mu.Unlock()
		if !ok || c.id != e.CallID || e.IsError {
			return
		}
		if c.tool == "read_file" {
			t.read(name, c.path)
			return
		}
		t.edited(name, c, e)
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

// read notes that name has read p.
func (t *touches) read(name, p string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.readLocked(name, p)
}

func (t *touches) readLocked(name, p string) {
	rs := t.readers[p]
	if rs == nil {
		rs = map[string]bool{}
		t.readers[p] = rs
	}
	rs[name] = true
}

// edited queues a notice for every other reader of the file name changed
// and makes name a reader of what it wrote. The diff is kept in the vault
// only when someone is to be told.
func (t *touches) edited(name string, c fileCall, e agent.Event) {
	t.mu.Lock()
	var readers []string
	for r := range t.readers[c.path] {
		if r != name {
			readers = append(readers, r)
		}
	}
	t.readLocked(name, c.path)
	t.mu.Unlock()
	if len(readers) == 0 {
		return
	}
	sort.Strings(readers)
	verb := "edited"
	if c.tool == "write_file" {
		verb = "wrote"
	}
	notice := fmt.Sprintf("%s %s %s after you read it; read it again before relying on what you saw", name, verb, c.path)
	if id := t.keep(name, c.path, e); id != "" {
		notice = fmt.Sprintf("%s %s %s after you read it; the diff is %s (ctx_get it to see the change)", name, verb, c.path, id)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range readers {
		t.notices[r] = append(t.notices[r], notice)
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

// take returns and forgets the notices waiting for name.
func (t *touches) take(name string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.notices[name]
	delete(t.notices, name)
	return out
}

// forget drops everything known about a removed agent and ignores its
// later events.
func (t *touches) forget(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gone[name] = true
	delete(t.calls, name)
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
