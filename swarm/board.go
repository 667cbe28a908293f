package swarm

import (
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/vault"
)

// BoardStore is what the task board needs of the vault; *vault.Vault is
// one. Each call is one transaction, so two agents never both win a claim.
type BoardStore interface {
	AddTask(title, detail, createdBy string) (vault.Task, error)
	ClaimTask(id, agent string) (vault.Task, error)
	UpdateTask(id, agent, detail string, status vault.TaskStatus) (vault.Task, error)
	DoneTask(id, agent string) (vault.Task, error)
	ListTasks() ([]vault.Task, error)
}

// Board is the swarm's shared task board: tasks stored in the vault that
// agents add, claim, update and finish through their todo tool and the
// user follows in the board pane. Every change is published as EvBoard
// on the swarm's bus. An agent name of "" is the user. A Board is safe
// for many goroutines.
type Board struct {
	store BoardStore
	sw    *Swarm
}

// NewBoard returns the board kept in store whose changes are published to
// the subscribers of sw; a nil sw publishes nothing.
func NewBoard(store BoardStore, sw *Swarm) *Board {
	return &Board{store: store, sw: sw}
}

// Add puts a new open task on the board; by is the agent adding it.
func (b *Board) Add(by, title, detail string) (vault.Task, error) {
	return b.changed(by)(b.store.AddTask(title, detail, by))
}

// Claim makes agent the owner of the task id; another agent's task fails
// with vault.ErrClaimed naming the owner.
func (b *Board) Claim(id, agent string) (vault.Task, error) {
	return b.changed(agent)(b.store.ClaimTask(id, agent))
}

// Update changes the detail and status of the task id; see
// vault.Vault.UpdateTask for who may.
func (b *Board) Update(id, agent, detail string, status vault.TaskStatus) (vault.Task, error) {
	return b.changed(agent)(b.store.UpdateTask(id, agent, detail, status))
}

// Done marks the task id finished; see vault.Vault.DoneTask for who may.
func (b *Board) Done(id, agent string) (vault.Task, error) {
	return b.changed(agent)(b.store.DoneTask(id, agent))
}

// List returns every task in the order they were added.
func (b *Board) List() ([]vault.Task, error) { return b.store.ListTasks() }

// For returns the board as the agent called name sees it, for its todo
// tool (tools.Env.Board).
func (b *Board) For(name string) tools.Board { return agentBoard{b: b, name: name} }

// changed returns a function that publishes EvBoard for a successful
// change by agent and passes the store's answer through.
func (b *Board) changed(agent string) func(vault.Task, error) (vault.Task, error) {
	return func(t vault.Task, err error) (vault.Task, error) {
		if err == nil && b.sw != nil {
			b.sw.bus.publish(Event{Type: EvBoard, Agent: agent, Text: t.ID})
		}
		return t, err
	}
}

// agentBoard is the Board bound to one agent's name.
type agentBoard struct {
	b    *Board
	name string
}

// Agent returns the agent's name.
func (a agentBoard) Agent() string { return a.name }

// Add puts a new task on the board, created by the agent.
func (a agentBoard) Add(title, detail string) (vault.Task, error) {
	return a.b.Add(a.name, title, detail)
}

// Claim claims the task for the agent.
func (a agentBoard) Claim(id string) (vault.Task, error) { return a.b.Claim(id, a.name) }

// Update changes a task the agent holds.
func (a agentBoard) Update(id, detail string, status vault.TaskStatus) (vault.Task, error) {
	return a.b.Update(id, a.name, detail, status)
}

// Done finishes the task as the agent.
func (a agentBoard) Done(id string) (vault.Task, error) { return a.b.Done(id, a.name) }

// List returns every task.
func (a agentBoard) List() ([]vault.Task, error) { return a.b.List() }
