package tools

import (
	"bytes"
	"encoding/json"
	"strings"
)

// mainArgs names, per tool, the arguments a card shows, the main one
// first: the command a shell runs, the file a file tool touches, what a
// search looks for. A tool not listed, or a call without its main
// argument, shows its arguments as compact JSON.
var mainArgs = map[string][]string{
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
	"skill":            {"name", "args"},
}

// MainArgs returns the tool's main arguments found in args, two spaces
// apart ("ls -la" for shell, "path" for read_file), or "" when the tool is
// unknown, args is not a JSON object or lacks the main one. Tool cards,
// kws run's log and approval questions show a call this way.
func MainArgs(tool, args string) string {
	keys, ok := mainArgs[tool]
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
	return CompactJSON(string(raw))
}

// CallSummary is MainArgs, or the compact JSON of args when MainArgs has
// nothing to show.
func CallSummary(tool, args string) string {
	if s := MainArgs(tool, args); s != "" {
		return s
	}
	return CompactJSON(args)
}

// OtherArgs reports whether args holds arguments MainArgs leaves out.
func OtherArgs(tool, args string) bool {
	if MainArgs(tool, args) == "" {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil {
		return false
	}
	for k := range obj {
		shown := false
		for _, m := range mainArgs[tool] {
			shown = shown || k == m
		}
		if !shown {
			return true
		}
	}
	return false
}

// CompactJSON returns JSON text without insignificant spaces, or s as it
// is when it is not JSON.
func CompactJSON(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}
