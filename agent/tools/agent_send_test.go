package tools

import (
	"errors"
	"strings"
	"testing"
)

// fakeMailbox records what agent_send hands it and answers as a swarm of
// agent-1 (the sender), agent-2 and agent-3 would.
type fakeMailbox struct {
	sent []string
}

func (f *fakeMailbox) Send(to, text string) ([]string, error) {
	switch to {
	case "all":
		f.sent = append(f.sent, "agent-2:"+text, "agent-3:"+text)
		return []string{"agent-2", "agent-3"}, nil
	case "agent-2", "agent-3":
		f.sent = append(f.sent, to+":"+text)
		return []string{to}, nil
	}
	return nil, errors.New(`swarm: no such agent: "` + to + `" (agents: [agent-1 agent-2 agent-3])`)
}

func TestAgentSend(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		isError  bool
		want     []string
		wantSent []string
	}{
		{"one agent", `{"to":"agent-2","text":"tests pass on main"}`, false,
			[]string{"delivered to agent-2"}, []string{"agent-2:tests pass on main"}},
		{"every other agent", `{"to":"all","text":"  I own auth/  "}`, false,
			[]string{"delivered to agent-2, agent-3"}, []string{"agent-2:I own auth/", "agent-3:I own auth/"}},
		{"unknown agent", `{"to":"agent-9","text":"hi"}`, true, []string{"no such agent", "agent-2"}, nil},
		{"missing recipient", `{"text":"hi"}`, true, []string{`"to" is required`}, nil},
		{"blank text", `{"to":"agent-2","text":"  "}`, true, []string{`"text" is required`}, nil},
		{"unknown argument", `{"to":"agent-2","text":"hi","cc":"agent-3"}`, true, []string{`unknown argument "cc"`}, nil},
		{"oversized text", `{"to":"agent-2","text":"` + strings.Repeat("x", maxMessageBytes+1) + `"}`, true,
			[]string{"more than", "cite ctx ids"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, nil)
			mb := &fakeMailbox{}
			env.Mailbox = mb
			checkResult(t, call(t, env, "agent_send", tc.args), tc.isError, tc.want...)
			if strings.Join(mb.sent, "|") != strings.Join(tc.wantSent, "|") {
				t.Errorf("the mailbox got %q, want %q", mb.sent, tc.wantSent)
			}
		})
	}
}

func TestAgentSendWithoutSwarm(t *testing.T) {
	res := call(t, newEnv(t, nil), "agent_send", `{"to":"agent-2","text":"hi"}`)
	checkResult(t, res, true, "there is no swarm")
	if _, ok := ByName("agent_send"); !ok {
		t.Fatal("agent_send is not registered")
	}
	for _, n := range Core() {
		if n == "agent_send" {
			t.Fatal("agent_send is a core tool; it should be offered only on tool work")
		}
	}
}
