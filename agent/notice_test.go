package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/provider/providertest"
)

// countNotices counts the messages of msgs that are notices.
func countNotices(msgs []provider.Message) int {
	n := 0
	for _, m := range msgs {
		if strings.HasPrefix(m.Content, NoticePrefix) {
			n++
		}
	}
	return n
}

func TestNoticesJoinTheHistoryBeforeTheNextCall(t *testing.T) {
	const notice = "agent-2 edited notes.txt after you read it; the diff is ctx:0123456789ab (ctx_get it to see the change)"
	// The hook has something to say only at its second call: after the
	// read, before the call that follows it. The agent runs on the test's
	// goroutine, so calls needs no lock.
	calls := 0
	hook := func() []string {
		calls++
		if calls == 2 {
			return []string{notice, "  ", NoticePrefix + " agent-3 wrote notes.txt after you read it"}
		}
		return nil
	}
	r := newRig(t, func(c *Config) { c.Notices = hook },
		providertest.ToolStep(call("c1", "read_file", map[string]any{"path": "notes.txt"})),
		providertest.TextStep("I will read it again."),
		providertest.TextStep("Nothing new."))
	if err := os.WriteFile(filepath.Join(r.ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.run("read notes.txt")
	r.run("anything else?")

	reqs := r.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	want := NoticePrefix + " " + notice + "\n" + NoticePrefix + " agent-3 wrote notes.txt after you read it"
	if got := r.lastMessage(1); got.Role != "user" || got.Content != want {
		t.Fatalf("the call after the read ends with %+v, want the notices\n%s", got, want)
	}
	if n := countNotices(reqs[0].Messages); n != 0 {
		t.Fatalf("the first call carried %d notices, want none", n)
	}
	// The notice stays in the history, once, and the later turn is sent
	// as the human's turn.
	if n := countNotices(reqs[2].Messages); n != 1 {
		t.Fatalf("the next turn's call carried %d notices, want the one recorded", n)
	}
	if got := r.lastMessage(2); got.Role != "user" || got.Content != "anything else?" {
		t.Fatalf("the next turn ends with %+v", got)
	}
	if n := countNotices(r.sess.Messages()); n != 1 {
		t.Fatalf("the session recorded %d notices, want 1", n)
	}
	if evs := r.eventsOf(EvNotice); len(evs) != 1 || evs[0].Text != want {
		t.Fatalf("notice events %+v, want one with the notice", evs)
	}
	if calls != 3 {
		t.Fatalf("the hook was called %d times, want once per model call (3)", calls)
	}
}

func TestNoticeIsNotTheHumanTurn(t *testing.T) {
	tests := []struct {
		msg   provider.Message
		human bool
	}{
		{provider.Message{Role: "user", Content: "fix the login bug"}, true},
		{provider.Message{Role: "user", Content: "[message from agent-2] tests pass"}, true},
		{provider.Message{Role: "user", Content: NoticePrefix + " agent-2 edited x.go after you read it"}, false},
		{provider.Message{Role: "tool", Content: NoticePrefix + " not a notice"}, false},
	}
	for _, tc := range tests {
		dm := dietMessage(tc.msg)
		if dm.IsHumanTurn() != tc.human {
			t.Errorf("%s %q: human turn %v, want %v", tc.msg.Role, tc.msg.Content, dm.IsHumanTurn(), tc.human)
		}
		if tc.msg.Role == "tool" && dm.Kind != "tool" {
			t.Errorf("a tool result starting with the notice prefix has kind %q, want tool", dm.Kind)
		}
	}
}
