package memory

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// docFile is the file that holds memory m.
func docFile(dir string, m Memory) string {
	return filepath.Join(dir, slot(m.Scope), slot(m.ID)+docExt)
}

// listTexts returns the texts of scope's memories.
func listTexts(t *testing.T, s *Store, scope string) []string {
	t.Helper()
	list, err := s.List(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range list {
		out = append(out, m.Text)
	}
	return out
}

// TestDamagedFileIsQuarantined damages one file of a store as a kill in
// the middle of a write would and reopens it: the other memories are
// still listed and found, the damaged file is moved aside and named, and
// the store takes new memories.
func TestDamagedFileIsQuarantined(t *testing.T) {
	tests := []struct {
		name   string
		damage func(path string) error
		// meta damages the scope's name file instead of a memory's.
		meta bool
	}{
		{"empty", func(p string) error { return os.Truncate(p, 0) }, false},
		{"truncated to 64 bytes", func(p string) error { return os.Truncate(p, 64) }, false},
		{"truncated to 128 bytes", func(p string) error { return os.Truncate(p, 128) }, false},
		{"garbled", garble, false},
		{"another memory's bytes", nil, false},
		{"scope name file empty", func(p string) error { return os.Truncate(p, 0) }, true},
		{"scope name file garbled", garble, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			s := mustOpen(t, dir, Options{})
			keep1 := mustAdd(t, s, proj, "note", "the API server listens on port 8080")
			hit := mustAdd(t, s, proj, "note", "integration tests need docker running")
			keep2 := mustAdd(t, s, proj, "preference", "I prefer table-driven tests")
			global := mustAdd(t, s, GlobalScope, "preference", "answer in British English")

			path := docFile(dir, hit)
			if tt.meta {
				path = filepath.Join(dir, slot(proj), metaFile)
			}
			damage := tt.damage
			if damage == nil {
				damage = func(p string) error {
					data, err := os.ReadFile(docFile(dir, keep1))
					if err != nil {
						return err
					}
					return os.WriteFile(p, data, 0o600)
				}
			}
			if err := damage(path); err != nil {
				t.Fatal(err)
			}

			s, err := Open(dir, Options{})
			if err != nil {
				t.Fatalf("Open of a store with one damaged file: %v", err)
			}
			want := []string{keep1.Text, keep2.Text}
			if tt.meta {
				want = append(want, hit.Text)
			}
			got := listTexts(t, s, proj)
			if len(got) != len(want) {
				t.Fatalf("List after the damage = %q, want %q", got, want)
			}
			for _, w := range want {
				if !strings.Contains(strings.Join(got, "\n"), w) {
					t.Fatalf("List after the damage = %q, misses %q", got, w)
				}
			}
			if g := listTexts(t, s, GlobalScope); len(g) != 1 || g[0] != global.Text {
				t.Fatalf("global memories after the damage: %q", g)
			}
			hits, err := s.Search(ctx, "which port does the API server listen on", []string{proj}, 1)
			if err != nil || len(hits) != 1 || hits[0].ID != keep1.ID {
				t.Fatalf("Search after the damage = %+v, %v", hits, err)
			}

			d := s.Damaged()
			if len(d) != 1 || d[0].File != path || d[0].Err == nil || d[0].MovedTo == "" {
				t.Fatalf("Damaged() = %+v, want one naming %s", d, path)
			}
			if msg := d[0].String(); !strings.Contains(msg, path) || !strings.Contains(msg, d[0].MovedTo) {
				t.Fatalf("the warning %q names neither the file nor where it went", msg)
			}
			if filepath.Dir(d[0].MovedTo) != filepath.Join(dir, QuarantineDir) {
				t.Fatalf("moved to %s, want the quarantine folder", d[0].MovedTo)
			}
			if _, err := os.Stat(d[0].MovedTo); err != nil {
				t.Fatalf("the quarantined file is gone: %v", err)
			}

			added := mustAdd(t, s, proj, "note", "the linter is golangci-lint")
			s = mustOpen(t, dir, Options{})
			if d := s.Damaged(); len(d) != 0 {
				t.Fatalf("the next open reports damage again: %+v", d)
			}
			if got := listTexts(t, s, proj); len(got) != len(want)+1 {
				t.Fatalf("after a reopen: %q, want %d memories with %q", got, len(want)+1, added.Text)
			}
		})
	}
}

