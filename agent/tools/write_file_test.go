package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	env := newEnv(t, map[string]string{"old.txt": "one\ntwo\n"})
	if err := os.Chmod(filepath.Join(env.Workspace, "old.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    string
		preview string
		file    string // path whose content must be args.content
	}{
		{"create nested", map[string]any{"path": "a/b/new.txt", "content": "hello\n"}, false,
			"created a/b/new.txt (6 bytes, 1 line)", "--- /dev/null\n+++ b/a/b/new.txt\n@@ -0,0 +1 @@\n+hello\n", "a/b/new.txt"},
		{"replace", map[string]any{"path": "old.txt", "content": "one\n2\n"}, false,
			"wrote old.txt (6 bytes, 2 lines)", "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n", "old.txt"},
		{"identical", map[string]any{"path": "old.txt", "content": "one\n2\n"}, false, "old.txt unchanged", "(no changes)", ""},
		{"empty content", map[string]any{"path": "empty.txt", "content": ""}, false, "created empty.txt (0 bytes, 0 lines)", "", "empty.txt"},
		{"missing content", map[string]any{"path": "x.txt"}, true, `"content" is required`, "", ""},
		{"missing path", map[string]any{"content": "x"}, true, `"path" is required`, "", ""},
		{"directory", map[string]any{"path": "a", "content": "x"}, true, "a is a directory", "", ""},
		{"through a file", map[string]any{"path": "old.txt/x", "content": "x"}, true, "not a directory", "", ""},
		{"wrong type", map[string]any{"path": "x.txt", "content": 5}, true, `argument "content" must be a string`, "", ""},
	}
	for _, tt := range tests {
		res := call(t, env, "write_file", tt.args)
		checkResult(t, res, tt.isError, tt.want)
		if tt.preview != "" && res.Preview != tt.preview {
			t.Errorf("%s: preview\n%s\nwant\n%s", tt.name, res.Preview, tt.preview)
		}
		if tt.file != "" {
			if got := readFile(t, env, tt.file); got != tt.args["content"] {
				t.Errorf("%s: file holds %q", tt.name, got)
			}
			if !slices.Equal(res.Changed, []string{tt.file}) {
				t.Errorf("%s: Changed = %v", tt.name, res.Changed)
			}
		} else if len(res.Changed) > 0 {
			t.Errorf("%s: Changed = %v for no write", tt.name, res.Changed)
		}
	}
	if fi, err := os.Stat(filepath.Join(env.Workspace, "old.txt")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode not kept: %v %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(env.Workspace)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".kws-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWriteFilePreviewChangesNothing(t *testing.T) {
	env := newEnv(t, map[string]string{"f.txt": "a\n"})
	wf, _ := ByName("write_file")
	d, err := wf.(Previewer).Preview(env, []byte(`{"path":"sub/g.txt","content":"b\n"}`))
	if err != nil || !strings.HasPrefix(d, "--- /dev/null\n+++ b/sub/g.txt\n") {
		t.Fatalf("Preview = %q, %v", d, err)
	}
	if _, err := os.Stat(filepath.Join(env.Workspace, "sub")); !os.IsNotExist(err) {
		t.Error("Preview created a directory")
	}
	if _, err := wf.(Previewer).Preview(env, []byte(`{"path":"../x","content":""}`)); err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("Preview of an escape: %v", err)
	}
}

func TestEditFile(t *testing.T) {
	src := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    string
		result  string // file content afterwards ("" = unchanged)
	}{
		{"unique", map[string]any{"path": "f.go", "old_string": "func a() {\n\treturn 1", "new_string": "func a() {\n\treturn 2"}, false,
			"edited f.go: replaced 1 occurrence, first at line 1 (+1 -1 lines)", strings.Replace(src, "return 1", "return 2", 1)},
		{"ambiguous", map[string]any{"path": "f.go", "old_string": "return 1", "new_string": "return 2"}, true,
			"old_string occurs 2 times in f.go", ""},
		{"replace all", map[string]any{"path": "f.go", "old_string": "return 1", "new_string": "return 3", "replace_all": true}, false,
			"replaced 2 occurrences, first at line 2 (+2 -2 lines)", strings.ReplaceAll(src, "return 1", "return 3")},
		{"delete", map[string]any{"path": "f.go", "old_string": "\nfunc b() {\n\treturn 1\n}\n", "new_string": ""}, false,
			"replaced 1 occurrence, first at line 4", "func a() {\n\treturn 1\n}\n"},
		{"not found", map[string]any{"path": "f.go", "old_string": "return  1", "new_string": "x"}, true, "old_string not found in f.go", ""},
		{"empty old", map[string]any{"path": "f.go", "old_string": "", "new_string": "x"}, true, `"old_string" is required and must not be empty`, ""},
		{"missing new", map[string]any{"path": "f.go", "old_string": "a"}, true, `"new_string" is required`, ""},
		{"same", map[string]any{"path": "f.go", "old_string": "a", "new_string": "a"}, true, "identical", ""},
		{"no file", map[string]any{"path": "g.go", "old_string": "a", "new_string": "b"}, true, "g.go does not exist; use write_file", ""},
		{"bad type", map[string]any{"path": "f.go", "old_string": "a", "new_string": "b", "replace_all": "yes"}, true, `argument "replace_all" must be a boolean`, ""},
	}
	for _, tt := range tests {
		env := newEnv(t, map[string]string{"f.go": src})
		res := call(t, env, "edit_file", tt.args)
		checkResult(t, res, tt.isError, tt.want)
		want := tt.result
		if want == "" {
			want = src
		}
		if got := readFile(t, env, "f.go"); got != want {
			t.Errorf("%s: file is\n%q\nwant\n%q", tt.name, got, want)
		}
		if !tt.isError && (!strings.HasPrefix(res.Preview, "--- a/f.go\n+++ b/f.go\n@@ ") || !slices.Equal(res.Changed, []string{"f.go"})) {
			t.Errorf("%s: preview %q, changed %v", tt.name, res.Preview, res.Changed)
		}
	}
}

func TestEditFileRefusesBinary(t *testing.T) {
	env := newEnv(t, map[string]string{"b.bin": "ab\x00cd"})
	checkResult(t, call(t, env, "edit_file", map[string]any{"path": "b.bin", "old_string": "ab", "new_string": "x"}), true, "binary file")
}
