package permission

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/sandbox"
)

// bypasses are command lines that an allow-listed prefix must never run
// without asking: each writes a file, runs another program, or reads
// outside the workspace, or cannot be judged without expanding it. The
// first group is the red-team list of issue 10; add every new bypass here.
var bypasses = []string{
	// Options that run programs or write files, in every quoting.
	`go test "-exec=sh '-c' 'touch /tmp/x3'" .`,
	`find . -maxdepth 0 "-exec" touch X {} +`,
	`find . -maxdepth 0 "-exec" touch X "{}" +`,
	`git diff "--output=F"`,
	`git diff '--output=F'`,
	`git diff \--output=F`,
	`git diff $'--output=F'`,
	`git diff {--output=F,HEAD}`,
	`git diff --out""put=F`,
	`git diff --no-index "--output=F" "--output-indicator-new= " /dev/null payload`,
	`go test -cpuprofile=F`,
	`go test -coverprofile=F`,
	`go test -trace=F`,
	`find -fprint0 F`,
	`git diff --no-index /etc/hostname /dev/null`,
	// Abbreviated and alternative spellings.
	`git diff --out=F`,
	`git diff --outp F`,
	`git diff --output F`,
	`git diff --ext-diff`,
	`git diff --textc`,
	`go test --exec=./evil .`,
	`go test -o=x .`,
	`go test -c .`,
	`go test -toolexec ./evil .`,
	`go test ./... -args -test.cpuprofile=x`,
	`go test -test.coverprofile=x`,
	`go test -ldflags=-extld=./evil .`,
	`go vet -vettool=./evil .`,
	`go test -C /tmp .`,
	`find . -delete`,
	`find . -execdir id ;`,
	`find . -fprintf out %p`,
	`find . -fls out`,
	`rg --pre=./evil foo`,
	`rg --pre ./evil foo`,
	`rg --hostname-bin=./evil foo`,
	`sort -o out in`,
	`sort -no out in`,
	`sed -i s/a/b/ file`,
	`sed -ni s/a/b/ file`,
	`git grep -O foo`,
	`git grep --open-files-in-pager=./evil foo`,
	`git fetch -u ./evil origin`,
	`git fetch --upload-pack=./evil origin`,
	`git -c core.pager=./evil log`,
	`git -C /tmp log`,
	`git st`,
	`git --git-dir=/tmp/x log`,
	`git --work-tree=/tmp status`,
	// Paths outside the workspace.
	`cat /etc/passwd`,
	`cat ../../etc/passwd`,
	`cat a/../../secret`,
	`cat escape`,
	`cat escape/passwd`,
	`grep -f /etc/shadow x`,
	`ls --directory=/etc`,
	// Expansion, substitution and shell structure.
	`ls ~`,
	`ls ~/.ssh`,
	`ls a=~/x`,
	`ls *`,
	`ls ?`,
	`ls [a]`,
	`ls $HOME`,
	`ls ${HOME}`,
	`ls "$HOME"`,
	`ls "$(id)"`,
	"ls `id`",
	"ls \"`id`\"",
	`ls $(id)`,
	`ls $((1+1))`,
	`ls <(id)`,
	`ls >x`,
	`ls 2>x`,
	`ls <x`,
	`ls &`,
	`ls; id`,
	`ls && id`,
	`ls || id`,
	`ls | sh`,
	"ls\nid",
	"ls\r\nid",
	"ls\x00",
	`(ls)`,
	`{ ls; }`,
	`time ls`,
	`! ls`,
	`FOO=1 ls`,
	`ls "a\"b"`,
	`ls a\ b`,
	`ls $'\x41'`,
	`ls $"x"`,
	`ls @(a|b)`,
	`ls 'unterminated`,
	`coproc ls`,
	`./git status`,
	``,
	`   `,
	// A .. after a symlink climbs from where the symlink leads.
	`cat escape/../secret`,
	`cat sub/../escape/../secret`,
	`grep foo escape/../secret`,
	// Short options take their value glued on.
	`grep -f/etc/passwd x`,
	`grep -rf../../x foo .`,
	// getopt takes a long option abbreviated to one letter.
	`sort --o=F in`,
	`sed --i s/a/b/ inside`,
	// sed scripts that run, read or write, and scripts from files.
	`sed '1e id' inside`,
	`sed 's/a/id/e' inside`,
	`sed 's/a/b/w out' inside`,
	`sed 's/[/]/x/e' inside`,
	`sed 's/a/b/;W out' inside`,
	`sed -n 'r /etc/passwd' inside`,
	`sed -n '$!N;R secret' inside`,
	`sed -f script inside`,
	`sed --file=script inside`,
	`sed -ne '1e id' inside`,
	`sed --expression='1e id' inside`,
	`sed 'e id' -e p inside`,
	// Options that run a program, write a file or read a list of names.
	`sort --compress-program=./evil in`,
	`sort --files0-from=list`,
	`wc --files0-from=list`,
	`sort -T sub in`,
	`tree -o out`,
	`file -f list`,
	`find -files0-from list`,
	`rg -z foo`,
	`go test -mod=mod ./...`,
	`go test -mod mod ./...`,
	`go test -pkgdir=p ./...`,
	`go test -test.fuzzcachedir=x`,
	// Options that follow symlinks out of the workspace while recursing.
	`grep -R foo .`,
	`grep --dereference-recursive foo .`,
	`find -L .`,
	`find . -follow`,
	`rg -L foo`,
	`rg --follow foo`,
	`du -L .`,
	`tree -l`,
	`ls -RL`,
	`diff -r sub inside`,
	// git subcommands on the read-only list that write or run programs.
	`git help log`,
	`git branch x`,
	`git branch -D x`,
	`git branch --sort=refname x`,
	`git tag x`,
	`git tag -d x`,
	`git remote add x ./evil`,
	`git remote update`,
	`git reflog expire --all`,
	`git cat-file --filters HEAD:x`,
}

