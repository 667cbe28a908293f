package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestTaskTerms(t *testing.T) {
	tests := []struct {
		task string
		want []string
	}{
		{"Fix the ParseRefs bug in vault", []string{"parserefs", "parse", "refs", "bug", "vault"}},
		{"parseHTTPRequest_v2 fails", []string{"parsehttprequest_v2", "parse", "http", "request", "fails"}},
		{"the and for with", nil},
		{"ctx_get returns ErrNotFound", []string{"ctx_get", "ctx", "get", "returns", "errnotfound", "err", "found"}},
	}
	for _, tt := range tests {
		if got := taskTerms(tt.task); !slices.Equal(got, tt.want) {
			t.Errorf("taskTerms(%q) = %v, want %v", tt.task, got, tt.want)
		}
	}
}

func TestContextForTask(t *testing.T) {
	var filler strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&filler, "// unrelated line %d\n", i)
	}
	env := newEnv(t, map[string]string{
		".gitignore":         "ignored/\n",
		"vault/ref.go":       "package vault\n\n// ParseRefs parses references.\nfunc ParseRefs(text string) []Ref {\n\treturn nil\n}\n" + filler.String() + "func tail() { ParseRefs(\"\") }\n",
		"vault/ref_test.go":  "package vault\n\nfunc TestParseRefs(t *testing.T) { ParseRefs(\"x\") }\n",
		"agent/loop.go":      "package agent\n\nfunc loop() { vault.ParseRefs(s) }\n",
		"docs/readme.md":     "# Docs\n\nNothing about it.\n",
		"ignored/ref.go":     "ParseRefs ParseRefs ParseRefs ParseRefs\n",
		"blob.bin":           "ParseRefs\x00",
		"vault/unrelated.go": "package vault\n\nfunc other() {}\n",
	})
	res := call(t, env, "context_for_task", `{"task":"ParseRefs drops the last reference in vault"}`)
	checkResult(t, res, false,
		"task terms: parserefs, parse, refs, drops, last, reference, vault",
		"== vault/ref.go (score",
		"outline:\nL1: package vault\nL4: func ParseRefs(text string) []Ref\n",
		"   4| func ParseRefs(text string) []Ref {",
		"   …\n",
		" 407| func tail() { ParseRefs(\"\") }",
		"== vault/ref_test.go",
		"== agent/loop.go",
	)
	for _, bad := range []string{"ignored/ref.go", "blob.bin", "unrelated line 200"} {
		if strings.Contains(res.Text, bad) {
			t.Errorf("answer contains %q:\n%s", bad, res.Text)
		}
	}
	if i, j := strings.Index(res.Text, "== vault/ref.go"), strings.Index(res.Text, "== agent/loop.go"); i > j {
		t.Errorf("vault/ref.go should rank above agent/loop.go:\n%s", res.Text)
	}
}

// TestContextForTaskPaths checks paths narrows the files looked at to
// the given folders and files, counts a file named twice once, and refuses
// a path outside the workspace.
func TestContextForTaskPaths(t *testing.T) {
	env := newEnv(t, map[string]string{
		"vault/ref.go":  "package vault\n\nfunc ParseRefs() {}\n",
		"agent/loop.go": "package agent\n\nfunc loop() { vault.ParseRefs() }\n",
		"docs/refs.md":  "ParseRefs is documented here.\n",
	})
	res := call(t, env, "context_for_task", `{"task":"ParseRefs", "paths":["agent", "docs/refs.md", "agent/loop.go"]}`)
	checkResult(t, res, false, "== agent/loop.go", "== docs/refs.md")
	if strings.Contains(res.Text, "vault/ref.go") || strings.Count(res.Text, "== agent/loop.go") != 1 {
		t.Errorf("paths did not narrow the search to agent/ and docs/refs.md, once each:\n%s", res.Text)
	}
	for _, bad := range []string{`"../outside"`, `"/etc"`, `"nosuch"`} {
		if res := call(t, env, "context_for_task", `{"task":"ParseRefs", "paths":[`+bad+`]}`); !res.IsError || !strings.Contains(res.Text, "paths:") {
			t.Errorf("paths %s: %+v, want an error", bad, res)
		}
	}
}

func TestContextForTaskBudget(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		var b strings.Builder
		for j := 0; j < 200; j++ {
			fmt.Fprintf(&b, "func widget%d_%d() { renderWidget() }\n", i, j)
		}
		files[fmt.Sprintf("pkg%02d/widget.go", i)] = "package p\n\n" + b.String()
	}
	env := newEnv(t, files)
	for _, budget := range []int{1024, 4096, 24 << 10} {
		res := call(t, env, "context_for_task", map[string]any{"task": "renderWidget widget", "budget_bytes": budget})
		if res.IsError || len(res.Text) > budget+100 {
			t.Errorf("budget %d: %d bytes, IsError %v", budget, len(res.Text), res.IsError)
		}
		if !strings.Contains(res.Text, "== pkg") {
			t.Errorf("budget %d: no file section:\n%s", budget, res.Text)
		}
	}
}

func TestContextForTaskErrors(t *testing.T) {
	env := newEnv(t, map[string]string{"a.go": "package a\n"})
	tests := []struct {
		args    string
		isError bool
		want    string
	}{
		{`{"task":"the and"}`, true, "no searchable words"},
		{`{"task":"zebra giraffe"}`, false, "no files mention the task terms (zebra, giraffe) among 1 files scanned"},
		{`{"task":"x","budget_bytes":10}`, true, `"budget_bytes" must be between 1024 and 262144`},
		{`{}`, true, "no searchable words"},
	}
	for _, tt := range tests {
		checkResult(t, call(t, env, "context_for_task", tt.args), tt.isError, tt.want)
	}
}

func TestContextForTaskRanking(t *testing.T) {
	use := "package p\n\nfunc a() { Frobnicate(); Frobnicate(); Frobnicate() }\n"
	env := newEnv(t, map[string]string{
		"p/define.go":      "package p\n\n// Frobnicate does it.\nfunc Frobnicate() {}\n",
		"p/use.go":         use,
		"p/define_test.go": "package p\n\nfunc TestFrobnicate(t *testing.T) { Frobnicate(); Frobnicate(); Frobnicate(); Frobnicate() }\n",
	})
	order := func(task string) []string {
		r, err := rankFiles(t.Context(), env.Workspace, []string{env.Workspace}, taskTerms(task), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range r.cands {
			got = append(got, c.rel)
		}
		return got
	}
	if got := order("Frobnicate is slow"); len(got) != 3 || got[0] != "p/define.go" {
		t.Errorf("ranking %v: the definition should lead", got)
	}
	if got := order("Frobnicate test fails"); got[0] != "p/define_test.go" {
		t.Errorf("ranking %v: a task about tests should favour the test", got)
	}
}

func TestIsTestPath(t *testing.T) {
	tests := map[string]bool{
		"a/b_test.go": true, "test_x.py": true, "x_test.py": true, "src/a.test.ts": true,
		"a.spec.js": true, "m_spec.rb": true, "tests/helper.py": true, "pkg/testdata/in.txt": true,
		"a/b.go": false, "contest.py": false, "latest/x.go": false, "attestation.rb": false,
	}
	for p, want := range tests {
		if got := isTestPath(p); got != want {
			t.Errorf("isTestPath(%q) = %v", p, got)
		}
	}
}
