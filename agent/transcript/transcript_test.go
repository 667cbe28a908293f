package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
)

func mustCreate(t *testing.T, dataDir string) *Transcript {
	t.Helper()
	s, err := Create(dataDir, "/ws")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustOpen(t *testing.T, dataDir, id string) (*Transcript, Recovery) {
	t.Helper()
	s, rec, err := Open(dataDir, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, rec
}

func readSummaryFile(t *testing.T, s *Transcript) Summary {
	t.Helper()
	var sum Summary
	if err := readJSON(filepath.Join(s.Dir(), SummaryFile), &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestRoundTrip(t *testing.T) {
	data := t.TempDir()
	s := mustCreate(t, data)
	msgs := []provider.Message{
		{Role: "system", Content: "You are kws."},
		{Role: "user", Content: "\n  Fix   the <auth> bug\nin detail"},
		{Role: "assistant", ToolCalls: []provider.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"go test"}`}}},
		{Role: "tool", Name: "shell", ToolCallID: "c1", Content: "ok & done"},
	}
	for i, m := range msgs {
		if err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if err := s.AppendEvent("diet", map[string]int{"saved": 42}); err != nil {
				t.Fatal(err)
			}
		}
	}
	call := SentCall{Messages: msgs[:2], Tools: []string{"shell"}, Usage: provider.Usage{PromptTokens: 10}, Attempts: 1}
	if err := s.RecordCall(call); err != nil {
		t.Fatal(err)
	}
	profile := map[string]any{"model": "m", "ctx": 131072}
	if err := s.SetRun(func(r *Run) { r.Profile = profile; r.Totals.Calls = 1 }); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSummary(func(sum *Summary) { sum.Status = StatusDone }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	r, rec := mustOpen(t, data, s.ID())
	if !rec.Clean() {
		t.Errorf("recovery = %+v, want clean", rec)
	}
	if got := r.Messages(); !reflect.DeepEqual(got, msgs) {
		t.Errorf("messages = %+v\nwant %+v", got, msgs)
	}
	sum := r.Summary()
	want := Summary{ID: s.ID(), Title: "Fix the <auth> bug", Messages: 4, Calls: 1, Status: StatusDone}
	if sum.ID != want.ID || sum.Title != want.Title || sum.Messages != want.Messages ||
		sum.Calls != want.Calls || sum.Status != want.Status {
		t.Errorf("summary = %+v, want %+v", sum, want)
	}
	run := r.Run()
	wantProfile := map[string]any{"model": "m", "ctx": json.Number("131072")}
	if !reflect.DeepEqual(run.Profile, wantProfile) || run.Workspace != "/ws" || run.Totals.Calls != 1 {
		t.Errorf("run = %+v", run)
	}
	raw, err := os.ReadFile(filepath.Join(r.Dir(), RawFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 5 || !strings.Contains(lines[2], `"event":{"type":"diet","data":{"saved":42}}`) ||
		!strings.Contains(lines[1], "<auth>") {
		t.Errorf("raw.jsonl = %s", raw)
	}
}

func TestOpenMarksRunningInterrupted(t *testing.T) {
	data := t.TempDir()
	s := mustCreate(t, data)
	if err := s.AppendMessage(provider.Message{Role: "user", Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readSummaryFile(t, s); got.Messages != 1 || got.Status != StatusRunning || got.Title != "hi" {
		t.Errorf("summary after Close = %+v, want 1 message, running, title hi", got)
	}
	r, rec := mustOpen(t, data, s.ID())
	if !rec.Interrupted || len(rec.Truncated) != 0 {
		t.Errorf("recovery = %+v, want interrupted only", rec)
	}
	if got := readSummaryFile(t, r); got.Status != StatusInterrupted {
		t.Errorf("status = %q, want interrupted", got.Status)
	}
}

func TestConcurrentAppends(t *testing.T) {
	data := t.TempDir()
	s := mustCreate(t, data)
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				content := fmt.Sprintf("w%d-%d", w, i)
				if err := s.AppendMessage(provider.Message{Role: "user", Content: content}); err != nil {
					t.Error(err)
				}
				if err := s.AppendEvent("tick", nil); err != nil {
					t.Error(err)
				}
				_ = s.Messages()
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, _ := mustOpen(t, data, s.ID())
	seen := map[string]bool{}
	for _, m := range r.Messages() {
		seen[m.Content] = true
	}
	if len(seen) != writers*each || r.Summary().Messages != writers*each {
		t.Errorf("got %d distinct messages, summary %d, want %d", len(seen), r.Summary().Messages, writers*each)
	}
}

func TestMessagesIsACopy(t *testing.T) {
	s := mustCreate(t, t.TempDir())
	defer s.Close()
	m := provider.Message{Role: "assistant", ToolCalls: []provider.ToolCall{{ID: "a"}}}
	if err := s.AppendMessage(m); err != nil {
		t.Fatal(err)
	}
	m.ToolCalls[0].ID = "changed by caller"
	got := s.Messages()
	got[0].ToolCalls[0].ID = "changed by reader"
	if id := s.Messages()[0].ToolCalls[0].ID; id != "a" {
		t.Errorf("stored tool call id = %q, want a", id)
	}
}

func TestClosedTranscript(t *testing.T) {
	s := mustCreate(t, t.TempDir())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	errs := []error{
		s.AppendMessage(provider.Message{Role: "user"}),
		s.AppendEvent("x", nil),
		s.RecordCall(SentCall{}),
		s.SetSummary(func(*Summary) {}),
		s.SetRun(func(*Run) {}),
	}
	for i, err := range errs {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("call %d after Close = %v, want ErrClosed", i, err)
		}
	}
}

func TestOpenRejectsBadIDs(t *testing.T) {
	data := t.TempDir()
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`} {
		if _, _, err := Open(data, id); err == nil || !strings.Contains(err.Error(), "invalid id") {
			t.Errorf("Open(%q) = %v, want invalid id", id, err)
		}
	}
}

// TestOpenMissingIsErrNotFound opens ids that name no session: no folder,
// a file where the folder would be, and a folder without summary.json.
func TestOpenMissingIsErrNotFound(t *testing.T) {
	data := t.TempDir()
	sessions := Dir(data)
	if err := os.MkdirAll(filepath.Join(sessions, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"20260101-000000-abcdef", "empty", "file"} {
		_, _, err := Open(data, id)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no transcript "+id+" in "+sessions) {
			t.Errorf("Open(%q) = %v, want ErrNotFound naming %s", id, err, sessions)
		}
	}
}

func TestTitle(t *testing.T) {
	long := strings.Repeat("é", 100)
	tests := []struct{ in, want string }{
		{"hello", "hello"},
		{"\n\n  first\tline  \nsecond", "first line"},
		{"   \n\t\n", ""},
		{long, strings.Repeat("é", 79) + "…"},
		{strings.Repeat("a", 80), strings.Repeat("a", 80)},
	}
	for _, tt := range tests {
		if got := Title(tt.in); got != tt.want {
			t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewID(t *testing.T) {
	re := regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{6}$`)
	if id := NewID(); !re.MatchString(id) {
		t.Errorf("NewID() = %q", id)
	}
}
