package replay

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoadNamesEachObservationsSource(t *testing.T) {
	conv, err := Load(filepath.Join(fixtures, "marshmallow-1867-default.traj"))
	if err != nil {
		t.Fatal(err)
	}
	if got := conv.Messages[13].Source; got != "python reproduce.py" {
		t.Errorf("SWE-agent observation 13: source %q", got)
	}
	if conv.Messages[0].Source != "" || conv.Messages[1].Source != "" || conv.Messages[12].Source != "" {
		t.Error("the system prompt, the task or an action has a source")
	}
	chat := `{"messages": [
	  {"role": "user", "content": "count"},
	  {"role": "assistant", "content": null, "tool_calls": [
	    {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{\"command\": \"seq 1 5\"}"}},
	    {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a.go\"}"}}]},
	  {"role": "tool", "tool_call_id": "c2", "content": "package a"},
	  {"role": "tool", "tool_call_id": "c1", "content": "1\n2\n3\n4\n5"}]}`
	path := filepath.Join(t.TempDir(), "chat.json")
	if err := os.WriteFile(path, []byte(chat), 0o600); err != nil {
		t.Fatal(err)
	}
	conv, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Messages[2].Source != "read_file a.go" || conv.Messages[3].Source != "seq 1 5" {
		t.Errorf("tool sources %q, %q", conv.Messages[2].Source, conv.Messages[3].Source)
	}
}
