package vault

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// A block that shows numbered lines of a file (an editor window, a
// read_file range, cat -n) is indexed with one line term per line shown,
// so "line 1200 of axisgrid.py" finds the windows that hold line 1200.
const (
	lineTermPrefix = "#l:"
	maxLineTerms   = 2000
)

var (
	// reWindowHead matches the file a window shows: SWE-agent's
	// "[File: path (N lines total)]" and kws read_file's "path (N bytes),
	// lines A-B:".
	reWindowHead = regexp.MustCompile(`(?m)^(?:\[File: (\S+) \(\d+ lines total\)\]|(\S+) \(\d+ bytes\), lines \d+-\d+:)$`)
	reNumbered   = regexp.MustCompile(`(?m)^\s{0,8}(\d{1,7})(?::|\|)`)
)

// lineTerm is the index term of line n of the file whose base name is base.
func lineTerm(base string, n int) string {
	return lineTermPrefix + strings.ToLower(base) + ":" + strconv.Itoa(n)
}

// baseName returns the last element of a slash-separated path.
func baseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// eachLineTerm calls fn with the line term of every numbered line in text,
// attributed to the file named by the nearest window header above it, or
// else to the file the block's command names.
func eachLineTerm(text []byte, m *Meta, fn func(string)) {
	file := commandFile(m.Command)
	heads := reWindowHead.FindAllSubmatchIndex(text, -1)
	nums := reNumbered.FindAllSubmatchIndex(text, -1)
	h, count := 0, 0
	for _, n := range nums {
		for h < len(heads) && heads[h][0] < n[0] {
			g := heads[h]
			if g[2] >= 0 {
				file = string(text[g[2]:g[3]])
			} else {
				file = string(text[g[4]:g[5]])
			}
			h++
		}
		if file == "" {
			continue
		}
		line, err := strconv.Atoi(string(text[n[2]:n[3]]))
		if err != nil {
			continue
		}
		fn(lineTerm(baseName(file), line))
		if count++; count >= maxLineTerms {
			return
		}
	}
}

// commandFile returns the first path-like word of a command ("open
// src/app.py 120", "read_file src/app.py"), or "".
func commandFile(cmd string) string {
	for _, w := range strings.Fields(cmd) {
		if strings.ContainsAny(w, "/.") && bytes.IndexFunc([]byte(w), func(r rune) bool { return r == '=' || r == '*' }) < 0 && len(w) > 2 {
			return strings.Trim(w, `"'`)
		}
	}
	return ""
}
