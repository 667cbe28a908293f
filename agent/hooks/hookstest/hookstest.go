// Package hookstest is what the tests of hooks share: Claude Code's
// documented hook example and executable scripts in temporary dirs.
package hookstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ClaudeBlockRm is Claude Code's documented PreToolUse example (the hooks
// reference, "Exit code 2 behavior"), unchanged.
const ClaudeBlockRm = `#!/bin/bash
# Reads JSON input from stdin, checks the command
command=$(jq -r '.tool_input.command' < /dev/stdin)

if [[ "$command" == rm* ]]; then
  echo "Blocked: rm commands are not allowed" >&2
  exit 2  # Blocking error: tool call is prevented
fi

exit 0  # Success: tool call proceeds
`

// Script writes body, a bash script ("#!/bin/bash" is added when it has
// no #! line), as an executable file in a temporary dir of t's (outside
// kws's config and data dirs, which the sandbox hides) and returns its
// path. jq, which Claude Code's scripts read their input with, must be
// installed (make setup installs it).
func Script(t testing.TB, body string) string {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is missing: make setup installs it (apt-get install jq)")
	}
	if !strings.HasPrefix(body, "#!") {
		body = "#!/bin/bash\n" + body
	}
	path := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Command is Script's path quoted as a hook's command line.
func Command(t testing.TB, body string) string {
	t.Helper()
	return "'" + Script(t, body) + "'"
}
