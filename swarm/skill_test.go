package swarm

import (
	"errors"
	"testing"

	"github.com/kwsdev/kws/agent/permission"
	"github.com/kwsdev/kws/agent/provider/providertest"
	"github.com/kwsdev/kws/agent/skill"
)

// TestSendExpandsSkills checks that "/name args" typed to an agent runs as
// the skill, as kws run does, while EvTurn shows the line as typed (the
// pane matches its queued line by it), and that a skill marked
// user_invocable = false is refused without queueing anything.
func TestSendExpandsSkills(t *testing.T) {
	h := newHarness(t, permission.Interactive)
	h.sw.cfg.Skills = []skill.Skill{
		{Name: "review", Body: "Review $0 for bugs.", UserInvocable: true},
		{Name: "internal", Body: "Model only.", Path: "/skills/internal.md"},
	}
	name, srv := h.spawn(providertest.TextStep("reviewed"))
	if err := h.sw.Send(name, "/internal now"); !errors.Is(err, skill.ErrNotUserInvocable) {
		t.Fatalf("Send(/internal) = %v, want ErrNotUserInvocable", err)
	}
	if in := h.info(name); in.Queued != 0 || in.State != StateIdle {
		t.Fatalf("after a refused skill: %+v, want nothing queued", in)
	}
	w := h.watch()
	h.send(name, "/review main.go")
	for _, e := range of(name, w.until("EvFinished", is(EvFinished, name))) {
		if e.Type == EvTurn && e.Text != "/review main.go" {
			t.Errorf("EvTurn shows %q, want the line as typed", e.Text)
		}
	}
	msgs := srv.Requests()[0].Messages
	if got := msgs[len(msgs)-1].Content; got != "Review main.go for bugs." {
		t.Errorf("the model got %q, want the expanded skill", got)
	}
}
