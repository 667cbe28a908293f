package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newEnv returns an Env rooted in a fresh, symlink-resolved temp dir
// holding files (slash path → content).
func newEnv(t *testing.T, files map[string]string) *Env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, files)
	return &Env{Workspace: root, Todo: &TodoList{}}
}

// writeFiles creates files under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs the named tool with args (a JSON string or a value to encode)
// and fails the test on a Go error.
func call(t *testing.T, env *Env, name string, args any) Result {
	t.Helper()
	tool, ok := ByName(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	raw, isString := args.(string)
	var msg json.RawMessage
	if isString {
		msg = json.RawMessage(raw)
	} else {
		msg = mustJSON(t, args)
	}
	res, err := tool.Run(context.Background(), env, msg)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, msg, err)
	}
	return res
}

// readFile returns the content of a workspace file.
func readFile(t *testing.T, env *Env, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Workspace, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkResult fails unless res has the wanted error flag and contains
// every want string.
func checkResult(t *testing.T, res Result, isError bool, want ...string) {
	t.Helper()
	if res.IsError != isError {
		t.Errorf("IsError = %v, want %v; text:\n%s", res.IsError, isError, res.Text)
	}
	for _, w := range want {
		if !strings.Contains(res.Text, w) {
			t.Errorf("result lacks %q; text:\n%s", w, res.Text)
		}
	}
}
