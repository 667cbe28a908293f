package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	var many strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&many, "match %d\n", i)
	}
	env := newEnv(t, map[string]string{
		".gitignore":       "gen/\n",
		"main.go":          "package main\n\nfunc main() {\n\tHandleRequest()\n}\n",
		"server/handle.go": "package server\n\n// HandleRequest serves.\nfunc HandleRequest() {}\n",
		"server/README.md": "handlerequest docs\n",
		"gen/out.go":       "func HandleRequest() {}\n",
		"bin.dat":          "HandleRequest\x00\x01",
		"ctx.txt":          "a\nb\nc\nTARGET\nd\ne\nf\ng\nh\nTARGET\ni\n",
		"many.txt":         many.String(),
		"long.txt":         strings.Repeat("x", 5000) + "NEEDLE" + strings.Repeat("y", 5000) + "\n",
	})
	tests := []struct {
		name    string
		args    string
		isError bool
		want    string // exact result text unless isError
	}{
		{"basic", `{"pattern":"HandleRequest\\(\\)"}`, false,
			"main.go:4: \tHandleRequest()\nserver/handle.go:4: func HandleRequest() {}"},
		{"ignore case and glob", `{"pattern":"handlerequest","ignore_case":true,"glob":"*.md"}`, false,
			"server/README.md:1: handlerequest docs"},
		{"path glob", `{"pattern":"package","glob":"server/**/*.go"}`, false, "server/handle.go:1: package server"},
		{"path", `{"pattern":"func","path":"server"}`, false, "server/handle.go:4: func HandleRequest() {}"},
		{"single file", `{"pattern":"main","path":"main.go"}`, false, "main.go:1: package main\nmain.go:3: func main() {"},
		{"context", `{"pattern":"TARGET","path":"ctx.txt","context_lines":2}`, false,
			"ctx.txt-2- b\nctx.txt-3- c\nctx.txt:4: TARGET\nctx.txt-5- d\nctx.txt-6- e\n--\nctx.txt-8- g\nctx.txt-9- h\nctx.txt:10: TARGET\nctx.txt-11- i"},
		{"adjacent context", `{"pattern":"TARGET","path":"ctx.txt","context_lines":3}`, false,
			"ctx.txt-1- a\nctx.txt-2- b\nctx.txt-3- c\nctx.txt:4: TARGET\nctx.txt-5- d\nctx.txt-6- e\nctx.txt-7- f\nctx.txt-8- g\nctx.txt-9- h\nctx.txt:10: TARGET\nctx.txt-11- i"},
		{"limit", `{"pattern":"match","path":"many.txt","max_results":2}`, false,
			"many.txt:1: match 1\nmany.txt:2: match 2\n… stopped after 2 matching lines; narrow the pattern, path or glob, or raise max_results"},
		{"no match", `{"pattern":"zzz"}`, false, `no matches for "zzz" under . (ignored and binary files are skipped)`},
		{"bad regexp", `{"pattern":"("}`, true, "bad pattern"},
		{"no pattern", `{}`, true, `"pattern" is required`},
		{"bad glob", `{"pattern":"x","glob":"[x"}`, true, "bad glob"},
		{"bad context", `{"pattern":"x","context_lines":50}`, true, `"context_lines" must be between 0 and 10`},
		{"missing path", `{"pattern":"x","path":"nope"}`, true, "no such file or directory: nope"},
	}
	for _, tt := range tests {
		res := call(t, env, "grep", tt.args)
		if res.IsError != tt.isError || (!tt.isError && res.Text != tt.want) || (tt.isError && !strings.Contains(res.Text, tt.want)) {
			t.Errorf("%s: IsError %v\ngot:\n%s\nwant:\n%s", tt.name, res.IsError, res.Text, tt.want)
		}
	}
	res := call(t, env, "grep", `{"pattern":"NEEDLE"}`)
	if !strings.Contains(res.Text, "long.txt:1: …") || !strings.Contains(res.Text, "NEEDLE") || len(res.Text) > 400 {
		t.Errorf("long line not clipped around the match: %q", res.Text)
	}
}

func TestListFiles(t *testing.T) {
	env := newEnv(t, map[string]string{
		".gitignore": "ignored/\n",
		"a.go":       "", "b.txt": "", "dir/c.go": "", "dir/sub/d.go": "", "ignored/e.go": "",
	})
	if err := os.Symlink("a.go", filepath.Join(env.Workspace, "link.go")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args    string
		isError bool
		want    string
	}{
		{`{}`, false, ".gitignore\na.go\nb.txt\ndir/c.go\ndir/sub/d.go\nlink.go -> a.go"},
		{`{"pattern":"*.go"}`, false, "a.go\ndir/c.go\ndir/sub/d.go\nlink.go -> a.go"},
		{`{"path":"dir"}`, false, "dir/c.go\ndir/sub/d.go"},
		{`{"max":2}`, false, ".gitignore\na.go\n… 4 more (raise max or narrow path/pattern)"},
		{`{"pattern":"*.rs"}`, false, `no files matching "*.rs" under . (ignored files are not listed)`},
		{`{"pattern":"[x"}`, true, "bad pattern"},
		{`{"path":"nowhere"}`, true, "no such file or directory: nowhere"},
		{`{"max":-1}`, true, `argument "max" must be between 1 and 10000`},
		{`{"max":"5"}`, true, `argument "max" must be an integer`},
	}
	for _, tt := range tests {
		res := call(t, env, "list_files", tt.args)
		if res.IsError != tt.isError || (tt.isError && !strings.Contains(res.Text, tt.want)) || (!tt.isError && res.Text != tt.want) {
			t.Errorf("list_files %s: IsError %v\ngot:\n%s\nwant:\n%s", tt.args, res.IsError, res.Text, tt.want)
		}
	}
}