// safe are command lines the same prefixes must still allow.
var safe = []string{
	`go test ./... -count=1 -run TestX`,
	`go test -run 'TestA|TestB' ./...`,
	`go test -race -v -json ./agent/...`,
	`go test -cover -covermode=atomic ./...`,
	`git diff --stat`,
	`git diff HEAD~1 -- main.go`,
	`git diff --name-only "@{u}"`,
	`git status --short`,
	`git log -p -3 --pretty=oneline`,
	`git grep -n -C 3 foo`,
	`git show HEAD:main.go`,
	`grep -n foo main.go`,
	`grep -rn "hello world" .`,
	`grep -o 'a;b|c' main.go`,
	`find . -name '*.go'`,
	`find . -name a -o -name b`,
	`find sub -type f -print0`,
	`rg -n foo`,
	`ls -la sub`,
	`ls -la /dev/null`,
	`cat inside`,
	`sort -n in`,
	`sed -n 1,5p main.go`,
	`sed 's/a/b/g' inside`,
	`sed -e 's/a/b/' -e '1d;$d' inside`,
	`sed -n '2{p;q}' inside`,
	`cat sub/../inside`,
	`git log --follow inside`,
	`git branch -a`,
	`git branch --list 'feat*'`,
	`git tag -l 'v1*'`,
	`git remote -v`,
	`git reflog`,
	`go test -mod=readonly ./...`,
	`du -sh sub`,
	`tree -L 2`,
}

func TestShellCheckBypasses(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"sub", ".git"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "inside"), []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	prefixes := []string{"go test", "go vet", "git diff", "git status", "git log", "git grep", "git show",
		"git fetch", "git", "find", "rg", "grep", "ls", "cat", "sort", "sed", "coproc", "time ls", "wc", "tree",
		"file", "du", "diff"}
	for _, cmd := range bypasses {
		err := ShellCheck(prefixes, ws, cmd)
		if err == nil {
			t.Errorf("ShellCheck(%q) allowed it, want ask", cmd)
		} else if !errors.Is(err, ErrShellNotAllowed) {
			t.Errorf("ShellCheck(%q) = %v, want ErrShellNotAllowed", cmd, err)
		}
	}
	for _, cmd := range safe {
		if err := ShellCheck(prefixes, ws, cmd); err != nil {
			t.Errorf("ShellCheck(%q) = %v, want allowed", cmd, err)
		}
	}
}

func TestShellCheckPrefixWords(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	prefixes := []string{"git status", "go test", "ls", "  make  check "}
	tests := []struct {
		cmd  string
		want bool
	}{
		{"git status", true},
		{"git status --short", true},
		{"  git   status   -s", true},
		{"go test ./...", true},
		{"ls", true},
		{"make check", true},
		{"'git' status", true},
		{"git statusx", false},
		{"git", false},
		{"git log", false},
		{"lsblk", false},
		{"rm -rf /", false},
	}
	for _, tt := range tests {
		if got := ShellCheck(prefixes, ws, tt.cmd) == nil; got != tt.want {
			t.Errorf("ShellCheck(%q) allowed = %v, want %v", tt.cmd, got, tt.want)
		}
	}
	if ShellCheck(nil, ws, "ls") == nil || ShellCheck([]string{""}, ws, "ls") == nil {
		t.Error("an empty prefix list allowed a command")
	}
}

