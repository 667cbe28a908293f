package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// TodoItem is one entry of a TodoList.
type TodoItem struct {
	// ID is the item's number, unique within its list, from 1.
	ID int `json:"id"`
	// Text says what is to be done.
	Text string `json:"text"`
	// Done is set once the item is finished.
	Done bool `json:"done"`
}

// ErrNoTodo is returned by TodoList methods for an id not in the list.
var ErrNoTodo = errors.New("no todo item with that id")

// TodoList is a session's todo list. The zero value is an empty list; it
// is safe for concurrent use.
type TodoList struct {
	mu    sync.Mutex
	items []TodoItem
	next  int
}

// Add appends an item with text and returns it.
func (l *TodoList) Add(text string) TodoItem {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	it := TodoItem{ID: l.next, Text: text}
	l.items = append(l.items, it)
	return it
}

// Done marks item id finished.
func (l *TodoList) Done(id int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.items {
		if l.items[i].ID == id {
			l.items[i].Done = true
			return nil
		}
	}
	return fmt.Errorf("%w: %d", ErrNoTodo, id)
}

// Remove deletes item id.
func (l *TodoList) Remove(id int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.items {
		if l.items[i].ID == id {
			l.items = append(l.items[:i], l.items[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("%w: %d", ErrNoTodo, id)
}

// Items returns a copy of the items in the order they were added.
func (l *TodoList) Items() []TodoItem {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]TodoItem(nil), l.items...)
}

// String formats the list one item a line, "[x] 2. text" for a finished
// item and "[ ] 3. text" for an open one.
func (l *TodoList) String() string {
	items := l.Items()
	if len(items) == 0 {
		return "todo list is empty"
	}
	var b strings.Builder
	open := 0
	for _, it := range items {
		mark := "[ ]"
		if it.Done {
			mark = "[x]"
		} else {
			open++
		}
		fmt.Fprintf(&b, "%s %d. %s\n", mark, it.ID, it.Text)
	}
	fmt.Fprintf(&b, "(%d open, %d done)", open, len(items)-open)
	return b.String()
}

//go:embed todo.md
var todoDoc string

type todoTool struct{ spec }

type todoArgs struct {
	Action string `json:"action"`
	Text   string `json:"text"`
	ID     todoID `json:"id"`
	Status string `json:"status"`
}

// todoID is an item's number. Besides a JSON integer it accepts a string
// holding the number or a board task's id ("3" or "t3").
type todoID int

// UnmarshalJSON reads an integer, "3" or "t3".
func (id *todoID) UnmarshalJSON(raw []byte) error {
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		*id = todoID(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "t")
		if n, err := strconv.Atoi(s); err == nil {
			*id = todoID(n)
			return nil
		}
	}
	return fmt.Errorf(`argument "id" must be an integer (3 for task t3), not %s`, raw)
}

func newTodo() Tool {
	return todoTool{spec{name: "todo", doc: todoDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["add", "create", "claim", "update", "done", "list", "remove"], "description": "what to do"},
    "text": {"type": "string", "description": "add: the item (one item per line adds several); update: the task's new detail"},
    "id": {"type": "integer", "minimum": 1, "description": "claim, update, done, remove: the item's number (3 for task t3)"},
    "status": {"type": "string", "enum": ["open", "claimed", "done"], "description": "update: the task's new status (open releases it)"}
  },
  "required": ["action"],
  "additionalProperties": false
}`}}
}

// Run applies one action and returns the whole list, or the whole shared
// board when the session belongs to a swarm.
func (t todoTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a todoArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("todo: %v", err), nil
	}
	if env != nil && env.Board != nil {
		return runBoard(env.Board, a), nil
	}
	if env == nil || env.Todo == nil {
		return errResult("todo: this session has no todo list"), nil
	}
	l := env.Todo
	var err error
	switch a.Action {
	case "add", "create":
		added := 0
		for _, line := range strings.Split(a.Text, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				l.Add(line)
				added++
			}
		}
		if added == 0 {
			return errResult(`todo: action "add" needs a non-empty "text"`), nil
		}
	case "done", "remove":
		if a.ID <= 0 {
			return errResult("todo: action %q needs the item's \"id\" (a number from the list)", a.Action), nil
		}
		if a.Action == "done" {
			err = l.Done(int(a.ID))
		} else {
			err = l.Remove(int(a.ID))
		}
	case "list":
	case "claim", "update":
		return errResult("todo: %q works on a swarm's shared board; this session has its own list (add, done, list, remove)", a.Action), nil
	case "":
		return errResult(`todo: "action" is required: add, done, list or remove`), nil
	default:
		return errResult("todo: unknown action %q; use add, done, list or remove", a.Action), nil
	}
	if err != nil {
		return errResult("todo: %v\n%s", err, l.String()), nil
	}
	return Result{Text: l.String()}, nil
}
