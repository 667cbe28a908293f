package sidecar

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrNoEmbeddings is returned by Embed of an engine without an embedding
// model; memory then uses its own deterministic embedder.
var ErrNoEmbeddings = errors.New("sidecar: no embedding model")

// Heuristic is the deterministic engine used when no GGUF model is
// present: regular expressions and extracts, the same answer every time.
type Heuristic struct{}

// toolWork matches a turn that asks for work on the workspace: an
// imperative verb, a path, a file name, code or a command.
var toolWork = regexp.MustCompile(`(?i)\b(fix|run|edit|change|create|write|implement|add|remove|delete|rename|refactor|update|build|compile|test|tests|install|debug|deploy|commit|grep|search|find|open|read|list|show|check|look|investigate|generate|migrate|format|lint)\b|[\w.-]+/[\w.-]+|\.\w{1,4}\b|` + "`")

// Route answers direct for a short turn (under 400 bytes and 4 lines) with
// no sign of workspace work; everything else is tool work.
func (Heuristic) Route(_ context.Context, turn string) (Route, error) {
	t := strings.TrimSpace(turn)
	switch {
	case t == "":
		return Route{Direct: false, Confidence: 0.5, Reason: "empty turn"}, nil
	case len(t) > 400 || strings.Count(t, "\n") > 3:
		return Route{Direct: false, Confidence: 0.6, Reason: "a long turn"}, nil
	case toolWork.MatchString(t):
		return Route{Direct: false, Confidence: 0.8, Reason: "asks for work on the workspace"}, nil
	}
	return Route{Direct: true, Confidence: 0.7, Reason: "a short turn naming no file or command"}, nil
}

// errLine finds lines worth quoting in a summary.
var errLine = regexp.MustCompile(`(?i)\b(error|fail(ed|ure)?|panic|exception|traceback|fatal|denied|not found)\b`)

// Summarize quotes the first line, the first error lines and the size.
func (Heuristic) Summarize(_ context.Context, kind, text string) (string, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var parts []string
	if first := strings.TrimSpace(lines[0]); first != "" {
		parts = append(parts, "first: "+clipRunes(first, 120))
	}
	errs := 0
	for _, l := range lines[1:] {
		if errs < 3 && errLine.MatchString(l) {
			parts = append(parts, "error: "+clipRunes(strings.TrimSpace(l), 160))
			errs++
		}
	}
	parts = append(parts, fmt.Sprintf("%d lines of %s", len(lines), kind))
	return strings.Join(parts, "; "), nil
}

// ExtractMemories proposes nothing: memory's own rules read turns when no
// model is present.
func (Heuristic) ExtractMemories(context.Context, string) ([]Candidate, error) { return nil, nil }

// risk is one pattern of a risky command or change and the note it earns.
type risk struct {
	re   *regexp.Regexp
	note string
}

var risks = []risk{
	{regexp.MustCompile(`\brm\s+(-\w*[rf]\w*\s+)+`), "deletes files recursively or without asking"},
	{regexp.MustCompile(`\bsudo\b`), "runs as root"},
	{regexp.MustCompile(`(curl|wget)[^|]*\|\s*(ba|z)?sh\b`), "pipes a download straight into a shell"},
	{regexp.MustCompile(`git\s+push\b.*(--force|-f\b)`), "force-pushes, rewriting shared history"},
	{regexp.MustCompile(`git\s+(reset\s+--hard|clean\s+-\w*f|checkout\s+--\s)`), "discards uncommitted work"},
	{regexp.MustCompile(`chmod\s+(-R\s+)?777\b`), "makes files writable by everyone"},
	{regexp.MustCompile(`\b(mkfs|dd\s+if=|shutdown|reboot)\b`), "touches disks or the machine's state"},
	{regexp.MustCompile(`(?i)\.env\b|id_rsa|\.pem\b|secret|password|token`), "touches secrets or credentials"},
	{regexp.MustCompile(`\b(DROP|TRUNCATE)\s+(TABLE|DATABASE)\b`), "drops data"},
	{regexp.MustCompile(`>\s*/(etc|usr|bin|boot)/`), "writes outside the workspace"},
}

// Critique names the risks it recognises in the command or diff, and how
// much a diff removes.
func (Heuristic) Critique(_ context.Context, tool, preview string) (string, error) {
	var notes []string
	for _, r := range risks {
		if r.re.MatchString(preview) {
			notes = append(notes, r.note)
		}
	}
	added, removed := 0, 0
	for _, l := range strings.Split(preview, "\n") {
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	if removed > 50 && removed > 3*added {
		notes = append(notes, fmt.Sprintf("removes %d lines and adds %d", removed, added))
	}
	if len(notes) == 0 {
		return "", nil
	}
	return fmt.Sprintf("Risk (heuristic, %s): this %s.", tool, strings.Join(notes, "; it ")), nil
}

// Embed has no model to embed with.
func (Heuristic) Embed(context.Context, []string) ([][]float32, error) { return nil, ErrNoEmbeddings }

// Info names the engine.
func (Heuristic) Info() Info { return Info{Name: "heuristic", Heuristic: true} }

// clipRunes shortens s to n runes.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
