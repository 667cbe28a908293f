package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

//go:embed list_files.md
var listFilesDoc string

const (
	defaultListMax = 500
	maxListMax     = 10000
)

type listFilesTool struct{ spec }

type listFilesArgs struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
	Max     int    `json:"max"`
}

func newListFiles() Tool {
	return listFilesTool{spec{name: "list_files", doc: listFilesDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "directory relative to the workspace root (default: the root)"},
    "pattern": {"type": "string", "description": "glob on the file's base name, e.g. *.go or *_test.*"},
    "max": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "most paths to list (default 500)"}
  },
  "additionalProperties": false
}`}}
}

// Run lists the files under a directory, honouring .gitignore.
func (t listFilesTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a listFilesArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("list_files: %v", err), nil
	}
	limit, err := intArg("max", a.Max, defaultListMax, 1, maxListMax)
	if err != nil {
		return errResult("list_files: %v", err), nil
	}
	if a.Pattern != "" {
		if _, err := path.Match(a.Pattern, ""); err != nil {
			return errResult("list_files: bad pattern %q: %v", a.Pattern, err), nil
		}
	}
	abs, rel, err := env.resolve(a.Path)
	if err != nil {
		return pathError(a.Path, err)
	}
	root, err := env.root()
	if err != nil {
		return Result{}, fmt.Errorf("list_files: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return pathError(rel, err)
	}
	var b strings.Builder
	shown, more := 0, 0
	err = walkTree(ctx, root, abs, env.hidden(), func(p string, d fs.DirEntry) error {
		if a.Pattern != "" {
			if ok, _ := path.Match(a.Pattern, path.Base(p)); !ok {
				return nil
			}
		}
		if shown == limit {
			more++
			return nil
		}
		shown++
		b.WriteString(p)
		if d.Type()&fs.ModeSymlink != 0 {
			b.WriteString(symlinkNote(filepath.Join(root, filepath.FromSlash(p))))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("list_files %s: %w", rel, err)
	}
	if shown == 0 {
		what := "no files"
		if a.Pattern != "" {
			what = fmt.Sprintf("no files matching %q", a.Pattern)
		}
		return Result{Text: fmt.Sprintf("%s under %s (ignored files are not listed)", what, rel)}, nil
	}
	if more > 0 {
		fmt.Fprintf(&b, "… %d more (raise max or narrow path/pattern)\n", more)
	}
	return Result{Text: strings.TrimSuffix(b.String(), "\n")}, nil
}

// symlinkNote says where a listed symlink points.
func symlinkNote(abs string) string {
	target, err := os.Readlink(abs)
	if err != nil {
		return " (symlink)"
	}
	return " -> " + target
}
