package vault

import (
	"errors"
	"reflect"
	"testing"
)

// TestRedescribe replaces a block's provisional description and keeps the
// rest of its meta and its bytes; an unknown id is ErrNotFound.
func TestRedescribe(t *testing.T) {
	v, err := OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	data := []byte("FAIL: TestX\nmain_test.go:12: want 1\n")
	id, err := v.Put(data, Meta{Kind: "log", Agent: "agent-1", Tokens: 9, TokensEstimated: true, Sensitive: true, Workspaces: []string{"/ws"}})
	if err != nil {
		t.Fatal(err)
	}
	before, err := v.Meta(id)
	if err != nil {
		t.Fatal(err)
	}
	d := Described{Tokens: 14, Files: []string{"main_test.go"}, Topics: []string{"test"}, Summary: "1 failing test", Confidence: 0.8, Priority: "high"}
	if err := v.Redescribe(id, d); err != nil {
		t.Fatal(err)
	}
	after, err := v.Meta(id)
	if err != nil {
		t.Fatal(err)
	}
	want := before
	want.Tokens, want.TokensEstimated, want.Files, want.Topics = 14, false, d.Files, d.Topics
	want.Summary, want.Confidence, want.Priority, want.Sensitive = d.Summary, d.Confidence, d.Priority, false
	if !reflect.DeepEqual(after, want) {
		t.Errorf("meta after Redescribe:\n%+v\nwant\n%+v", after, want)
	}
	if got, err := v.Get(id); err != nil || string(got) != string(data) {
		t.Errorf("bytes after Redescribe: %q, %v", got, err)
	}
	if err := v.Redescribe("ctx:0000000000ff", d); !errors.Is(err, ErrNotFound) {
		t.Errorf("Redescribe of an unknown id: %v, want ErrNotFound", err)
	}
}
