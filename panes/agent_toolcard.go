package panes

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/kwsdev/kws/termsafe"
)

// toolMainArgs names, per tool, the arguments a card shows, the main one
// first: the command a shell runs, the file a file tool touches, what a
// search looks for. A tool not listed, or a call without its main
// argument, shows its arguments as compact JSON.
var toolMainArgs = map[string][]string{
	"shell":            {"command"},
	"read_file":        {"path"},
	"write_file":       {"path"},
	"edit_file":        {"path"},
	"list_files":       {"path", "pattern"},
	"grep":             {"pattern", "path"},
	"ctx_get":          {"id"},
	"ctx_search":       {"query"},
	"memory_search":    {"query"},
	"memory_save":      {"text"},
	"context_for_task": {"task"},
	"tool_expand":      {"names"},
	"agent_send":       {"to", "text"},
	"todo":             {"action", "id", "text"},
	"web_fetch":        {"url"},
}

// maxCardArgs bounds the arguments a card's head shows, in bytes.
const maxCardArgs = 400

// toolHead is what a tool card shows after the tool's name: its main
// arguments, two spaces apart ("ls -la" for shell), or the compact JSON of
// the arguments. Collapsed it is one line without escape sequences, cut at
// maxCardArgs bytes; full keeps it whole, lines and all, for the expanded
// card (whose wrapping strips escapes).
func toolHead(tool, args string, full bool) string {
	s := mainArgs(tool, args)
	if s == "" {
		s = compactJSON(args)
	}
	if full {
		return strings.TrimSpace(s)
	}
	s = strings.TrimSpace(termsafe.OneLine(s))
	if len(s) > maxCardArgs {
		s = strings.ToValidUTF8(s[:maxCardArgs], "") + "…"
	}
	return s
}

// mainArgs returns the tool's main arguments found in args, or "" when
// the tool is unknown, args is not a JSON object or lacks the main one.
func mainArgs(tool, args string) string {
	keys, ok := toolMainArgs[tool]
	if !ok {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil {
		return ""
	}
	var parts []string
	for i, k := range keys {
		v := argText(obj[k])
		if v == "" {
			if i == 0 {
				return ""
			}
			continue
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "  ")
}

// argText shows one argument: a string as it is, anything else as
// compact JSON; "" for a missing, null or empty one.
func argText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return compactJSON(string(raw))
}

// otherArgs reports whether args holds arguments the card's head leaves
// out, which the expanded card shows as JSON.
func otherArgs(tool, args string) bool {
	if mainArgs(tool, args) == "" {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil {
		return false
	}
	for k := range obj {
		shown := false
		for _, m := range toolMainArgs[tool] {
			shown = shown || k == m
		}
		if !shown {
			return true
		}
	}
	return false
}

// compactJSON returns JSON text without insignificant spaces, or s as it
// is when it is not JSON.
func compactJSON(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}