// TestShellCheckGitRepository checks that git may run without asking only
// when its repository and work tree are the workspace's own.
func TestShellCheckGitRepository(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name  string
		setup func(ws string) error
		want  bool
	}{
		{"own .git directory", func(ws string) error { return os.Mkdir(filepath.Join(ws, ".git"), 0o755) }, true},
		{"no .git: git searches the parents", func(ws string) error { return nil }, false},
		{".git file naming a gitdir", func(ws string) error {
			return os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+outside+"\n"), 0o644)
		}, false},
		{".git symlink", func(ws string) error { return os.Symlink(outside, filepath.Join(ws, ".git")) }, false},
		{"core.worktree", func(ws string) error {
			if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\tworkTree = "+outside+"\n"), 0o644)
		}, false},
		{"include.path", func(ws string) error {
			if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[include]\n\tpath = x\n"), 0o644)
		}, false},
		{"alternates", func(ws string) error {
			return os.MkdirAll(filepath.Join(ws, ".git", "objects", "info", "alternates"), 0o755)
		}, false},
	}
	for _, tt := range tests {
		ws := t.TempDir()
		if err := tt.setup(ws); err != nil {
			t.Fatal(err)
		}
		if got := ShellCheck([]string{"git status"}, ws, "git status") == nil; got != tt.want {
			t.Errorf("%s: allowed = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestShellCheckProgramFromWorkspacePath(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "ls"), []byte("#!/bin/sh\nid\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ShellCheck([]string{"ls"}, ws, "ls"); err != nil {
		t.Fatalf("with a clean PATH: %v", err)
	}
	t.Setenv("PATH", ".:"+os.Getenv("PATH"))
	if err := ShellCheck([]string{"ls"}, ws, "ls"); err == nil {
		t.Error(`with "." first in PATH, ls from the workspace was allowed`)
	}
}

func TestLiteralArgv(t *testing.T) {
	got, err := LiteralArgv(`git  log "--format=%h %s" 'a b' c""d`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"git", "log", "--format=%h %s", "a b", "cd"}
	if len(got) != len(want) {
		t.Fatalf("argv = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("argv = %q, want %q", got, want)
		}
	}
}

// FuzzShellCheckAgainstBash runs every command line ShellCheck accepts
// through bash itself, in the sandbox agents' commands run in, with the
// allowed program replaced by one that only records its arguments: bash
// must run exactly that program with exactly the argv ShellCheck judged,
// and nothing else may change the workspace.
func FuzzShellCheckAgainstBash(f *testing.F) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		f.Skip("bash is not installed")
	}
	for _, cmd := range append(append([]string{}, bypasses...), safe...) {
		if _, rest, ok := strings.Cut(cmd, " "); ok {
			f.Add("kwsargv " + rest)
		}
		f.Add(cmd)
	}
	bin, out := f.TempDir(), filepath.Join(f.TempDir(), "argv")
	script := "#!" + bash + "\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$KWS_ARGV_OUT\"\n"
	if err := os.WriteFile(filepath.Join(bin, "kwsargv"), []byte(script), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		ws := t.TempDir()
		if err := os.WriteFile(filepath.Join(ws, "inside"), []byte("ok"), 0o644); err != nil {
			t.Fatal(err)
		}
		if ShellCheck([]string{"kwsargv"}, ws, cmd) != nil {
			return
		}
		argv, err := LiteralArgv(cmd)
		if err != nil {
			t.Fatalf("accepted %q but LiteralArgv fails: %v", cmd, err)
		}
		os.Remove(out)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if b, err := runConfined(ctx, ws, filepath.Dir(out), []string{"PATH=" + bin, "KWS_ARGV_OUT=" + out, "HOME=" + ws},
			bash, "-c", cmd); err != nil {
			t.Fatalf("bash -c %q: %v\n%s", cmd, err, b)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("bash -c %q did not run kwsargv: %v", cmd, err)
		}
		want := ""
		for _, a := range argv[1:] {
			want += a + "\x00"
		}
		if string(got) != want {
			t.Fatalf("bash -c %q ran argv %q, ShellCheck judged %q", cmd, strings.Split(string(got), "\x00"), argv)
		}
		entries, err := os.ReadDir(ws)
		if err != nil || len(entries) != 1 {
			t.Fatalf("bash -c %q changed the workspace: %v %v", cmd, entries, err)
		}
	})
}

// runConfined runs argv in ws with env, in the Landlock sandbox (writable:
// ws and also) where the kernel has it, else as a plain process.
func runConfined(ctx context.Context, ws, also string, env []string, argv ...string) ([]byte, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = ws, env, &out, &out
	p := sandbox.Policy{Workspace: ws, Writable: []string{also}}
	start := cmd.Start
	if _, err := sandbox.Available(); err == nil {
		start = func() error { return sandbox.Start(cmd, p) }
	}
	if err := start(); err != nil {
		return nil, err
	}
	err := cmd.Wait()
	return out.Bytes(), err
}
