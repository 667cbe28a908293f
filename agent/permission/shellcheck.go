package permission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ErrShellNotAllowed is wrapped by every reason ShellCheck gives for a
// command that must ask.
var ErrShellNotAllowed = errors.New("not allowed by shell_allow")

// ShellCheck decides whether command may run without asking because of an
// allowed prefix. It judges the words bash will run, not the raw text: the
// line is parsed with a bash parser and must be one simple command with no
// redirection, assignment, background or pipeline; every word must be
// literal (plain text and quotes only; no expansion, substitution, glob,
// brace, tilde, backslash or $'…' that could change the words bash sees);
// the literal argv must start with a prefix's words; and no argument may
// be an option that makes the program write files, run other programs or
// read its configuration from elsewhere (see riskyArg), or a path outside
// workspace (absolute, .. or a symlink that leaves it; /dev/null is fine).
// The program itself must not resolve to a file inside the workspace, and
// git must find its repository in the workspace (see gitRepository). It
// returns nil when the command may run, else an error wrapping
// ErrShellNotAllowed that says why.
func ShellCheck(prefixes []string, workspace, command string) error {
	argv, err := LiteralArgv(command)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrShellNotAllowed, err)
	}
	n := matchPrefix(prefixes, argv)
	if n == 0 {
		return fmt.Errorf("%w: no allowed prefix matches %q", ErrShellNotAllowed, strings.Join(argv, " "))
	}
	if why := riskyArgs(argv, n); why != "" {
		return fmt.Errorf("%w: %s", ErrShellNotAllowed, why)
	}
	// Go's flag package and find take no glued values.
	glued := !slices.Contains([]string{"go", "find"}, filepath.Base(argv[0]))
	if why := outsidePaths(argv[1:], workspace, glued); why != "" {
		return fmt.Errorf("%w: %s", ErrShellNotAllowed, why)
	}
	if filepath.Base(argv[0]) == "git" {
		if why := gitRepository(workspace); why != "" {
			return fmt.Errorf("%w: %s", ErrShellNotAllowed, why)
		}
	}
	if programInWorkspace(argv[0], workspace) {
		return fmt.Errorf("%w: %s resolves to a program inside the workspace", ErrShellNotAllowed, argv[0])
	}
	return nil
}

// matchPrefix returns the number of words of the longest prefix that argv
// starts with, or 0.
func matchPrefix(prefixes []string, argv []string) int {
	best := 0
	for _, p := range prefixes {
		pw := strings.Fields(p)
		if len(pw) == 0 || len(pw) > len(argv) || len(pw) <= best {
			continue
		}
		match := true
		for i := range pw {
			if pw[i] != argv[i] {
				match = false
				break
			}
		}
		if match {
			best = len(pw)
		}
	}
	return best
}

// LiteralArgv returns the argument vector bash would run for command when
// that vector does not depend on expansion: one simple command whose words
// are plain text, single quotes or double quotes holding plain text. Any
// other construct is an error naming it.
func LiteralArgv(command string) ([]string, error) {
	for _, r := range command {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return nil, fmt.Errorf("control character %U in the command", r)
		}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, fmt.Errorf("not a command bash parses cleanly: %v", err)
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("%d commands where one is allowed", len(f.Stmts))
	}
	st := f.Stmts[0]
	switch {
	case len(st.Redirs) > 0:
		return nil, errors.New("redirection")
	case st.Background || st.Coprocess || st.Disown:
		return nil, errors.New("background job")
	case st.Negated:
		return nil, errors.New("negated command")
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return nil, fmt.Errorf("%s where a simple command is allowed", nodeName(st.Cmd))
	}
	if len(call.Assigns) > 0 {
		return nil, errors.New("variable assignment")
	}
	argv := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		s, err := literalWord(w)
		if err != nil {
			return nil, err
		}
		argv = append(argv, s)
	}
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	return argv, nil
}

// literalWord returns the text of a word made only of literal parts.
func literalWord(w *syntax.Word) (string, error) {
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			// Unquoted text: bash would expand globs and braces, remove
			// backslashes and expand a tilde that starts the word or
			// follows = or :, so none may appear.
			if j := strings.IndexAny(p.Value, "*?[{}\\$`!"); j >= 0 {
				return "", fmt.Errorf("unquoted %q (glob, brace or escape) in %q", p.Value[j], p.Value)
			}
			if tilde(p.Value, i == 0) {
				return "", fmt.Errorf("tilde expansion in %q", p.Value)
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", errors.New("$'…' quoting")
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", errors.New(`$"…" quoting`)
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", fmt.Errorf("%s inside double quotes", nodeName(q))
				}
				if strings.ContainsAny(lit.Value, "\\$`!") {
					return "", fmt.Errorf("escape or expansion inside double quotes in %q", lit.Value)
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", fmt.Errorf("%s", nodeName(part))
		}
	}
	return b.String(), nil
}

