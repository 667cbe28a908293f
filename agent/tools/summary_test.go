package tools

import "testing"

// TestCallSummary checks a call is shown by its main arguments (the
// command, the path, the skill's name and arguments), and as compact JSON
// for a tool without a known main argument or a call lacking it.
func TestCallSummary(t *testing.T) {
	for _, tc := range []struct{ tool, args, want string }{
		{"shell", `{"command": "ls -la", "timeout_sec": 5}`, "ls -la"},
		{"read_file", `{"path": "a/b.go"}`, "a/b.go"},
		{"grep", `{"pattern": "TODO", "path": "src"}`, "TODO  src"},
		{"skill", `{"name": "review", "args": "main.go"}`, "review  main.go"},
		{"skill", `{"name": "review"}`, "review"},
		{"web_fetch", `{"url": "https://go.dev"}`, "https://go.dev"},
		{"shell", `{"cmd": "ls"}`, `{"cmd":"ls"}`},
		{"mystery", `{"a": 1,  "b": [1, 2]}`, `{"a":1,"b":[1,2]}`},
		{"shell", `not json`, `not json`},
	} {
		if got := CallSummary(tc.tool, tc.args); got != tc.want {
			t.Errorf("CallSummary(%s, %s) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
	if !OtherArgs("shell", `{"command": "ls", "timeout_sec": 5}`) || OtherArgs("shell", `{"command": "ls"}`) {
		t.Error("OtherArgs does not tell a call with more than its main argument")
	}
}
