package pubsub

import (
	"testing"
	"time"
)

// recv reads n values from ch, failing after a minute without one.
func recv[T any](t *testing.T, ch <-chan T, n int) []T {
	t.Helper()
	var out []T
	for len(out) < n {
		select {
		case v, ok := <-ch:
			if !ok {
				t.Fatalf("closed after %d of %d values", len(out), n)
			}
			out = append(out, v)
		case <-time.After(time.Minute):
			t.Fatalf("waited a minute for value %d of %d", len(out)+1, n)
		}
	}
	return out
}

func TestBacklogThenPublishedInOrder(t *testing.T) {
	b := New(Options[int]{Buffer: 1})
	ch, cancel := b.Subscribe(-2, -1)
	defer cancel()
	for i := range 1000 {
		b.Publish(i) // never blocks, though nobody reads yet
	}
	got := recv(t, ch, 1002)
	for i, v := range got {
		if v != i-2 {
			t.Fatalf("value %d is %d", i, v)
		}
	}
}

func TestRoutineDroppedOnlyForLaggards(t *testing.T) {
	routine := func(v int) bool { return v < 0 }
	b := New(Options[int]{Buffer: 1, Droppable: routine, DropAfter: 10})
	stalled, cancel := b.Subscribe()
	defer cancel()
	for i := range 100 {
		b.Publish(-1) // routine
		b.Publish(i)  // must arrive
	}
	got := recv(t, stalled, 100)
	kept, want := 0, 0
	for _, v := range got {
		if v < 0 {
			kept++
			continue
		}
		if v != want {
			t.Fatalf("got %d where %d was due", v, want)
		}
		want++
	}
	for want < 100 {
		v := recv(t, stalled, 1)[0]
		if v < 0 {
			kept++
			continue
		}
		if v != want {
			t.Fatalf("got %d where %d was due", v, want)
		}
		want++
	}
	if kept >= 100 {
		t.Fatalf("a stalled subscriber kept all %d routine values", kept)
	}
}

func TestCancelAndClose(t *testing.T) {
	b := New(Options[string]{})
	a, cancelA := b.Subscribe()
	c, _ := b.Subscribe()
	if n := b.Subscribers(); n != 2 {
		t.Fatalf("%d subscribers", n)
	}
	cancelA()
	cancelA()
	if _, ok := <-a; ok {
		t.Fatal("a cancelled subscription's channel is open")
	}
	b.Publish("x")
	if got := recv(t, c, 1); got[0] != "x" {
		t.Fatalf("got %q", got)
	}
	b.Close()
	if _, ok := <-c; ok {
		t.Fatal("Close left a channel open")
	}
	late, _ := b.Subscribe()
	if _, ok := <-late; ok {
		t.Fatal("a subscription to a closed broker is open")
	}
	b.Publish("after close") // no subscriber, no panic
}

func TestListeners(t *testing.T) {
	var l Listeners[int]
	var heard []int
	cancel := l.Listen(func(v int) { heard = append(heard, v) })
	l.Notify(1)
	l.Notify(2)
	cancel()
	cancel()
	l.Notify(3)
	if len(heard) != 2 || heard[0] != 1 || heard[1] != 2 {
		t.Fatalf("heard %v", heard)
	}
}
