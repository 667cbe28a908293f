package tools

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

//go:embed grep.md
var grepDoc string

const (
	defaultGrepResults = 200
	maxGrepResults     = 5000
	maxGrepContext     = 10
	grepLineShown      = 300      // displayed line length
	grepLineScan       = 64 << 10 // bytes of one line searched
	grepOutputMax      = 64 << 10
)

type grepTool struct{ spec }

type grepArgs struct {
	Pattern      string `json:"pattern"`
	Path         string `json:"path"`
	Glob         string `json:"glob"`
	IgnoreCase   bool   `json:"ignore_case"`
	MaxResults   int    `json:"max_results"`
	ContextLines int    `json:"context_lines"`
}

func newGrep() Tool {
	return grepTool{spec{name: "grep", doc: grepDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Go regular expression (RE2 syntax)"},
    "path": {"type": "string", "description": "file or directory relative to the workspace root (default: the root)"},
    "glob": {"type": "string", "description": "only files whose base name matches, e.g. *.go; with a / it matches the path, e.g. cmd/**/*.go"},
    "ignore_case": {"type": "boolean", "description": "case-insensitive match (default false)"},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "most matching lines to show (default 200)"},
    "context_lines": {"type": "integer", "minimum": 0, "maximum": 10, "description": "lines of context before and after each match (default 0)"}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`}}
}

// Run searches the workspace files for a regular expression.
func (t grepTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a grepArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("grep: %v", err), nil
	}
	if a.Pattern == "" {
		return errResult(`grep: "pattern" is required`), nil
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return errResult("grep: bad pattern: %v", err), nil
	}
	limit, err := intArg("max_results", a.MaxResults, defaultGrepResults, 1, maxGrepResults)
	if err != nil {
		return errResult("grep: %v", err), nil
	}
	if a.ContextLines < 0 || a.ContextLines > maxGrepContext {
		return errResult("grep: argument \"context_lines\" must be between 0 and %d", maxGrepContext), nil
	}
	match, err := globMatcher(a.Glob)
	if err != nil {
		return errResult("grep: %v", err), nil
	}
	abs, rel, err := env.resolve(a.Path)
	if err != nil {
		return pathError(a.Path, err)
	}
	root, err := env.root()
	if err != nil {
		return Result{}, fmt.Errorf("grep: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return pathError(rel, err)
	}
	g := &grepper{re: re, limit: limit, context: a.ContextLines}
	err = walkTree(ctx, root, abs, env.hidden(), func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !match(p) {
			return nil
		}
		return g.file(filepath.Join(root, filepath.FromSlash(p)), p)
	})
	if err != nil {
		return Result{}, fmt.Errorf("grep %s: %w", rel, err)
	}
	if g.matches == 0 {
		return Result{Text: fmt.Sprintf("no matches for %q under %s (ignored and binary files are skipped)", a.Pattern, rel)}, nil
	}
	text := g.out.String()
	if g.full {
		text += fmt.Sprintf("… stopped after %d matching lines; narrow the pattern, path or glob, or raise max_results\n", g.matches)
	}
	return Result{Text: strings.TrimSuffix(text, "\n")}, nil
}

// globMatcher returns the file filter for glob: base-name matching, or
// path matching (with "**") when glob contains "/".
func globMatcher(glob string) (func(rel string) bool, error) {
	if glob == "" {
		return func(string) bool { return true }, nil
	}
	if !strings.Contains(glob, "/") {
		if _, err := path.Match(glob, ""); err != nil {
			return nil, fmt.Errorf("bad glob %q: %w", glob, err)
		}
		return func(rel string) bool {
			ok, _ := path.Match(glob, path.Base(rel))
			return ok
		}, nil
	}
	re, err := regexp.Compile("^" + globRegexp(strings.TrimPrefix(glob, "/")) + "$")
	if err != nil {
		return nil, fmt.Errorf("bad glob %q: %w", glob, err)
	}
	return re.MatchString, nil
}

// grepper collects matches across files within the result and size limits.
type grepper struct {
	re      *regexp.Regexp
	limit   int
	context int
	out     strings.Builder
	matches int
	full    bool // a limit was reached
}

// grepLine is one remembered line for leading context.
type grepLine struct {
	n    int
	text string
}

// file searches one file; it returns errStopWalk once a limit is reached.
func (g *grepper) file(abs, rel string) error {
	f, err := os.Open(abs)
	if err != nil {
		return nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(sniffLen); isBinary(head) {
		return nil
	}
	lr := newLineReader(br, grepLineScan)
	var before []grepLine
	after, lastShown := 0, 0
	for {
		line, _, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil
		}
		n := lr.line
		loc := g.re.FindIndex(line)
		switch {
		case loc != nil:
			if g.matches == g.limit || g.out.Len() > grepOutputMax {
				g.full = true
				return errStopWalk
			}
			if g.context > 0 && lastShown > 0 && n-len(before) > lastShown+1 {
				g.out.WriteString("--\n")
			}
			for _, b := range before {
				fmt.Fprintf(&g.out, "%s-%d- %s\n", rel, b.n, b.text)
			}
			before = before[:0]
			fmt.Fprintf(&g.out, "%s:%d: %s\n", rel, n, clipLine(string(line), loc[0], grepLineShown))
			g.matches++
			after, lastShown = g.context, n
		case after > 0:
			fmt.Fprintf(&g.out, "%s-%d- %s\n", rel, n, clipLine(string(line), 0, grepLineShown))
			after--
			lastShown = n
		case g.context > 0:
			if len(before) == g.context {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, grepLine{n, clipLine(string(line), 0, grepLineShown)})
		}
	}
}
