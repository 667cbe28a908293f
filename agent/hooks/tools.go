package hooks

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"

	"github.com/kwsdev/kws/agent/tools"
)

// claudeTools maps each of Claude Code's tool names that has a kws
// equivalent to that kws tool, so that a matcher copied from Claude Code's
// settings ("Bash", "Edit|Write") matches kws's calls.
var claudeTools = map[string]string{
	"Bash": "shell", "Read": "read_file", "Write": "write_file", "Edit": "edit_file", "MultiEdit": "edit_file",
	"Grep": "grep", "Glob": "list_files", "LS": "list_files", "WebFetch": "web_fetch",
}

// claudeNames returns Claude Code's names for the kws tool, sorted.
func claudeNames(tool string) []string {
	var out []string
	for _, claude := range slices.Sorted(maps.Keys(claudeTools)) {
		if claudeTools[claude] == tool {
			out = append(out, claude)
		}
	}
	return out
}

// ToolInput is a call's arguments as a hook reads them in tool_input:
// kws's own, with Claude Code's names added where they differ, so that a
// Claude Code script finds what it reads. The shell's command is command
// in both; timeout_sec is also timeout (in milliseconds, as Claude Code's
// Bash takes it) and background run_in_background; a file tool's path is
// also file_path, absolute in dir (an edit's old_string, new_string and
// replace_all, and a write's content, have Claude Code's names already);
// read_file's start_line and end_line are also offset and limit; grep's
// ignore_case is also -i. Arguments that are not a JSON object are
// handed over as {"arguments": "…"}.
func ToolInput(tool, dir, args string) map[string]any {
	in := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader([]byte(args)))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil || in == nil {
		return map[string]any{"arguments": args}
	}
	switch tool {
	case "shell":
		if n, ok := number(in["timeout_sec"]); ok {
			in["timeout"] = n * 1000
		}
		if b, ok := in["background"].(bool); ok {
			in["run_in_background"] = b
		}
	case "read_file":
		start, okStart := number(in["start_line"])
		end, okEnd := number(in["end_line"])
		if okStart {
			in["offset"] = start
		}
		if okStart && okEnd && end >= start {
			in["limit"] = end - start + 1
		}
	case "grep":
		if b, ok := in["ignore_case"].(bool); ok {
			in["-i"] = b
		}
	}
	if p, ok := in["path"].(string); ok && p != "" && isFileTool(tool) {
		in["file_path"] = absIn(dir, p)
	}
	return in
}

// ToolResponse is a call's result as a PostToolUse hook reads it in
// tool_response: output (the text the model reads), is_error and success,
// what the tool adds in Claude Code's names (the shell's stdout, stderr,
// exit_code and interrupted), and a file tool's filePath.
func ToolResponse(tool, dir, args string, res tools.Result) map[string]any {
	out := map[string]any{"output": res.Text, "is_error": res.IsError, "success": !res.IsError}
	maps.Copy(out, res.Response)
	if isFileTool(tool) {
		if p, ok := ToolInput(tool, dir, args)["file_path"]; ok {
			out["filePath"] = p
		}
	}
	return out
}

// isFileTool reports whether tool's path argument names one file.
func isFileTool(tool string) bool {
	return tool == "read_file" || tool == "write_file" || tool == "edit_file"
}

// absIn is path made absolute in dir.
func absIn(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}

// number reads a JSON number as an integer.
func number(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}
