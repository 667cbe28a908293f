package memory

import (
	"fmt"
	"path"
	"strings"
)

// Rename is a file or directory renamed by a shell command.
type Rename struct {
	Old, New string
	// Git is set for git mv, which renames tracked files only.
	Git bool
}

// RenamesIn returns the renames a shell command asks for: each simple
// command `git mv OLD NEW` or `mv OLD NEW`, alone or joined to others by
// ;, &&, || or a newline. Only plain relative paths count: a command with
// an expansion, a glob, a redirection, a path outside the directory (an
// absolute path, ~ or ..), a path with a backtick or a run of blanks,
// more than two paths or an option that takes a value (-t DIR) is
// skipped, as is git mv --dry-run and everything after a cd, pushd or
// popd. The caller checks that the rename happened.
func RenamesIn(command string) []Rename {
	var out []Rename
	for _, c := range simpleCommands(command) {
		words := c.words
		for len(words) > 0 && isAssignment(words[0]) {
			words = words[1:]
		}
		if len(words) > 0 && (words[0] == "cd" || words[0] == "pushd" || words[0] == "popd") {
			break // later paths are relative to another directory
		}
		if c.complex {
			continue
		}
		git := len(words) >= 2 && words[0] == "git" && words[1] == "mv"
		switch {
		case git:
			words = words[2:]
		case len(words) >= 1 && words[0] == "mv":
			words = words[1:]
		default:
			continue
		}
		if r, ok := renameArgs(words, git); ok {
			out = append(out, r)
		}
	}
	return out
}

// RenameCandidate is the memory a rename proposes, in the form promotion
// reads as a rename: the memories naming the old path are rewritten.
func RenameCandidate(r Rename, confidence float64) Candidate {
	return Candidate{Kind: KindRename, Confidence: confidence,
		Text: fmt.Sprintf("`%s` was renamed to `%s`", r.Old, r.New)}
}

// renameArgs reads mv's or git mv's arguments: flags without values, then
// exactly two plain relative paths.
func renameArgs(args []string, git bool) (Rename, bool) {
	var paths []string
	flags := true
	for _, a := range args {
		switch {
		case flags && a == "--":
			flags = false
		case flags && strings.HasPrefix(a, "-"):
			if !plainFlag(a, git) {
				return Rename{}, false
			}
		default:
			paths = append(paths, a)
		}
	}
	if len(paths) != 2 || !plainPath(paths[0]) || !plainPath(paths[1]) {
		return Rename{}, false
	}
	r := Rename{Old: path.Clean(paths[0]), New: path.Clean(paths[1]), Git: git}
	return r, r.Old != r.New
}

// plainFlag reports whether a is an option of mv (or git mv) that takes no
// value and does not stop the rename.
func plainFlag(a string, git bool) bool {
	if git {
		switch a {
		case "-f", "--force", "-k", "-v", "--verbose":
			return true
		}
		return false // -n and --dry-run rename nothing
	}
	switch a {
	case "--force", "--interactive", "--no-clobber", "--verbose", "--update", "--no-target-directory":
		return true
	}
	if strings.HasPrefix(a, "--") || len(a) < 2 {
		return false
	}
	for _, c := range a[1:] {
		if !strings.ContainsRune("finvuT", c) {
			return false
		}
	}
	return true
}

// plainPath reports whether p is a relative path inside the directory
// that survives the sentence of a rename memory: no backtick, and no blank
// but single spaces between other characters.
func plainPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.ContainsRune(p, '`') ||
		strings.Join(strings.Fields(p), " ") != p {
		return false
	}
	c := path.Clean(p)
	return c != "." && c != ".." && !strings.HasPrefix(c, "../")
}

// isAssignment reports whether w is a leading VAR=value word.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// command is one simple command's words, with quotes and backslashes
// removed; complex is set when it has anything the shell would expand or
// redirect ($, `, globs, braces, parentheses, < or >), since its words are
// not known before it runs.
type command struct {
	words   []string
	complex bool
}

// simpleCommands splits a command line into its simple commands, which ;,
// &, | and newlines separate. A # that starts a word comments out the rest
// of its line.
func simpleCommands(line string) []command {
	var out []command
	var words []string
	var word strings.Builder
	inWord, complex := false, false
	var quote rune
	endWord := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 || complex {
			out = append(out, command{words: words, complex: complex})
		}
		words, complex = nil, false
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				word.WriteRune(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '$' || c == '`':
				complex = true
			case c == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[i+1]):
				i++
				word.WriteRune(rs[i])
			default:
				word.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\':
			if i+1 < len(rs) {
				i++
				if rs[i] != '\n' {
					word.WriteRune(rs[i])
					inWord = true
				}
			}
		case c == '#' && !inWord:
			for i+1 < len(rs) && rs[i+1] != '\n' {
				i++
			}
		case c == ' ' || c == '\t':
			endWord()
		case c == ';' || c == '&' || c == '|' || c == '\n':
			endCommand()
		case strings.ContainsRune("$`*?[]{}()<>~", c):
			complex = true
			word.WriteRune(c)
			inWord = true
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 {
		complex = true
	}
	endCommand()
	return out
}
