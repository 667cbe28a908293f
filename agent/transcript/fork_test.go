package transcript

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
)

// TestForkKeepsTheFirstMessages: a fork holds the messages before the cut
// and nothing after, opens as any session does, and leaves the original
// whole.
func TestForkKeepsTheFirstMessages(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := []provider.Message{{Role: "user", Content: "one"}, {Role: "assistant", Content: "1"},
		{Role: "user", Content: "two"}, {Role: "assistant", Content: "2"}}
	for _, m := range msgs {
		if err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	id, err := s.Fork(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.Messages(); !reflect.DeepEqual(got, msgs[:2]) {
		t.Fatalf("the fork holds %+v", got)
	}
	if f.Run().Workspace != "/w" || !strings.HasPrefix(f.Summary().Title, "rewound "+s.ID()) {
		t.Fatalf("the fork's run %+v, summary %+v", f.Run(), f.Summary())
	}
	if got := s.Messages(); len(got) != 4 {
		t.Fatalf("the original lost messages: %+v", got)
	}
	if _, err := s.Fork(dir, 5); err == nil {
		t.Fatal("a fork past the last message was made")
	}
}
