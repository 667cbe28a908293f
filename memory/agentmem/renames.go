package agentmem

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kwsdev/kws/agent"
	"github.com/kwsdev/kws/memory"
)

// Confidence of a rename seen in a shell command: git mv renames tracked
// files and is promoted; a plain mv as often moves scratch files, a
// rename in an agent's own worktree is not on the main branch yet, and a
// bare word may name other things, so those wait in the approval queue.
const (
	gitMvConfidence = 0.75
	mvConfidence    = 0.5
)

// renameCheck is a rename a shell command asks for, with its paths as they
// were before the command ran.
type renameCheck struct {
	r                                  memory.Rename
	oldBefore, newBefore, newDirBefore bool
	insideBefore                       bool // New/base(Old) existed
}

// exitCodeRE finds the exit code line of a shell tool result.
var exitCodeRE = regexp.MustCompile(`(?m)^EXIT CODE: (-?\d+)$`)

// Watch returns an event handler that learns from the agent's tool
// activity, then passes each event on to next: a shell command that
// succeeded and renamed files proposes each rename, and promotion then
// rewrites the memories that name the old path. The paths are looked at
// when the command is called and when its result comes, so only a rename
// that happened counts: the old path existed and is gone, and the new one
// is new (or is a directory that got the old entry).
func (m *Memory) Watch(next func(agent.Event)) func(agent.Event) {
	return func(e agent.Event) {
		switch {
		case e.Type == agent.EvToolCall && e.Tool == "shell":
			m.beforeShell(e.CallID, e.Args)
		case e.Type == agent.EvToolResult && e.Tool == "shell":
			m.afterShell(e)
		}
		if next != nil {
			next(e)
		}
	}
}

// beforeShell notes the state of the paths a shell command would rename.
func (m *Memory) beforeShell(callID, args string) {
	var a struct {
		Command string `json:"command"`
	}
	m.checksMu.Lock()
	defer m.checksMu.Unlock()
	m.checks, m.checkCall = nil, callID
	if m.dir == "" || json.Unmarshal([]byte(args), &a) != nil {
		return
	}
	for _, r := range memory.RenamesIn(a.Command) {
		c := renameCheck{r: r, oldBefore: m.exists(r.Old), newBefore: m.exists(r.New)}
		c.newDirBefore = m.isDir(r.New)
		c.insideBefore = m.exists(path.Join(r.New, path.Base(r.Old)))
		m.checks = append(m.checks, c)
	}
}

// afterShell promotes, in the background, the renames a shell command that
// succeeded did.
func (m *Memory) afterShell(e agent.Event) {
	m.checksMu.Lock()
	checks := m.checks
	if m.checkCall != e.CallID {
		checks = nil
	}
	m.checks, m.checkCall = nil, ""
	m.checksMu.Unlock()
	codes := exitCodeRE.FindAllStringSubmatch(e.Text, -1)
	if len(checks) == 0 || e.IsError || len(codes) == 0 || codes[len(codes)-1][1] != "0" {
		return
	}
	var done []memory.Rename
	for _, c := range checks {
		r := c.r
		if !c.oldBefore || m.exists(r.Old) {
			continue
		}
		switch inside := path.Join(r.New, path.Base(r.Old)); {
		case !c.newBefore && m.exists(r.New):
		case c.newDirBefore && !c.insideBefore && m.exists(inside):
			r.New = inside
		default:
			continue // it replaced a file, or did not happen
		}
		done = append(done, r)
	}
	if len(done) > 0 {
		m.promoteRenames(done, e.Preview, e.Text)
	}
}

// promoteRenames promotes renames in the background, the command and its
// output kept in the vault as their provenance.
func (m *Memory) promoteRenames(rs []memory.Rename, command, output string) {
	turn := int(m.turn.Load())
	m.pending.Add(1)
	go func() {
		defer m.pending.Done()
		ctx := context.Background()
		prov := memory.Provenance{Session: m.session, Turn: turn, Source: memory.SourceTool}
		if id, err := m.keep("shell", "$ "+command+"\n"+output, turn); err == nil {
			prov.VaultIDs = []string{id}
		}
		for _, r := range rs {
			conf := mvConfidence
			// A bare word ("git mv test tests") is as likely to name
			// something else in a memory ("make test"): it waits too.
			if r.Git && m.dir == m.workspace && strings.ContainsAny(r.Old, "/.") {
				conf = gitMvConfidence
			}
			if act, mem, err := m.store.Promote(ctx, memory.RenameCandidate(r, conf), m.project, prov); err != nil {
				m.log.Warn("memory: promotion failed", "error", err)
			} else {
				m.log.Info("memory", "action", act, "id", mem.ID, "rename", r.Old+" → "+r.New)
			}
		}
	}()
}

// exists reports whether p exists in the agent's directory.
func (m *Memory) exists(p string) bool {
	_, err := os.Lstat(filepath.Join(m.dir, filepath.FromSlash(p)))
	return err == nil
}

// isDir reports whether p is a directory in the agent's directory.
func (m *Memory) isDir(p string) bool {
	fi, err := os.Stat(filepath.Join(m.dir, filepath.FromSlash(p)))
	return err == nil && fi.IsDir()
}
