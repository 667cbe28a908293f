package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/vault"
)

// scopedVault is the shared vault as one workspace's agent sees it: every
// block the agent stores records the workspace, and searches never list a
// sensitive block that another workspace stored.
type scopedVault struct {
	Vault
	workspace string
	// stored, when set, hears of every put that succeeded.
	stored func(blocks []vault.Block, ids []string)
}

// PutMany stores blocks with the agent's workspace in their metadata.
func (s scopedVault) PutMany(blocks []vault.Block) ([]string, error) {
	if s.workspace != "" {
		stamped := make([]vault.Block, len(blocks))
		for i, b := range blocks {
			b.Meta.Workspaces = []string{s.workspace}
			stamped[i] = b
		}
		blocks = stamped
	}
	ids, err := s.Vault.PutMany(blocks)
	if err == nil && s.stored != nil {
		s.stored(blocks, ids)
	}
	return ids, err
}

// Search returns the best k hits the workspace may see, asking the vault
// for more when some of the best belong to other workspaces.
func (s scopedVault) Search(query string, k int) ([]vault.Hit, error) {
	return s.find(vault.Query{Text: strings.TrimSpace(query), K: k})
}

// finder is a vault that ranks knowing who asks (the real one).
type finder interface {
	Find(q vault.Query) ([]vault.Hit, error)
}

// find is Search for a query that may name its asker.
func (s scopedVault) find(q vault.Query) ([]vault.Hit, error) {
	k := q.K
	for n := k; ; n *= 2 {
		q.K = n
		var hits []vault.Hit
		var err error
		if f, ok := s.Vault.(finder); ok {
			hits, err = f.Find(q)
		} else {
			hits, err = s.Vault.Search(q.Text, n)
		}
		if err != nil {
			return nil, err
		}
		kept := hits[:0]
		for _, h := range hits {
			if h.Meta.VisibleTo(s.workspace) {
				kept = append(kept, h)
			}
		}
		if len(kept) >= k || len(hits) < n {
			return kept[:min(k, len(kept))], nil
		}
	}
}

// askerSearch answers the agent's own searches (ctx_search, .ctx_search)
// as its conversation: "N messages ago" and "the last run of X" count in
// it, not in whichever conversation stored a block last.
type askerSearch struct {
	v scopedVault
	a *Agent
}

// Search finds the best k hits for query as the agent's conversation.
func (s askerSearch) Search(query string, k int) ([]vault.Hit, error) {
	return s.v.find(vault.Query{Text: strings.TrimSpace(query), K: k, Agent: s.a.cfg.Name, Session: s.a.cfg.SessionID, Now: s.a.dietS.Len()})
}

// sensitiveGate guards a page fault for the block id: it returns "" when
// the block may be served, else the answer the model reads instead. A
// sensitive block is served only to a workspace that stored it, and only
// after the user approves through the permission broker (a configured
// deny of ctx_get refuses it; no broker means no one can approve).
func (a *Agent) sensitiveGate(ctx context.Context, f diet.Fault) string {
	m, err := a.cfg.Vault.Meta(f.ID)
	if err != nil || !m.Sensitive {
		return "" // Answer reports a missing or damaged block itself.
	}
	if !m.StoredIn(a.cfg.Workspace) {
		return fmt.Sprintf("<ctx_error id=%q>block %s is marked sensitive and was stored by another workspace; it is not served here</ctx_error>", f.ID, m.ID)
	}
	policy := &permission.Policy{Tools: map[string]permission.Decision{"ctx_get": permission.Ask}}
	if a.cfg.Policy.Decide("ctx_get", tools.ReadOnly, "") == permission.Deny {
		policy.Tools["ctx_get"] = permission.Deny
	}
	args, _ := json.Marshal(map[string]string{"id": m.ID, "reason": f.Reason})
	a.requestSeq++
	req := permission.Request{ID: fmt.Sprintf("%s-%d", a.cfg.Name, a.requestSeq), Tool: "ctx_get", Args: string(args),
		Preview: fmt.Sprintf("send the SENSITIVE block %s (%s, %d chars) to the model; reason: %s\n%s", m.ID, m.Kind, m.Chars, f.Reason, m.Summary),
		Agent:   a.cfg.Name}
	req.Waiting = func() { a.waiting("ctx_get", provider.ToolCall{Name: "ctx_get", Arguments: string(args)}) }
	allowed, reason, err := permission.Check(ctx, policy, a.cfg.Broker, tools.ReadOnly, req)
	decision := "allow"
	if !allowed {
		decision = "deny"
	}
	a.emit(Event{Type: EvPermission, Tool: "ctx_get", Decision: decision, Text: reason})
	a.event("permission", map[string]string{"tool": "ctx_get", "id": m.ID, "decision": decision, "reason": reason})
	switch {
	case err != nil:
		return fmt.Sprintf("<ctx_error id=%q>sensitive block not served: asking for approval failed: %s</ctx_error>", f.ID, diet.EscapeMarkup(err.Error()))
	case !allowed:
		return fmt.Sprintf("<ctx_error id=%q>sensitive block not served: %s</ctx_error>", f.ID, diet.EscapeMarkup(reason))
	}
	return ""
}
