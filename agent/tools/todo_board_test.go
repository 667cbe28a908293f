package tools

import (
	"strings"
	"testing"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

// vaultBoard is the Board of one agent on a real vault, as the swarm's
// adapter gives it.
type vaultBoard struct {
	v    *vault.Vault
	name string
}

func (b vaultBoard) Agent() string { return b.name }
func (b vaultBoard) Add(title, detail string) (vault.Task, error) {
	return b.v.AddTask(title, detail, b.name)
}
func (b vaultBoard) Claim(id string) (vault.Task, error) { return b.v.ClaimTask(id, b.name) }
func (b vaultBoard) Update(id, detail string, st vault.TaskStatus) (vault.Task, error) {
	return b.v.UpdateTask(id, b.name, detail, st)
}
func (b vaultBoard) Done(id string) (vault.Task, error) { return b.v.DoneTask(id, b.name) }
func (b vaultBoard) List() ([]vault.Task, error)        { return b.v.ListTasks() }

func TestTodoToolBoard(t *testing.T) {
	v := vaulttest.MustOpen(t)
	one := newEnv(t, nil)
	one.Board = vaultBoard{v, "agent-1"}
	two := newEnv(t, nil)
	two.Board = vaultBoard{v, "agent-2"}
	steps := []struct {
		env     *Env
		args    string
		isError bool
		want    []string
	}{
		{one, `{"action":"list"}`, false, []string{"the shared task board is empty (you are agent-1)"}},
		{one, `{"action":"create","text":"write the parser\ntest the parser"}`, false,
			[]string{"[ ] t1. write the parser\n[ ] t2. test the parser\n(2 open, 0 claimed, 0 done)"}},
		{two, `{"action":"claim","id":1}`, false, []string{"you are agent-2", "[~] t1. write the parser (claimed by you)"}},
		{one, `{"action":"claim","id":"t1"}`, true, []string{"claimed by agent-2", "[~] t1. write the parser (claimed by agent-2)"}},
		{one, `{"action":"claim","id":2}`, false, []string{"[~] t2. test the parser (claimed by you)"}},
		{two, `{"action":"update","id":1,"text":"lexer done"}`, false, []string{"(claimed by you)\n    lexer done\n"}},
		{one, `{"action":"update","id":1,"status":"open"}`, true, []string{"claimed by agent-2"}},
		{one, `{"action":"update","id":2}`, true, []string{`needs a "text"`}},
		{one, `{"action":"update","id":2,"status":"frozen"}`, true, []string{`unknown status "frozen"`}},
		{two, `{"action":"done","id":1}`, false, []string{"[x] t1. write the parser (done by you)", "(0 open, 1 claimed, 1 done)"}},
		{one, `{"action":"update","id":2,"status":"open"}`, false, []string{"[ ] t2. test the parser\n", "(1 open, 0 claimed, 1 done)"}},
		{one, `{"action":"done","id":9}`, true, []string{"no task with that id", "[x] t1."}},
		{one, `{"action":"done"}`, true, []string{`needs the task's "id"`}},
		{one, `{"action":"add","text":" "}`, true, []string{`needs a non-empty "text"`}},
		{one, `{"action":"remove","id":1}`, true, []string{"keeps every task"}},
		{one, `{"action":"frob"}`, true, []string{`unknown action "frob"`}},
		{one, `{}`, true, []string{`"action" is required`}},
	}
	for i, s := range steps {
		res := call(t, s.env, "todo", s.args)
		if res.IsError != s.isError {
			t.Errorf("step %d %s: IsError = %v\n%s", i, s.args, res.IsError, res.Text)
		}
		for _, w := range s.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("step %d %s: result lacks %q:\n%s", i, s.args, w, res.Text)
			}
		}
	}
	if items := one.Todo.Items(); len(items) != 0 {
		t.Errorf("the per-agent list was used: %+v", items)
	}
	tasks, err := v.ListTasks()
	if err != nil || len(tasks) != 2 || tasks[0].Owner != "agent-2" || tasks[1].CreatedBy != "agent-1" {
		t.Errorf("board = %+v, %v", tasks, err)
	}
}