// garble overwrites the middle of the file at p with bytes a decoder
// cannot take.
func garble(p string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	for i := len(data) / 4; i < len(data)/4+32 && i < len(data); i++ {
		data[i] = 0xff
	}
	return os.WriteFile(p, data, 0o600)
}

// helperEnv names the environment variable that makes the test binary
// run TestHelperProcess's part instead of the tests.
const helperEnv = "KWS_MEMORY_TEST_HELPER"

// helper runs the test binary as another process doing what, in dir, and
// fails the test unless it exits 0.
func helper(t *testing.T, what, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+what, "KWS_MEMORY_TEST_DIR="+dir, "KWS_MEMORY_TEST_ARG="+strings.Join(args, "\x1f"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper %s: %v\n%s", what, err, out)
	}
	return string(out)
}

// TestHelperProcess is not a test: it is another process for the tests
// that need one, and does nothing unless helperEnv is set.
func TestHelperProcess(t *testing.T) {
	what := os.Getenv(helperEnv)
	if what == "" {
		return
	}
	dir := os.Getenv("KWS_MEMORY_TEST_DIR")
	args := strings.Split(os.Getenv("KWS_MEMORY_TEST_ARG"), "\x1f")
	if what == "reembed" {
		helperReembed(dir, args[0])
	}
	s, err := Open(dir, Options{Review: true})
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	ctx := context.Background()
	switch what {
	case "update-over-limit":
		// A write cut short: the file size limit stops every write of a
		// memory's file after its first kilobyte, as a kill would.
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1024, Max: 1024}); err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		m, err := s.Get(args[0])
		if err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		m.Text = args[1]
		if _, err := s.Update(ctx, m); err == nil {
			fmt.Println("the update went through despite the limit")
			os.Exit(2)
		}
	case "queue":
		for _, text := range args {
			if _, _, err := s.Promote(ctx, Candidate{Text: text, Kind: "remember", Confidence: 0.4}, proj, Provenance{Source: SourceUser}); err != nil {
				fmt.Println(err)
				os.Exit(2)
			}
		}
	default:
		fmt.Println("unknown helper", what)
		os.Exit(2)
	}
	os.Exit(0)
}

// TestInterruptedWriteKeepsTheOldMemory cuts a memory's update short in
// another process, and leaves a temporary file as a kill before the
// rename would: the store still opens with no damage, the memory has its
// old text, and the leftover is cleaned up.
func TestInterruptedWriteKeepsTheOldMemory(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, Options{})
	other := mustAdd(t, s, proj, "note", "the API server listens on port 8080")
	m := mustAdd(t, s, proj, "note", "integration tests need docker running")

	helper(t, "update-over-limit", dir, m.ID, "integration tests need podman running")
	// A kill between writing a temporary file and renaming it leaves it
	// behind.
	stale := filepath.Join(dir, slot(proj), tmpPrefix+"4242")
	if err := os.WriteFile(stale, []byte("half a memory"), 0o600); err != nil {
		t.Fatal(err)
	}

	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("Open after an interrupted write: %v", err)
	}
	if d := s.Damaged(); len(d) != 0 {
		t.Fatalf("an interrupted write damaged %+v", d)
	}
	got, err := s.Get(m.ID)
	if err != nil || got.Text != m.Text {
		t.Fatalf("Get after an interrupted update = %q, %v; want the old text %q", got.Text, err, m.Text)
	}
	if got, err := s.Get(other.ID); err != nil || got.Text != other.Text {
		t.Fatalf("the other memory: %q, %v", got.Text, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "*", tmpPrefix+"*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left after reopening: %q", leftovers)
	}
}