// tilde reports whether bash would expand a tilde in unquoted text: at
// the start of a word or after = or : (bash expands name=~ and a=b:~).
func tilde(lit string, wordStart bool) bool {
	for i := range len(lit) {
		if lit[i] == '~' && (i == 0 && wordStart || i > 0 && (lit[i-1] == '=' || lit[i-1] == ':')) {
			return true
		}
	}
	return false
}

// nodeName names a shell syntax node for a refusal message.
func nodeName(n syntax.Node) string {
	switch n.(type) {
	case *syntax.CmdSubst:
		return "command substitution"
	case *syntax.ParamExp:
		return "parameter expansion"
	case *syntax.ArithmExp:
		return "arithmetic expansion"
	case *syntax.ProcSubst:
		return "process substitution"
	case *syntax.ExtGlob:
		return "extended glob"
	case *syntax.BraceExp:
		return "brace expansion"
	case *syntax.BinaryCmd:
		return "a list or pipeline"
	case *syntax.Subshell, *syntax.Block:
		return "a command group"
	case nil:
		return "nothing"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", n), "*syntax.")
}

// outsidePaths returns why an argument names a path outside workspace, or
// "". Every argument and every option's =value is read as a possible path:
// absolute ones must lie in the workspace (or be /dev/null), relative ones
// must not climb out of it, and an existing one must not be a symlink that
// leads out. When glued is set, every tail of a -cluster is read as a path
// too, because getopt takes a short option's value glued on (grep
// -f/etc/passwd, grep -rf../x). With no workspace, any absolute or
// climbing path is outside.
func outsidePaths(args []string, workspace string, glued bool) string {
	root, abs := "", ""
	if workspace != "" {
		if a, err := filepath.Abs(workspace); err == nil {
			root, abs = a, a
			if real, err := filepath.EvalSymlinks(a); err == nil {
				root = real
			}
		}
	}
	for _, a := range args {
		cands := []string{a}
		if _, v, ok := strings.Cut(a, "="); ok {
			cands = append(cands, v)
		}
		if glued && len(a) > 2 && a[0] == '-' && a[1] != '-' {
			for i := 2; i < len(a); i++ {
				cands = append(cands, a[i:])
			}
		}
		for _, c := range cands {
			if c == "" || c == "/dev/null" {
				continue
			}
			if !insideRoot(root, abs, c) {
				return fmt.Sprintf("%q is outside the workspace", c)
			}
		}
	}
	return ""
}

// insideRoot reports whether path p (relative to root, or absolute) stays
// inside root, which is the workspace with its symlinks resolved (abs is
// the workspace as given). The path is followed the way the kernel does:
// each existing component that is a symlink is resolved before the next
// one, so a later .. climbs from where the symlink leads (escape/../x
// leaves through the symlink escape although it looks like x), and the
// first component that does not exist yet ends the walk lexically.
func insideRoot(root, abs, p string) bool {
	if root == "" {
		return !filepath.IsAbs(p) && filepath.IsLocal(p)
	}
	rest := p
	if filepath.IsAbs(p) {
		switch {
		case p == root || strings.HasPrefix(p, root+"/"):
			rest = p[len(root):]
		case p == abs || strings.HasPrefix(p, abs+"/"):
			rest = p[len(abs):]
		default:
			return false
		}
	}
	comps := strings.Split(rest, "/")
	cur := root
	for i, c := range comps {
		switch c {
		case "", ".":
			continue
		case "..":
			if cur == root {
				return false
			}
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		st, err := os.Lstat(next)
		if err != nil {
			return within(root, filepath.Join(append([]string{next}, comps[i+1:]...)...))
		}
		if st.Mode()&os.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(next)
			if err != nil || !within(root, real) {
				return false
			}
			next = real
		}
		cur = next
	}
	return true
}

// within reports whether path is root or below it; both are clean.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && filepath.IsLocal(rel) || rel == "."
}

// programInWorkspace reports whether bash would find name in the
// workspace: a name with a slash relative to it, or a PATH entry that is
// relative (".", "") or inside the workspace holding an executable name.
func programInWorkspace(name, workspace string) bool {
	if workspace == "" {
		return strings.Contains(name, "/") && !filepath.IsAbs(name)
	}
	if strings.Contains(name, "/") {
		return !filepath.IsAbs(name) || within(filepath.Clean(workspace), filepath.Clean(name))
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		abs := dir
		if !filepath.IsAbs(dir) {
			abs = filepath.Join(workspace, dir)
		} else if !within(filepath.Clean(workspace), filepath.Clean(dir)) {
			// Bash takes the first match; an entry outside the workspace
			// that holds name wins before any later one.
			if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return false
			}
			continue
		}
		if st, err := os.Stat(filepath.Join(abs, name)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
