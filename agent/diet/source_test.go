package diet

import (
	"strings"
	"testing"
)

func TestCallSource(t *testing.T) {
	for _, tc := range []struct{ name, args, want string }{
		{"shell", `{"command": "seq 1 100000"}`, "seq 1 100000"},
		{"bash", `{"command": "pytest -x", "timeout": 60}`, "pytest -x"},
		{"read_file", `{"path": "src/app.py", "start_line": 3}`, "read_file src/app.py"},
		{"context_for_task", `{"task": "fix", "paths": ["a.go", "b.go"]}`, "context_for_task a.go b.go"},
		{"grep", `{"pattern": "TODO"}`, "grep TODO"},
		{"todo", `{"items": []}`, "todo"},
		{"todo", `not json`, "todo"},
	} {
		if got := CallSource(tc.name, tc.args); got != tc.want {
			t.Errorf("CallSource(%s, %s) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

// TestSourceBecomesTheBlocksCommand stores a tool output with its source:
// the block's command is the source's first line, secrets redacted.
func TestSourceBecomesTheBlocksCommand(t *testing.T) {
	s, v := newState(t, Defaults())
	out := strings.Repeat("12345\n", 200)
	s.Add(Message{Role: "user", Content: "count"},
		Message{Role: "tool", Kind: "tool", Content: out, Source: "seq 1 100000"},
		Message{Role: "tool", Kind: "tool", Content: out + "x", Source: "edit 3:4\nbody line\nend_of_edit"},
		Message{Role: "tool", Kind: "tool", Content: out + "y", Source: "curl -H 'Authorization: Bearer sk-abcdefghijklmnopqrstuvwxyz0123456789' https://x"})
	if _, err := s.Build(); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"seq": "seq 1 100000", "edit": "edit 3:4 …", "curl": ""} {
		hits, err := v.Search(q, 1)
		if err != nil || len(hits) != 1 {
			t.Fatalf("search %q: %v %v", q, hits, err)
		}
		cmd := hits[0].Meta.Command
		if want != "" && cmd != want || strings.Contains(cmd, "sk-abcdef") || !strings.Contains(hits[0].Meta.Summary, "cmd=") {
			t.Errorf("search %q: command %q, summary %q", q, cmd, hits[0].Meta.Summary)
		}
	}
}
