package vault

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// MustOpen opens a fresh vault in t.TempDir and closes it at cleanup.
func MustOpen(t testing.TB) *Vault {
	t.Helper()
	v, err := OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func TestPutGetIsByteExact(t *testing.T) {
	v := MustOpen(t)
	big := bytes.Repeat([]byte("line of a long build log\r\n"), 40000)
	cases := map[string][]byte{
		"text":        []byte("hello\nworld\n"),
		"binary":      {0, 1, 2, 0xff, 0xfe, 0, '\n', 0x1b, '[', '3', '1', 'm'},
		"invalid utf": {'a', 0xc3, 0x28, 0xe2, 0x82, 'z'},
		"crlf":        []byte("a\r\nb\r\n"),
		"one byte":    {'x'},
		"1MB":         big,
	}
	for name, data := range cases {
		id, err := v.Put(data, Meta{Kind: "test"})
		if err != nil {
			t.Fatalf("%s: put: %v", name, err)
		}
		if id != IDFor(data) {
			t.Errorf("%s: id %s, want %s", name, id, IDFor(data))
		}
		got, err := v.Get(id)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: get returned %d bytes, err %v", name, len(got), err)
		}
		m, err := v.Meta(id)
		if err != nil || m.Chars != len(data) || m.ID != id || m.Created.IsZero() {
			t.Fatalf("%s: meta %+v err %v", name, m, err)
		}
	}
}

func TestPutEmptyRefused(t *testing.T) {
	v := MustOpen(t)
	if _, err := v.Put(nil, Meta{}); !errors.Is(err, ErrEmpty) {
		t.Fatalf("empty put: %v, want ErrEmpty", err)
	}
	if n, _ := v.Len(); n != 0 {
		t.Fatalf("empty put stored %d blocks", n)
	}
}

func TestPutIsIdempotentAndNeverOverwrites(t *testing.T) {
	v := MustOpen(t)
	data := []byte("same bytes")
	id1, _ := v.Put(data, Meta{Kind: "first", Summary: "one"})
	id2, err := v.Put(data, Meta{Kind: "second", Summary: "two"})
	if err != nil || id1 != id2 {
		t.Fatalf("ids %s %s err %v", id1, id2, err)
	}
	m, _ := v.Meta(id1)
	if m.Kind != "first" || m.Summary != "one" {
		t.Fatalf("second put overwrote meta: %+v", m)
	}
	if n, _ := v.Len(); n != 1 {
		t.Fatalf("len %d", n)
	}
}

// TestCollisionLengthensID plants other bytes under a block's 12-digit id
// (as a sha256 prefix collision would) and checks the new block gets a
// longer id while the old bytes stay.
func TestCollisionLengthensID(t *testing.T) {
	v := MustOpen(t)
	data := []byte("the block that collides")
	short := IDFor(data)
	squatter := []byte("other bytes with the same prefix")
	err := v.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBlocks).Put([]byte(short), squatter)
	})
	if err != nil {
		t.Fatal(err)
	}
	id, err := v.Put(data, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != len(short)+4 || !strings.HasPrefix(id, short) {
		t.Fatalf("id %s, want %s plus 4 digits", id, short)
	}
	if got, _ := v.db.Begin(false); got != nil {
		old := got.Bucket(bucketBlocks).Get([]byte(short))
		if !bytes.Equal(old, squatter) {
			t.Fatal("collision overwrote the existing block")
		}
		got.Rollback()
	}
	again, _ := v.Put(data, Meta{})
	if again != id {
		t.Fatalf("re-put gave %s, want %s", again, id)
	}
}

func TestGetErrors(t *testing.T) {
	v := MustOpen(t)
	id, _ := v.Put([]byte("abc"), Meta{})
	if got, err := v.Get(strings.ToUpper(id[4:12])); err != nil || string(got) != "abc" {
		t.Fatalf("prefix get: %q %v", got, err)
	}
	if _, err := v.Get("ctx:000000000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	for _, bad := range []string{"", "ctx:", "ctx:xyz", "ctx:123", "ctx:" + strings.Repeat("a", 65)} {
		if _, err := v.Get(bad); !errors.Is(err, ErrBadID) {
			t.Errorf("Get(%q) = %v, want ErrBadID", bad, err)
		}
	}
}

