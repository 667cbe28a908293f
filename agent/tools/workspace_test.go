package tools

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	env := newEnv(t, map[string]string{"src/a.go": "package a\n", "README": "hi\n"})
	root := env.Workspace
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret": "s\n"})
	for _, l := range []struct{ target, name string }{
		{"/etc", "etclink"},
		{outside, "outlink"},
		{filepath.Join(root, "src"), "srclink"},
		{filepath.Join(outside, "missing"), "dangling"},
	} {
		if err := os.Symlink(l.target, filepath.Join(root, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		rel     string
		want    string // relative to root; "" when an error is expected
		escapes bool
	}{
		{rel: "src/a.go", want: "src/a.go"},
		{rel: "", want: "."},
		{rel: ".", want: "."},
		{rel: "src/../README", want: "README"},
		{rel: "new/dir/file.txt", want: "new/dir/file.txt"},
		{rel: filepath.Join(root, "README"), want: "README"},
		{rel: "srclink/a.go", want: "src/a.go"},
		{rel: "srclink/new.go", want: "src/new.go"},
		{rel: "../../etc/passwd", escapes: true},
		{rel: "..", escapes: true},
		{rel: "src/../../x", escapes: true},
		{rel: "/etc/passwd", escapes: true},
		{rel: "etclink/passwd", escapes: true},
		{rel: "etclink", escapes: true},
		{rel: "outlink/secret", escapes: true},
		{rel: "outlink/newfile", escapes: true},
		{rel: "outlink/deep/new/file", escapes: true},
		{rel: "dangling"},
		{rel: "dangling/child"},
		{rel: "README/child"},
	}
	for _, tt := range tests {
		abs, err := Resolve(root, tt.rel)
		switch {
		case tt.escapes:
			if !errors.Is(err, ErrEscape) {
				t.Errorf("Resolve(%q) = %q, %v; want ErrEscape", tt.rel, abs, err)
			}
		case tt.want == "":
			if err == nil {
				t.Errorf("Resolve(%q) = %q, want an error", tt.rel, abs)
			}
		case err != nil:
			t.Errorf("Resolve(%q): %v", tt.rel, err)
		case abs != filepath.Join(root, tt.want):
			t.Errorf("Resolve(%q) = %q, want %q", tt.rel, abs, filepath.Join(root, tt.want))
		}
	}
}

func TestResolveUnresolvedWorkspace(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	realResolved, _ := filepath.EvalSymlinks(real)
	for _, rel := range []string{"f.txt", filepath.Join(link, "f.txt"), filepath.Join(realResolved, "f.txt")} {
		abs, err := Resolve(link, rel)
		if err != nil || abs != filepath.Join(realResolved, "f.txt") {
			t.Errorf("Resolve(%q) = %q, %v", rel, abs, err)
		}
	}
}

func TestFileToolsStayInWorkspace(t *testing.T) {
	env := newEnv(t, map[string]string{"ok.txt": "fine\n"})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"victim.txt": "original\n"})
	if err := os.Symlink("/etc", filepath.Join(env.Workspace, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(env.Workspace, "parent")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "../../etc/passwd"}},
		{"read_file", map[string]any{"path": "/etc/passwd"}},
		{"read_file", map[string]any{"path": "etc/passwd"}},
		{"list_files", map[string]any{"path": "etc"}},
		{"grep", map[string]any{"pattern": "root", "path": "etc"}},
		{"write_file", map[string]any{"path": "parent/victim.txt", "content": "pwned\n"}},
		{"write_file", map[string]any{"path": "parent/sub/new.txt", "content": "pwned\n"}},
		{"write_file", map[string]any{"path": "../escape.txt", "content": "pwned\n"}},
		{"edit_file", map[string]any{"path": "parent/victim.txt", "old_string": "original", "new_string": "pwned"}},
	}
	for _, tt := range tests {
		res := call(t, env, tt.tool, tt.args)
		checkResult(t, res, true, "path escapes the workspace")
	}
	if got := readFile(t, &Env{Workspace: outside}, "victim.txt"); got != "original\n" {
		t.Errorf("victim.txt was changed to %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "sub")); !os.IsNotExist(err) {
		t.Errorf("a directory was created outside the workspace: %v", err)
	}
}
