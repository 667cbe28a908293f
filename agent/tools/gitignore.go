package tools

import (
	"regexp"
	"strings"
)

// ignoreRule is one compiled .gitignore pattern.
type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool // "!pattern" re-includes
	dirOnly bool // "pattern/" matches directories only
	// anchored patterns (a "/" at the start or in the middle) match the
	// path relative to the .gitignore's directory; the others match the
	// base name at any depth.
	anchored bool
}

// ignoreFile is the rules of one .gitignore file.
type ignoreFile struct {
	dir   string // slash path of its directory relative to the root, "" for the root
	rules []ignoreRule
}

// parseIgnore compiles the .gitignore text data found in directory dir
// (slash-separated, relative to the walk root, "" for the root). Patterns
// that do not compile are skipped, as git skips what it cannot parse.
func parseIgnore(dir string, data []byte) *ignoreFile {
	f := &ignoreFile{dir: dir}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = trimTrailingSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		r.anchored = strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		re, err := regexp.Compile("^" + globRegexp(line) + "$")
		if err != nil {
			continue
		}
		r.re = re
		f.rules = append(f.rules, r)
	}
	return f
}

// trimTrailingSpaces drops trailing spaces unless escaped with "\".
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	return s
}

// globRegexp translates a gitignore glob into a regular expression: "*"
// and "?" never match "/", "[...]" is a class ("[!...]" negated), "\"
// escapes, a leading "**/" matches any directories, "/**/" zero or more,
// a trailing "/**" everything inside.
func globRegexp(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			stars := j - i
			atStart := i == 0 || p[i-1] == '/'
			switch {
			case stars >= 2 && atStart && j == len(p):
				b.WriteString(".*")
			case stars >= 2 && atStart && p[j] == '/':
				b.WriteString("(?:.*/)?")
				j++
			default:
				b.WriteString("[^/]*")
			}
			i = j - 1
		case '?':
			b.WriteString("[^/]")
		case '[':
			class, n := globClass(p[i:])
			if n == 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(class)
			i += n - 1
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	return b.String()
}

// globClass translates the bracket expression at the start of p and
// returns it with the number of bytes it used; 0 when "[" is unclosed.
func globClass(p string) (string, int) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		b.WriteString("^/")
		i++
	}
	first := true
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			return b.String(), i + 1
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		case c == '[' || c == ']' || c == '^' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		first = false
	}
	return "", 0
}

// match reports whether some rule of f matches rel (a slash path relative
// to the walk root, below f's directory) and, if so, whether the last
// matching rule ignores it.
func (f *ignoreFile) match(rel string, isDir bool) (matched, ignored bool) {
	sub := rel
	if f.dir != "" {
		if !strings.HasPrefix(rel, f.dir+"/") {
			return false, false
		}
		sub = rel[len(f.dir)+1:]
	}
	name := sub[strings.LastIndexByte(sub, '/')+1:]
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		target := name
		if r.anchored {
			target = sub
		}
		if r.re.MatchString(target) {
			return true, !r.negate
		}
	}
	return false, false
}

// ignoreStack is the .gitignore files that apply in a directory, the
// root's first; deeper files take precedence.
type ignoreStack []*ignoreFile

// ignored reports whether rel is excluded.
func (s ignoreStack) ignored(rel string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if m, ig := s[i].match(rel, isDir); m {
			return ig
		}
	}
	return false
}

// IgnoreFile is one parsed .gitignore (or .git/info/exclude) file.
type IgnoreFile struct{ f *ignoreFile }

// ParseIgnoreFile compiles the ignore file text data found in directory
// dir (a slash path relative to the tree's root, "" for the root).
func ParseIgnoreFile(dir string, data []byte) IgnoreFile {
	return IgnoreFile{parseIgnore(dir, data)}
}

// IgnoreRules are the ignore files in force in one directory of a tree,
// the root's first: what list_files and grep skip there. Checkpoints of a
// workspace skip the same files. The zero value ignores nothing.
type IgnoreRules struct{ stack ignoreStack }

// With returns r plus f, which takes precedence as a deeper file does; r
// itself is unchanged.
func (r IgnoreRules) With(f IgnoreFile) IgnoreRules {
	return IgnoreRules{append(r.stack[:len(r.stack):len(r.stack)], f.f)}
}

// Ignored reports whether rel, a slash path relative to the tree's root,
// is excluded.
func (r IgnoreRules) Ignored(rel string, isDir bool) bool { return r.stack.ignored(rel, isDir) }