func TestSearchRanksAndNeverReturnsBytes(t *testing.T) {
	v := MustOpen(t)
	docs := []struct {
		text string
		meta Meta
	}{
		{"FAILED tests/test_auth.py::test_token_refresh - AssertionError: token expired\n1 failed, 20 passed", Meta{Kind: "tool:shell", Topics: []string{"pytest", "auth"}}},
		{"def refresh_token(session):\n    return session.renew()\n", Meta{Kind: "file", Files: []string{"auth/token.py"}}},
		{"npm install finished in 3s, 120 packages", Meta{Kind: "tool:shell"}},
		{"the weather is nice today", Meta{Kind: "user"}},
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i], _ = v.Put([]byte(d.text), d.meta)
	}
	cases := []struct {
		query string
		want  string
	}{
		{"token expired assertion", ids[0]},
		{"auth/token.py", ids[1]},
		{"npm packages", ids[2]},
		{"pytest", ids[0]},
	}
	for _, tc := range cases {
		hits, err := v.Search(tc.query, 3)
		if err != nil || len(hits) == 0 || hits[0].ID != tc.want {
			t.Fatalf("Search(%q) = %+v, %v; want %s first", tc.query, hits, err, tc.want)
		}
	}
	if hits, _ := v.Search("zebra", 3); len(hits) != 0 {
		t.Fatalf("no-match search returned %d hits", len(hits))
	}
	// Blocks put after the index is loaded are found too, and the index
	// survives a reopen.
	late, _ := v.Put([]byte("kubernetes pod crashloop backoff"), Meta{})
	if hits, _ := v.Search("crashloop", 1); len(hits) != 1 || hits[0].ID != late {
		t.Fatalf("late block not indexed: %+v", hits)
	}
	path := v.Path()
	v.Close()
	v2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if hits, _ := v2.Search("crashloop", 1); len(hits) != 1 || hits[0].ID != late {
		t.Fatalf("after reopen: %+v", hits)
	}
}

func TestConcurrentPutGet(t *testing.T) {
	v := MustOpen(t)
	const workers, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				data := []byte(fmt.Sprintf("worker %d block %d %s", w, i, strings.Repeat("x", i*7)))
				id, err := v.Put(data, Meta{Agent: fmt.Sprint(w)})
				if err != nil {
					errs <- err
					return
				}
				got, err := v.Get(id)
				if err != nil || !bytes.Equal(got, data) {
					errs <- fmt.Errorf("worker %d: get %s: %v", w, id, err)
					return
				}
				if i%10 == 0 {
					if _, err := v.Search("worker block", 5); err != nil {
						errs <- err
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, _ := v.Len(); n != workers*each {
		t.Fatalf("len %d, want %d", n, workers*each)
	}
}

func TestCorruptFileIsAClearError(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("not a bolt file "), 4096), 0o600)
	if _, err := Open(garbage, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("garbage: %v, want ErrCorrupt", err)
	}
	// A real vault with its data pages overwritten.
	good := filepath.Join(dir, "good.db")
	v, err := Open(good, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		v.Put([]byte(fmt.Sprintf("block %d %s", i, strings.Repeat("y", 500))), Meta{})
	}
	v.Close()
	raw, _ := os.ReadFile(good)
	for i := 4 * 4096; i < len(raw); i++ {
		raw[i] ^= 0x5a
	}
	os.WriteFile(good, raw, 0o600)
	v, err = Open(good, nil)
	if err == nil {
		defer v.Close()
		_, err = v.Search("block", 3)
		if err == nil {
			err = v.Check()
		}
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("damaged vault: %v, want ErrCorrupt", err)
	}
	// Truncated to half a page.
	trunc := filepath.Join(dir, "trunc.db")
	os.WriteFile(trunc, raw[:2048], 0o600)
	if _, err := Open(trunc, nil); err == nil {
		t.Fatal("truncated vault opened without error")
	}
}

func TestStatsLog(t *testing.T) {
	v := MustOpen(t)
	if err := v.AppendStats(DietEvent{Call: 1, NaiveTokens: 100, SentTokens: 40}, DietEvent{Call: 2}); err != nil {
		t.Fatal(err)
	}
	var calls []int
	v.Stats(func(e DietEvent) error { calls = append(calls, e.Call); return nil })
	if fmt.Sprint(calls) != "[1 2]" {
		t.Fatalf("stats order %v", calls)
	}
}

func TestClosedVault(t *testing.T) {
	v, err := OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	if _, err := v.Get("ctx:000000000000"); !errors.Is(err, ErrClosed) {
		t.Fatalf("get after close: %v", err)
	}
}
