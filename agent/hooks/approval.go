package hooks

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/internal/shellwords"
	"github.com/kwsdev/kws/internal/trust"
)

// trustName is the workspace hooks' name in the trust record, where MCP
// servers go by theirs; no server may be named so.
const trustName = "[hooks]"

// Approved reports whether the user approved the workspace's hooks in h,
// as they are now in dir (the workspace or an agent's worktree of it), for
// workspace; changed says an earlier form of them was approved. A config
// without workspace hooks needs no approval.
//
// The approval covers every workspace hook at once, pinned to their
// events, matchers, commands and timeouts and to the contents of the files
// their command lines name in the workspace (the scripts agents could
// edit): any change needs a new approval, as a workspace MCP server's does.
func Approved(rec *trust.Record, workspace, dir string, h config.Hooks) (ok, changed bool, err error) {
	ws := h.Workspace()
	if len(ws) == 0 {
		return true, false, nil
	}
	return rec.Trusted(workspace, trustName, pin(dir, ws))
}

// Approve records the user's approval of the workspace's hooks in h, as
// they are now in workspace.
func Approve(rec *trust.Record, workspace string, h config.Hooks) error {
	ws := h.Workspace()
	return rec.Approve(workspace, trustName, pin(workspace, ws), Describe(ws))
}

// Describe lists hooks as the user approves them: one line per command,
// "EVENT [matcher]: command (timeout)".
func Describe(h config.Hooks) string {
	var lines []string
	for _, event := range slices.Sorted(maps.Keys(h)) {
		for _, m := range h[event] {
			head := event
			if !m.MatchAll() {
				head += " [" + m.Matcher + "]"
			}
			for _, c := range m.Hooks {
				lines = append(lines, fmt.Sprintf("%s: %s (timeout %s)", head, c.Command, c.TimeoutOrDefault()))
			}
		}
	}
	return strings.Join(lines, "\n")
}

// pin is the hash an approval of hooks holds, as they run in dir.
func pin(dir string, h config.Hooks) string {
	var files [][2]string
	for _, event := range slices.Sorted(maps.Keys(h)) {
		for _, m := range h[event] {
			for _, c := range m.Hooks {
				files = append(files, commandFiles(dir, c.Command)...)
			}
		}
	}
	return trust.Hash(struct {
		Hooks config.Hooks
		Files [][2]string
	}{h, files})
}

// commandFiles are what a hook command line runs: its program (by path,
// found on the PATH when it names none) and every word of it that names a
// file in dir, by its path in dir and the hash of its contents. The
// project dir's variables read as dir.
func commandFiles(dir, line string) [][2]string {
	words, _ := shellwords.Split(line)
	var files [][2]string
	for i, w := range words {
		w = os.Expand(w, func(name string) string {
			if name == "CLAUDE_PROJECT_DIR" || name == "KWS_PROJECT_DIR" {
				return dir
			}
			return "${" + name + "}"
		})
		path := w
		if i == 0 {
			if path = trust.ProgramPath(dir, w); path == "" {
				continue
			}
		} else if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if !trust.Within(path, dir) {
			if i == 0 {
				files = append(files, [2]string{path, "program"})
			}
			continue
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			rel = path
		}
		files = append(files, [2]string{rel, trust.FileHash(path)})
	}
	return files
}
