package replay

import (
	"fmt"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
)

// KindHandoff marks the message that hands a task from one agent role to
// the next in a swarm session.
const KindHandoff = "handoff"

// swarmRole is one agent of a swarm session: its name and the brief that
// opens its system prompt.
type swarmRole struct{ name, brief string }

// swarmRoles are the roles a swarm session hands its task through, in
// order: each gets its own system prompt and the same task text.
var swarmRoles = []swarmRole{
	{"planner", "You are the PLANNER of a team of coding agents. Read the task, explore the repository and reproduce the problem; end with a plan the coder can follow. Do not edit source files."},
	{"coder", "You are the CODER of a team of coding agents. The planner explored the task before you. Implement the fix with the smallest correct change and show that it works."},
	{"reviewer", "You are the REVIEWER of a team of coding agents. The coder changed the repository. Check the change against the task, run the tests, fix what is still wrong and submit."},
}

// Swarm turns one single-agent conversation into a multi-agent session:
// its steps (everything after the task) are split into one contiguous part
// per role, cut before assistant messages, and each role after the first
// starts with a handoff message that carries its own system prompt (its
// brief, then the original system prompt), the task text exactly as the
// first role got it, and the previous role's last message. The first role's
// system prompt is the session's. A conversation too short to split is
// returned with only its system prompt rebriefed.
func Swarm(conv Conversation) Conversation {
	out := Conversation{Name: "swarm-" + conv.Name}
	task := taskIndex(conv.Messages)
	system := ""
	if len(conv.Messages) > 0 && conv.Messages[0].Role == "system" {
		system = conv.Messages[0].Content
	}
	if task < 0 || system == "" {
		out.Messages = append(out.Messages, conv.Messages...)
		return out
	}
	starts := splitSteps(conv.Messages, task+1, len(swarmRoles))
	head := append([]diet.Message(nil), conv.Messages[:task+1]...)
	head[0].Content = roleSystem(swarmRoles[0], system)
	out.Messages = head
	for k, start := range starts {
		end := len(conv.Messages)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		if k > 0 {
			out.Messages = append(out.Messages, handoff(swarmRoles[k-1], swarmRoles[k], system,
				conv.Messages[task].Content, lastAssistant(conv.Messages[:start])))
		}
		out.Messages = append(out.Messages, conv.Messages[start:end]...)
	}
	return out
}

// taskIndex returns the index of the task: the first human turn, else
// the first user message (some trajectories log the task as an
// observation), or -1.
func taskIndex(msgs []diet.Message) int {
	first := -1
	for i, m := range msgs {
		if m.IsHumanTurn() {
			return i
		}
		if first < 0 && m.Role == "user" && m.Kind != "demo" {
			first = i
		}
	}
	return first
}

// splitSteps returns the start of each of up to n parts of msgs[from:],
// each as even as whole steps allow and each starting at an assistant
// message.
func splitSteps(msgs []diet.Message, from, n int) []int {
	var cuts []int
	for i := from; i < len(msgs); i++ {
		if msgs[i].Role == "assistant" {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) < n {
		return []int{from}
	}
	starts := []int{from}
	for k := 1; k < n; k++ {
		starts = append(starts, cuts[k*len(cuts)/n])
	}
	return starts
}

func roleSystem(r swarmRole, system string) string {
	return r.brief + "\n\n" + system
}

func handoff(from, to swarmRole, system, task, notes string) diet.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "[handoff from %s to %s]\n\n## System prompt of the %s\n\n%s\n\n## Task\n\n%s\n\n## Last message of the %s\n\n%s",
		from.name, to.name, to.name, roleSystem(to, system), task, from.name, notes)
	return diet.Message{Role: "user", Kind: KindHandoff, Content: b.String()}
}

func lastAssistant(msgs []diet.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			return msgs[i].Content
		}
	}
	return ""
}

// SplitSets sorts nothing: it divides files, already sorted by name, into
// the tune set and the held-out measure set (every third file, 0-based
// index % 3 == 2), the split every figure of the diet is reported on.
func SplitSets(sorted []string) (tune, measure []string) {
	for i, f := range sorted {
		if i%3 == 2 {
			measure = append(measure, f)
		} else {
			tune = append(tune, f)
		}
	}
	return tune, measure
}
