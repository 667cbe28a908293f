package pty

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sigIgnRe is the ignored-signals mask a pane's program reports.
var sigIgnRe = regexp.MustCompile(`SigIgn:\s*([0-9a-f]+)`)

// TestPaneProgramsGetHangupAndBrokenPipe runs this test binary again with
// SIGHUP and SIGPIPE ignored, as nohup and the kws server start it: a
// program in its pane must still get their default actions (a closed
// pane's job survived its hangup; `yes | head` wrote "Broken pipe").
func TestPaneProgramsGetHangupAndBrokenPipe(t *testing.T) {
	if os.Getenv("KWS_PTY_SIGNALS_CHILD") == "1" {
		s := startShell(t, Options{})
		run(t, s, "grep SigIgn /proc/self/status")
		waitFor(t, "the mask", func() bool { return sigIgnRe.MatchString(s.Text()) })
		os.Stdout.WriteString("\n" + sigIgnRe.FindString(s.Text()) + "\n")
		return
	}
	needBinary(t, "sh", "grep")
	cmd := exec.Command("sh", "-c", `trap '' HUP PIPE; exec "$0" -test.run '^TestPaneProgramsGetHangupAndBrokenPipe$' -test.count 1`, os.Args[0])
	cmd.Env = append(os.Environ(), "KWS_PTY_SIGNALS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child test failed: %v\n%s", err, out)
	}
	m := sigIgnRe.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no SigIgn line from the pane's program:\n%s", out)
	}
	mask, err := strconv.ParseUint(m[1], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	const hup, pipe = 1 << (1 - 1), 1 << (13 - 1)
	if mask&(hup|pipe) != 0 {
		t.Fatalf("a pane's program ignores SIGHUP or SIGPIPE (SigIgn %s), inherited from a parent that ignores them", strings.TrimSpace(m[1]))
	}
}
