package agent

import (
	"regexp"
	"strings"
)

// reToolWork matches a user turn that asks for work on the workspace: an
// imperative verb, a path, code or a command.
var reToolWork = regexp.MustCompile(`(?i)\b(fix|run|edit|change|create|write|implement|add|remove|delete|rename|refactor|update|build|compile|test|tests|install|debug|deploy|commit|grep|search|find|open|read|list|show|check|look|investigate|generate|migrate|format|lint)\b|[\w.-]+/[\w.-]+|\.\w{1,4}\b|` + "`")

// IsDirectAnswer is the heuristic judge of dynamic tool schemas: a short
// question with no sign of workspace work is answered directly, so the
// call carries only the core tools and tool_expand. The sidecar replaces
// this judge later.
func IsDirectAnswer(turn string) bool {
	t := strings.TrimSpace(turn)
	if t == "" || len(t) > 400 || strings.Count(t, "\n") > 3 {
		return false
	}
	return !reToolWork.MatchString(t)
}
