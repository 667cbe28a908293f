package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed write_file.md
var writeFileDoc string

// editMaxBytes is the largest file write_file and edit_file replace or
// edit; the diff preview of anything bigger would not help the user.
const editMaxBytes = 8 << 20

// filePlan is a planned write: everything Preview shows and Run applies.
type filePlan struct {
	abs, rel string
	existed  bool
	mode     fs.FileMode
	old, new string
}

// diff returns the unified diff of the plan ("(no changes)" when none).
func (p filePlan) diff() string {
	oldName := "a/" + p.rel
	if !p.existed {
		oldName = "/dev/null"
	}
	if isBinary([]byte(p.old)) {
		return fmt.Sprintf("replace binary file %s (%d bytes) with %d bytes of text", p.rel, len(p.old), len(p.new))
	}
	d := unifiedDiff(oldName, "b/"+p.rel, p.old, p.new)
	if d == "" {
		return "(no changes)"
	}
	return d
}

// apply writes the new content atomically (a temporary file renamed over
// the target), keeping an existing file's permissions.
func (p filePlan) apply() error {
	dir := filepath.Dir(p.abs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p.abs)+".kws-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.WriteString(p.new); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(p.mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p.abs)
}

// loadTarget resolves path and reads the file there, if any, for a
// write. A directory, an oversized file or a path outside the workspace is
// a model mistake (bad != nil).
func loadTarget(tool string, env *Env, path string) (p filePlan, bad *Result, err error) {
	if path == "" {
		r := errResult(`%s: "path" is required`, tool)
		return p, &r, nil
	}
	abs, rel, err := env.resolve(path)
	if err != nil {
		r, err := pathError(path, err)
		return p, &r, err
	}
	p = filePlan{abs: abs, rel: rel, mode: 0o644}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, nil, nil
	case err != nil:
		r, err := pathError(rel, err)
		return p, &r, err
	case fi.IsDir():
		r := errResult("%s: %s is a directory", tool, rel)
		return p, &r, nil
	case !fi.Mode().IsRegular():
		r := errResult("%s: %s is not a regular file (%s)", tool, rel, fi.Mode().Type())
		return p, &r, nil
	case fi.Size() > editMaxBytes:
		r := errResult("%s: %s is %d bytes, more than the %d this tool edits; use shell", tool, rel, fi.Size(), editMaxBytes)
		return p, &r, nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		r, err := pathError(rel, err)
		return p, &r, err
	}
	p.existed, p.mode, p.old = true, fi.Mode().Perm(), string(data)
	return p, nil, nil
}

type writeFileTool struct{ spec }

type writeFileArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func newWriteFile() Tool {
	return writeFileTool{spec{name: "write_file", doc: writeFileDoc, access: Writes, schema: `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "file path relative to the workspace root; missing parent directories are created"},
    "content": {"type": "string", "description": "the complete new content of the file"}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`}}
}

// plan validates the arguments and computes the write.
func (writeFileTool) plan(env *Env, raw []byte) (filePlan, *Result, error) {
	var a writeFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		r := errResult("write_file: %v", err)
		return filePlan{}, &r, nil
	}
	if a.Content == nil {
		r := errResult(`write_file: "content" is required (use "" for an empty file)`)
		return filePlan{}, &r, nil
	}
	p, bad, err := loadTarget("write_file", env, a.Path)
	if bad != nil || err != nil {
		return p, bad, err
	}
	p.new = *a.Content
	return p, nil, nil
}

// Preview returns the unified diff of the write.
func (t writeFileTool) Preview(env *Env, raw []byte) (string, error) {
	return previewOf(t.plan(env, raw))
}

// Run writes the file.
func (t writeFileTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	p, bad, err := t.plan(env, raw)
	if bad != nil || err != nil {
		return deref(bad), err
	}
	res := Result{Preview: p.diff()}
	if p.existed && p.old == p.new {
		res.Text = fmt.Sprintf("%s unchanged: the content is identical", p.rel)
		return res, nil
	}
	if err := p.apply(); err != nil {
		r, err := pathError(p.rel, fmt.Errorf("write_file: %w", err))
		return r, err
	}
	lines := strings.Count(p.new, "\n")
	if p.new != "" && !strings.HasSuffix(p.new, "\n") {
		lines++
	}
	verb := "created"
	if p.existed {
		verb = "wrote"
	}
	res.Text = fmt.Sprintf("%s %s (%s, %s)", verb, p.rel, plural(len(p.new), "byte"), plural(lines, "line"))
	res.Changed = []string{p.rel}
	return res, nil
}

// deref returns *r, or an empty Result for nil.
func deref(r *Result) Result {
	if r == nil {
		return Result{}
	}
	return *r
}
