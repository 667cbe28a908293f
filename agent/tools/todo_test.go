package tools

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestTodoTool(t *testing.T) {
	env := newEnv(t, nil)
	steps := []struct {
		args    string
		isError bool
		want    string
	}{
		{`{"action":"list"}`, false, "todo list is empty"},
		{`{"action":"add","text":"read the code"}`, false, "[ ] 1. read the code\n(1 open, 0 done)"},
		{`{"action":"add","text":"write tests\n\n  run tests  "}`, false, "[ ] 1. read the code\n[ ] 2. write tests\n[ ] 3. run tests\n(3 open, 0 done)"},
		{`{"action":"done","id":1}`, false, "[x] 1. read the code\n[ ] 2. write tests\n[ ] 3. run tests\n(2 open, 1 done)"},
		{`{"action":"remove","id":2}`, false, "[x] 1. read the code\n[ ] 3. run tests\n(1 open, 1 done)"},
		{`{"action":"done","id":9}`, true, "no todo item with that id: 9\n[x] 1. read the code"},
		{`{"action":"done"}`, true, `action "done" needs the item's "id"`},
		{`{"action":"add","text":"  "}`, true, `needs a non-empty "text"`},
		{`{"action":"frob"}`, true, `unknown action "frob"`},
		{`{}`, true, `"action" is required`},
		{`{"action":"done","id":"one"}`, true, `argument "id" must be an integer`},
		{`{"action":"claim","id":3}`, true, `works on a swarm's shared board`},
	}
	for _, s := range steps {
		checkResult(t, call(t, env, "todo", s.args), s.isError, s.want)
	}
	items := env.Todo.Items()
	if len(items) != 2 || !items[0].Done || items[1].Text != "run tests" {
		t.Errorf("Items = %+v", items)
	}
	env.Todo = nil
	checkResult(t, call(t, env, "todo", `{"action":"list"}`), true, "no todo list")
}

func TestTodoListConcurrent(t *testing.T) {
	var l TodoList
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				it := l.Add(fmt.Sprintf("task %d", i))
				_ = l.Done(it.ID)
				_ = l.Items()
				_ = l.String()
				if i%2 == 0 {
					if err := l.Remove(it.ID); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	items := l.Items()
	if len(items) != 8*25 {
		t.Errorf("%d items, want 200", len(items))
	}
	seen := map[int]bool{}
	for _, it := range items {
		if seen[it.ID] || !it.Done {
			t.Errorf("bad item %+v", it)
		}
		seen[it.ID] = true
	}
	if err := l.Remove(100000); !errors.Is(err, ErrNoTodo) {
		t.Errorf("Remove(unknown) = %v", err)
	}
}
