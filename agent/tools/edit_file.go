package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

//go:embed edit_file.md
var editFileDoc string

type editFileTool struct{ spec }

type editFileArgs struct {
	Path       string  `json:"path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
}

func newEditFile() Tool {
	return editFileTool{spec{name: "edit_file", doc: editFileDoc, access: Writes, schema: `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "file path relative to the workspace root"},
    "old_string": {"type": "string", "description": "exact text to replace, including whitespace; must occur exactly once unless replace_all"},
    "new_string": {"type": "string", "description": "replacement text (may be empty to delete)"},
    "replace_all": {"type": "boolean", "description": "replace every occurrence (default false)"}
  },
  "required": ["path", "old_string", "new_string"],
  "additionalProperties": false
}`}}
}

// editPlan is a planned edit: the write plus where and how often.
type editPlan struct {
	filePlan
	count int // occurrences replaced
	line  int // line of the first replacement, from 1
}

// plan validates the arguments and computes the edited content.
func (editFileTool) plan(env *Env, raw []byte) (editPlan, *Result, error) {
	var a editFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		r := errResult("edit_file: %v", err)
		return editPlan{}, &r, nil
	}
	bad := func(format string, args ...any) (editPlan, *Result, error) {
		r := errResult("edit_file: "+format, args...)
		return editPlan{}, &r, nil
	}
	switch {
	case a.OldString == nil || *a.OldString == "":
		return bad(`"old_string" is required and must not be empty; use write_file to create a file`)
	case a.NewString == nil:
		return bad(`"new_string" is required (use "" to delete old_string)`)
	case *a.OldString == *a.NewString:
		return bad(`"old_string" and "new_string" are identical; nothing to change`)
	}
	p, r, err := loadTarget("edit_file", env, a.Path)
	if r != nil || err != nil {
		return editPlan{}, r, err
	}
	if !p.existed {
		return bad("%s does not exist; use write_file to create it", p.rel)
	}
	if isBinary([]byte(p.old)) {
		return bad("%s is a binary file", p.rel)
	}
	old, repl := *a.OldString, *a.NewString
	n := strings.Count(p.old, old)
	if !a.ReplaceAll && n == 1 && overlapping(p.old, old) {
		n = 2
	}
	switch {
	case n == 0:
		return bad("old_string not found in %s; it must match exactly, including whitespace and indentation (read_file shows the current text)", p.rel)
	case n > 1 && !a.ReplaceAll:
		return bad("old_string occurs %d times in %s; include more surrounding lines to make it unique, or set replace_all", n, p.rel)
	}
	at := strings.Index(p.old, old)
	ep := editPlan{filePlan: p, count: n, line: strings.Count(p.old[:at], "\n") + 1}
	if a.ReplaceAll {
		ep.new = strings.ReplaceAll(p.old, old, repl)
	} else {
		ep.new = p.old[:at] + repl + p.old[at+len(old):]
	}
	return ep, nil, nil
}

// Preview returns the unified diff of the edit.
func (t editFileTool) Preview(env *Env, raw []byte) (string, error) {
	return previewOf(t.plan(env, raw))
}

// Run applies the edit.
func (t editFileTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	p, bad, err := t.plan(env, raw)
	if bad != nil || err != nil {
		return deref(bad), err
	}
	res := Result{Preview: p.diff()}
	if err := p.apply(); err != nil {
		return pathError(p.rel, fmt.Errorf("edit_file: %w", err))
	}
	added, removed := diffStat(res.Preview)
	res.Text = fmt.Sprintf("edited %s: replaced %s, first at line %d (+%d -%d lines)",
		p.rel, plural(p.count, "occurrence"), p.line, added, removed)
	res.Changed = []string{p.rel}
	return res, nil
}

// diffStat counts the added and removed lines of a unified diff.
func diffStat(d string) (added, removed int) {
	inHunks := false
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunks = true
		case !inHunks:
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// overlapping reports whether s matches sub at two positions that overlap
// (strings.Count counts only non-overlapping matches, so "}\n}\n" in
// "}\n}\n}\n" counts once although the edit would be ambiguous).
func overlapping(s, sub string) bool {
	i := strings.Index(s, sub)
	if i < 0 || sub == "" {
		return false
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	return strings.Contains(s[i+size:], sub)
}
