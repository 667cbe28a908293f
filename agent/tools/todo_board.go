package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/vault"
)

// Board is the swarm's shared task board as one agent sees it: every call
// acts as that agent. The swarm gives each agent its own.
type Board interface {
	// Agent is the name of the agent the board acts as.
	Agent() string
	// Add puts a new open task on the board.
	Add(title, detail string) (vault.Task, error)
	// Claim makes the agent the task's owner; it fails with
	// vault.ErrClaimed, naming the owner, when another agent holds it.
	Claim(id string) (vault.Task, error)
	// Update changes the detail and the status of a task the agent holds;
	// empty values keep the old ones.
	Update(id, detail string, status vault.TaskStatus) (vault.Task, error)
	// Done marks the task finished.
	Done(id string) (vault.Task, error)
	// List returns every task in the order they were added.
	List() ([]vault.Task, error)
}

// runBoard applies one todo action to the shared board and returns the
// whole board.
func runBoard(b Board, a todoArgs) Result {
	id := "t" + strconv.Itoa(int(a.ID))
	var err error
	switch a.Action {
	case "add", "create":
		added := 0
		for _, line := range strings.Split(a.Text, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				if _, err = b.Add(line, ""); err != nil {
					break
				}
				added++
			}
		}
		if added == 0 && err == nil {
			return errResult(`todo: action %q needs a non-empty "text"`, a.Action)
		}
	case "claim", "update", "done":
		if a.ID <= 0 {
			return errResult("todo: action %q needs the task's \"id\" (3 for t3)", a.Action)
		}
		switch a.Action {
		case "claim":
			_, err = b.Claim(id)
		case "update":
			if strings.TrimSpace(a.Text) == "" && a.Status == "" {
				return errResult(`todo: action "update" needs a "text" (the new detail) or a "status"`)
			}
			_, err = b.Update(id, a.Text, vault.TaskStatus(a.Status))
		default:
			_, err = b.Done(id)
		}
	case "remove":
		return errResult("todo: the shared board keeps every task; use done, or update with status open to release it")
	case "list":
	case "":
		return errResult(`todo: "action" is required: add, claim, update, done or list`)
	default:
		return errResult("todo: unknown action %q; use add, claim, update, done or list", a.Action)
	}
	text, lerr := boardText(b)
	if lerr != nil {
		return errResult("todo: %v", lerr)
	}
	if err != nil {
		return errResult("todo: %v\n%s", err, text)
	}
	return Result{Text: text}
}

// boardText formats the board one task a line: "[ ] t1. title" open,
// "[~] t2. title (claimed by agent-2)" claimed, "[x] t3. title (done by
// agent-1)" done, each detail indented on the line below.
func boardText(b Board) (string, error) {
	tasks, err := b.List()
	if err != nil {
		return "", err
	}
	me := b.Agent()
	if len(tasks) == 0 {
		return fmt.Sprintf("the shared task board is empty (you are %s)", me), nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "shared task board (you are %s):\n", me)
	counts := map[vault.TaskStatus]int{}
	for _, t := range tasks {
		counts[t.Status]++
		mark, who := "[ ]", ""
		switch t.Status {
		case vault.TaskClaimed:
			mark, who = "[~]", " (claimed by "+ownerName(t.Owner, me)+")"
		case vault.TaskDone:
			mark = "[x]"
			if t.Owner != "" {
				who = " (done by " + ownerName(t.Owner, me) + ")"
			}
		}
		fmt.Fprintf(&sb, "%s %s. %s%s\n", mark, t.ID, t.Title, who)
		if t.Detail != "" {
			fmt.Fprintf(&sb, "    %s\n", strings.ReplaceAll(t.Detail, "\n", "\n    "))
		}
	}
	fmt.Fprintf(&sb, "(%d open, %d claimed, %d done)", counts[vault.TaskOpen], counts[vault.TaskClaimed], counts[vault.TaskDone])
	return sb.String(), nil
}

// ownerName is the owner as the agent reads it: "you" for itself.
func ownerName(owner, me string) string {
	if owner == me {
		return "you"
	}
	return owner
}
