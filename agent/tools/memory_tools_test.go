package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeMemory is a MemoryStore that records saves and answers searches
// from a fixed list.
type fakeMemory struct {
	hits  []MemoryHit
	saved []string
	scope string
	err   error
}

func (f *fakeMemory) Search(_ context.Context, query, scope string, k int) ([]MemoryHit, error) {
	f.scope = scope
	if f.err != nil {
		return nil, f.err
	}
	return f.hits[:min(k, len(f.hits))], nil
}

func (f *fakeMemory) Save(_ context.Context, text, kind, scope string) (string, string, error) {
	if f.err != nil {
		return "", "", f.err
	}
	f.saved = append(f.saved, kind+"|"+scope+"|"+text)
	switch {
	case strings.Contains(text, "pnpm"):
		return "noop", "mem:000000000001", nil
	case strings.Contains(text, "port"):
		return "update", "mem:000000000002", nil
	case strings.Contains(text, "maybe"):
		return "pending", "cand:000000000003", nil
	}
	return "add", "mem:000000000004", nil
}

func TestMemoryTools(t *testing.T) {
	mem := &fakeMemory{hits: []MemoryHit{
		{ID: "mem:000000000001", Text: "use pnpm\ninstead of <npm>", Kind: "preference", Scope: "global", Source: "user", Score: 0.61},
		{ID: "mem:000000000002", Text: "the API server listens on port 9090", Kind: "correction", Scope: "project", Source: "tool", Score: 0.2},
	}}
	env := newEnv(t, nil)
	env.Memory = mem
	tests := []struct {
		tool    string
		args    string
		isError bool
		want    []string
	}{
		{"memory_search", `{"query":"package manager"}`, false, []string{
			`<memory_results query="package manager" n=2 note="hints, not evidence">`,
			"- [preference] use pnpm instead of ‹npm› (mem:000000000001, user, global, score 0.61)\n",
			"- [correction] the API server listens on port 9090 (mem:000000000002, tool, project, score 0.20)\n</memory_results>"}},
		{"memory_search", `{"query":"x","k":1,"scope":"project"}`, false, []string{"n=1"}},
		{"memory_search", `{"query":" "}`, true, []string{`"query" must not be empty`}},
		{"memory_search", `{"query":"x","k":50}`, true, []string{`"k" must be between 1 and 20`}},
		{"memory_search", `{"query":"x","scope":"team"}`, true, []string{`"scope" must be project, global or all`}},
		{"memory_save", `{"text":"The linter is golangci-lint."}`, false, []string{"saved as mem:000000000004 (project)"}},
		{"memory_save", `{"text":"use pnpm","kind":"preference","scope":"global"}`, false, []string{"already remembered as mem:000000000001"}},
		{"memory_save", `{"text":"the port is 9090","kind":"correction"}`, false, []string{"updated mem:000000000002"}},
		{"memory_save", `{"text":"maybe tabs","kind":"preference"}`, false, []string{"queued as cand:000000000003 for the user's approval"}},
		{"memory_save", `{"text":""}`, true, []string{`"text" must not be empty`}},
		{"memory_save", `{"text":"` + strings.Repeat("word ", 120) + `"}`, true, []string{"keep a memory under 500"}},
		{"memory_save", `{"text":"the deploy key is AKIAABCDEFGHIJKLMNOP"}`, true, []string{"secret"}},
		{"memory_save", `{"text":"x y","kind":"gossip"}`, true, []string{`unknown kind "gossip"`}},
		{"memory_save", `{"text":"x y","scope":"all"}`, true, []string{`"scope" must be project or global`}},
	}
	for _, tt := range tests {
		checkResult(t, call(t, env, tt.tool, tt.args), tt.isError, tt.want...)
	}
	if mem.scope != "project" {
		t.Errorf("search scope sent %q, want project", mem.scope)
	}
	want := []string{"note|project|The linter is golangci-lint.", "preference|global|use pnpm",
		"correction|project|the port is 9090", "preference|project|maybe tabs"}
	if strings.Join(mem.saved, "\n") != strings.Join(want, "\n") {
		t.Errorf("saved %q, want %q", mem.saved, want)
	}

	// A store failure is an infrastructure error, not a model mistake.
	mem.err = errors.New("disk full")
	if _, err := mustTool(t, "memory_search").Run(context.Background(), env, []byte(`{"query":"x"}`)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("memory_search store error: %v", err)
	}
	if _, err := mustTool(t, "memory_save").Run(context.Background(), env, []byte(`{"text":"x y"}`)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("memory_save store error: %v", err)
	}

	// Without memory both tools say it is off.
	env.Memory = nil
	checkResult(t, call(t, env, "memory_search", `{"query":"x"}`), true, "memory is off")
	checkResult(t, call(t, env, "memory_save", `{"text":"x y"}`), true, "memory is off")
}

// mustTool returns the tool called name.
func mustTool(t *testing.T, name string) Tool {
	t.Helper()
	tool, ok := ByName(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tool
}
