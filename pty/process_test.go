package pty

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirFollowsTheShellsCd(t *testing.T) {
	start := t.TempDir()
	sub := filepath.Join(t.TempDir(), "sub dir")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startShell(t, Options{Dir: start})
	if dir, err := s.Dir(); err != nil || dir != start {
		t.Fatalf("Dir at start = %q, %v; want %q", dir, err, start)
	}
	for _, tc := range []struct{ cmd, want string }{
		{"cd '" + sub + "'", sub},
		{"cd /", "/"},
		{"cd -", sub},
	} {
		run(t, s, tc.cmd)
		waitFor(t, "the shell to be in "+tc.want, func() bool {
			dir, err := s.Dir()
			return err == nil && dir == tc.want
		})
	}
	run(t, s, "exit")
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dir(); !errors.Is(err, ErrExited) {
		t.Fatalf("Dir after exit = %v, want ErrExited", err)
	}
}

func TestNoticeComesBeforeTheProgramsOutput(t *testing.T) {
	s := startShell(t, Options{Notice: "kws restarted\x1b[31m this shell\n"})
	if got, want := firstLine(s.Text()), "kws restarted this shell"; got != want {
		t.Fatalf("first line %q, want %q; screen:\n%s", got, want, s.Text())
	}
	run(t, s, "echo after")
	waitLine(t, s, "after")
}

func firstLine(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	return strings.TrimRight(line, " ")
}
