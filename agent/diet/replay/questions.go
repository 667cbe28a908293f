package replay

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kwsdev/kws/vault"
)

// Question is one search question about a replayed conversation, asked at
// its end, with the block that holds the answer.
type Question struct {
	// Kind is "print" (what did COMMAND print N messages ago), "line"
	// (line L of FILE in the window shown N messages ago) or "last" (what
	// the last run of COMMAND printed).
	Kind string
	Text string
	// Conv is the conversation's name (its diet state's), Now its length.
	Conv string
	Now  int
	// Answer is the id of the vault block that holds the answer, and
	// Message its index in the conversation.
	Answer  string
	Message int
}

var (
	reEditorHead = regexp.MustCompile(`(?m)^\[File: (\S+) \(\d+ lines total\)\]$`)
	reEditorLine = regexp.MustCompile(`(?m)^(\d+):`)
)

// Questions generates, deterministically, the questions of the issue's
// kinds about conv's tool outputs that the diet stores as blocks (at
// least minChars long): for every such output, what its command printed
// N messages before the end; for every editor window, one line of it; and
// for every command, what its last run printed.
func Questions(conv Conversation, minChars int) []Question {
	n := len(conv.Messages)
	var out []Question
	lastRun := map[string]int{}
	var order []string
	for i, m := range conv.Messages {
		cmd := firstLine(m.Source)
		if cmd == "" || !m.IsToolOutput() {
			continue
		}
		if _, ok := lastRun[cmd]; !ok {
			order = append(order, cmd)
		}
		lastRun[cmd] = i
		if len(m.Content) < minChars {
			continue
		}
		q := Question{Conv: conv.Name, Now: n, Answer: vault.IDFor([]byte(m.Content)), Message: i}
		q.Kind = "print"
		q.Text = fmt.Sprintf("what did `%s` print %d messages ago?", cmd, n-i)
		out = append(out, q)
		if file, line, ok := windowLine(m.Content); ok {
			q.Kind = "line"
			q.Text = fmt.Sprintf("in the editor window of %s shown %d messages ago, what exactly was line %d?", file, n-i, line)
			out = append(out, q)
		}
	}
	for _, cmd := range order {
		i := lastRun[cmd]
		m := conv.Messages[i]
		if len(m.Content) < minChars {
			continue
		}
		out = append(out, Question{Kind: "last", Conv: conv.Name, Now: n, Answer: vault.IDFor([]byte(m.Content)), Message: i,
			Text: fmt.Sprintf("what did the last run of `%s` print?", cmd)})
	}
	return out
}

// firstLine returns the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// windowLine finds an editor window in text and returns its file (without
// the repository's root folder) and the middle one of its numbered lines.
func windowLine(text string) (file string, line int, ok bool) {
	h := reEditorHead.FindStringSubmatchIndex(text)
	if h == nil {
		return "", 0, false
	}
	file = text[h[2]:h[3]]
	if parts := strings.SplitN(strings.TrimPrefix(file, "/"), "/", 2); strings.HasPrefix(file, "/") && len(parts) == 2 {
		file = parts[1]
	}
	nums := reEditorLine.FindAllStringSubmatch(text[h[1]:], -1)
	if len(nums) == 0 {
		return "", 0, false
	}
	_, err := fmt.Sscan(nums[len(nums)/2][1], &line)
	return file, line, err == nil
}
