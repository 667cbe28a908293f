package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// AgentState is one agent of a member as the team sees it.
type AgentState struct {
	Member  string    `json:"member"`
	Session string    `json:"session"`
	Agent   string    `json:"agent"`
	State   string    `json:"state"`
	Updated time.Time `json:"updated"`
}

// agentsEvery is how often a member tells the team of its agents; an
// entry lives three times that, so a member that died drops off.
const agentsEvery = 10 * time.Second

// sendTimeout bounds a message's trip to another member and its answer.
const sendTimeout = 10 * time.Second

// Deliver hands a message from another member to one of this member's
// agents: to is the agent's name, from the sender as "agent@member".
type Deliver func(from, to, text string) error

// Agents is the team's list of agents, in a key-value bucket whose
// entries expire unless their member renews them, and the way a message
// reaches an agent on another member.
type Agents struct {
	kv     jetstream.KeyValue
	nc     *nats.Conn
	member string
	team   string
	sub    *nats.Subscription

	mu   sync.Mutex
	mine map[string]AgentState // by key, what this member published
}

// OpenAgents creates or binds the team's agents bucket and answers the
// messages sent to this member's agents through deliver.
func OpenAgents(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, team, member string, replicas int, deliver Deliver) (*Agents, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      "KWS_AGENTS",
		Description: "kws: every member's agents",
		TTL:         3 * agentsEvery,
		Replicas:    max(1, replicas),
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("team: the agents' bucket: %w", err)
	}
	a := &Agents{kv: kv, nc: nc, member: member, team: team, mine: map[string]AgentState{}}
	a.sub, err = nc.Subscribe(a.sendSubject(member), func(msg *nats.Msg) {
		var m struct{ From, To, Text string }
		answer := ""
		if err := json.Unmarshal(msg.Data, &m); err != nil {
			answer = "a damaged message"
		} else if err := deliver(m.From, m.To, m.Text); err != nil {
			answer = err.Error()
		}
		_ = msg.Respond([]byte(answer))
	})
	if err != nil {
		return nil, fmt.Errorf("team: %w", err)
	}
	return a, nil
}

func (a *Agents) sendSubject(member string) string {
	return "kws." + a.team + ".send." + member
}

// agentKey is an agent's key in the bucket: member, session and agent,
// each kept to the characters keys allow.
func agentKey(member, session, agent string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return r
			}
			return '_'
		}, s)
	}
	return clean(member) + "." + clean(session) + "." + clean(agent)
}

// Publish tells the team of this member's agents now: new and changed
// ones are put, gone ones deleted, and all renewed when refresh is set
// (every agentsEvery).
func (a *Agents) Publish(ctx context.Context, agents []AgentState, refresh bool) error {
	now := time.Now().UTC()
	next := map[string]AgentState{}
	for _, s := range agents {
		s.Member = a.member
		next[agentKey(a.member, s.Session, s.Agent)] = s
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for k, s := range next {
		old, had := a.mine[k]
		if had && old.State == s.State && old.Session == s.Session && !refresh {
			next[k] = old
			continue
		}
		s.Updated = now
		next[k] = s
		data, _ := json.Marshal(s)
		if _, err := a.kv.Put(ctx, k, data); err != nil {
			errs = append(errs, err)
			delete(next, k)
		}
	}
	for k := range a.mine {
		if _, ok := next[k]; !ok {
			if err := a.kv.Delete(ctx, k); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
				errs = append(errs, err)
				next[k] = a.mine[k]
			}
		}
	}
	a.mine = next
	return errors.Join(errs...)
}

// List returns every member's agents, by member, session and name.
func (a *Agents) List(ctx context.Context) ([]AgentState, error) {
	keys, err := a.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("team: list the agents: %w", err)
	}
	var out []AgentState
	for k := range keys.Keys() {
		e, err := a.kv.Get(ctx, k)
		if err != nil {
			continue
		}
		var s AgentState
		if json.Unmarshal(e.Value(), &s) == nil {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(x, y AgentState) int {
		return strings.Compare(x.Member+"\x00"+x.Session+"\x00"+x.Agent, y.Member+"\x00"+y.Session+"\x00"+y.Agent)
	})
	return out, nil
}

// Send delivers text from the local agent from to the agent to on
// member, and returns that member's refusal as an error.
func (a *Agents) Send(from, to, member, text string) error {
	if member == a.member {
		return fmt.Errorf("team: %s is this member", member)
	}
	data, _ := json.Marshal(struct{ From, To, Text string }{From: from + "@" + a.member, To: to, Text: text})
	msg, err := a.nc.Request(a.sendSubject(member), data, sendTimeout)
	if errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("team: member %s is not reachable", member)
	}
	if err != nil {
		return fmt.Errorf("team: send to %s@%s: %w", to, member, err)
	}
	if len(msg.Data) > 0 {
		return fmt.Errorf("%s@%s: %s", to, member, msg.Data)
	}
	return nil
}

// Close stops answering messages; this member's entries expire.
func (a *Agents) Close() error {
	if a.sub != nil {
		return a.sub.Unsubscribe()
	}
	return nil
}
