package checkpoint

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kwsdev/kws/vault"
)

func TestDeltaRoundTrip(t *testing.T) {
	d := delta{
		"a/b.txt":      {kind: kindFile, perm: 0o644, hash: vault.HashBlob([]byte("x"))},
		"a":            {kind: kindDir, perm: 0o755},
		"gone\n\x1b.c": {},
	}
	got, err := decodeDelta(d.encode())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(d) {
		t.Fatalf("decoded %v", got)
	}
	for p, e := range d {
		if got[p] != e {
			t.Errorf("%q = %+v, want %+v", p, got[p], e)
		}
	}
}

// TestManifestPathsStayInside decodes manifests naming paths outside the
// root, as a tampered vault could hold: each is refused.
func TestManifestPathsStayInside(t *testing.T) {
	for _, p := range []string{"../x", "a/../../x", "/etc/passwd", "", "a//b", "./a", "a/.", "a\x00b"} {
		raw := []byte{deltaFormat}
		raw = binary.AppendUvarint(raw, uint64(len(p)))
		raw = append(append(raw, p...), byte(kindDir))
		raw = binary.AppendUvarint(raw, 0o755)
		if _, err := decodeDelta(raw); !errors.Is(err, ErrBadPath) {
			t.Errorf("%q: %v, want ErrBadPath", p, err)
		}
	}
	for _, raw := range [][]byte{nil, {9}, {deltaFormat, 5, 'a'}, {deltaFormat, 1, 'a', 7}, {deltaFormat, 1, 'a', byte(kindFile), 0x80}} {
		if _, err := decodeDelta(raw); err == nil {
			t.Errorf("%v decoded", raw)
		}
	}
}

// TestRacyFileIsReadAgain gives a file the stamp the scanner remembers,
// as a rewrite within one tick of a coarse clock does: a file modified
// shortly before the last scan is read again anyway, an older one is
// trusted.
func TestRacyFileIsReadAgain(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "f.txt")
	if err := os.WriteFile(p, []byte("aaaa\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &scanner{limits: Limits{}.withDefaults()}
	scan := func() manifest {
		m, _, err := s.scan(root, func([][]byte) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := scan()["f.txt"]
	if err := os.WriteFile(p, []byte("bbbb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	c := s.files["f.txt"]
	c.st = stampOf(fi)
	s.files["f.txt"] = c
	if got := scan()["f.txt"]; got == first {
		t.Fatal("a racy file with an unchanged stamp was not read again")
	}

	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	settled := scan()["f.txt"]
	if err := os.WriteFile(p, []byte("cccc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if fi, err = os.Lstat(p); err != nil {
		t.Fatal(err)
	}
	c = s.files["f.txt"]
	c.st = stampOf(fi)
	s.files["f.txt"] = c
	if got := scan()["f.txt"]; got != settled {
		t.Fatal("a settled file with an unchanged stamp was read again: the cache is not used")
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"src/main.go":     "src/main.go",
		"a b/ü.txt":       "a b/ü.txt",
		"new\nline":       `"new\nline"`,
		"esc\x1b[31m":     `"esc\x1b[31m"`,
		"bad\xff":         `"bad\xff"`,
		"rtl\u202etxt":    `"rtl\u202etxt"`,
		`looks"quoted"`:   `"looks\"quoted\""`,
		"tab\there":       `"tab\there"`,
		"c1\u0085control": `"c1\u0085control"`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
	}
}
