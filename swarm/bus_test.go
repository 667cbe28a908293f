package swarm

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent"
)

// marker is a non-routine event numbered seq.
func marker(seq int) Event {
	return Event{Type: EvState, Agent: "bus", Text: strconv.Itoa(seq)}
}

// routineEvent is a droppable diet event numbered seq.
func routineEvent(seq int) Event {
	return Event{Type: EvAgent, Agent: "bus", Loop: agent.Event{Type: agent.EvDiet, Text: strconv.Itoa(seq)}}
}

func seqOf(t *testing.T, e Event) int {
	t.Helper()
	text := e.Text
	if e.Type == EvAgent {
		text = e.Loop.Text
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		t.Fatalf("event %+v carries no sequence number", e)
	}
	return n
}

// publishWithin publishes events in a goroutine and fails the test when
// that takes longer than waitLimit: publishing must never wait for a
// subscriber.
func publishWithin(t *testing.T, b *bus, events func(publish func(Event))) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		events(func(e Event) { b.publish(e) })
	}()
	waitClosed(t, done, "publishing")
}

// isMarker matches the non-routine event numbered seq.
func isMarker(seq int) func(Event) bool {
	want := strconv.Itoa(seq)
	return func(e Event) bool { return e.Type != EvAgent && e.Text == want }
}

func TestEventRoutine(t *testing.T) {
	tests := []struct {
		e    Event
		want bool
	}{
		{Event{Type: EvAgent, Loop: agent.Event{Type: agent.EvDiet}}, true},
		{Event{Type: EvAgent, Loop: agent.Event{Type: agent.EvUsage}}, true},
		{Event{Type: EvAgent, Loop: agent.Event{Type: agent.EvTextDelta}}, false},
		{Event{Type: EvAgent, Loop: agent.Event{Type: agent.EvToolResult}}, false},
		{Event{Type: EvAgent, Loop: agent.Event{Type: agent.EvDone}}, false},
		{Event{Type: EvState, Loop: agent.Event{Type: agent.EvDiet}}, false},
		{Event{Type: EvFinished}, false},
		{Event{Type: EvAsk}, false},
	}
	for _, tc := range tests {
		if got := tc.e.routine(); got != tc.want {
			t.Errorf("%s/%s routine = %v, want %v", tc.e.Type, tc.e.Loop.Type, got, tc.want)
		}
	}
}

func TestBusSlowSubscriberDoesNotBlockPublish(t *testing.T) {
	const n = 5000
	b := newBus()
	defer b.closeAll()
	stalled, _ := b.subscribe()
	fast, _ := b.subscribe()

	got := make(chan []int, 1)
	go func() {
		var seqs []int
		for e := range fast {
			s, err := strconv.Atoi(e.Text)
			if err != nil {
				s = -1
			}
			seqs = append(seqs, s)
			if len(seqs) == n {
				break
			}
		}
		got <- seqs
	}()
	publishWithin(t, b, func(publish func(Event)) {
		for i := range n {
			publish(marker(i))
		}
	})
	var seqs []int
	select {
	case seqs = <-got:
	case <-time.After(waitLimit):
		t.Fatal("the reading subscriber did not get every event")
	}
	for i, s := range seqs {
		if s != i {
			t.Fatalf("the reading subscriber got event %d at position %d", s, i)
		}
	}

	// The stalled subscriber lost nothing: every event is non-routine.
	w := &watch{t: t, ch: stalled}
	i := 0
	w.until("the last event", func(e Event) bool {
		if s := seqOf(t, e); s != i {
			t.Fatalf("the stalled subscriber got event %d at position %d", s, i)
		}
		i++
		return i == n
	})
}

func TestBusDropsRoutineEventsForStalledSubscriber(t *testing.T) {
	const routines = 3 * routineLimit
	b := newBus()
	defer b.closeAll()
	ch, _ := b.subscribe()

	markers := 0
	publishWithin(t, b, func(publish func(Event)) {
		for i := range routines {
			if i%100 == 0 {
				publish(marker(markers))
				markers++
			}
			publish(routineEvent(i))
		}
		publish(marker(markers))
	})

	w := &watch{t: t, ch: ch}
	nextMarker, lastRoutine, gotRoutine := 0, -1, 0
	w.until("the last marker", func(e Event) bool {
		if e.routine() {
			s := seqOf(t, e)
			if s <= lastRoutine {
				t.Fatalf("routine event %d after %d", s, lastRoutine)
			}
			lastRoutine = s
			gotRoutine++
			return false
		}
		if s := seqOf(t, e); s != nextMarker {
			t.Fatalf("marker %d arrived where %d was due: a non-routine event was lost or reordered", s, nextMarker)
		}
		nextMarker++
		return nextMarker == markers+1
	})
	// The channel's buffer and the one event the pump holds are behind
	// too, beyond the queue's routineLimit.
	if most := routineLimit + cap(ch) + 1; gotRoutine > most {
		t.Fatalf("%d routine events kept for a stalled subscriber, want at most %d", gotRoutine, most)
	}
	// Markers take queue places too.
	if least := routineLimit - markers; gotRoutine < least {
		t.Fatalf("only %d routine events kept, want at least %d", gotRoutine, least)
	}

	// Once the subscriber keeps up, routine events flow again.
	publishWithin(t, b, func(publish func(Event)) {
		for i := range 10 {
			publish(routineEvent(routines + i))
		}
		publish(marker(markers + 1))
	})
	gotRoutine = 0
	w.until("the closing marker", func(e Event) bool {
		if e.routine() {
			gotRoutine++
		}
		return isMarker(markers + 1)(e)
	})
	if gotRoutine != 10 {
		t.Fatalf("%d of 10 routine events reached a subscriber that keeps up", gotRoutine)
	}
}

func TestBusKeepsEachPublishersOrder(t *testing.T) {
	const publishers, each = 4, 1000
	b := newBus()
	defer b.closeAll()
	ch, _ := b.subscribe()
	publishWithin(t, b, func(publish func(Event)) {
		var wg sync.WaitGroup
		for p := range publishers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					publish(Event{Type: EvTurn, Agent: "p" + strconv.Itoa(p), Text: strconv.Itoa(i)})
				}
			}()
		}
		wg.Wait()
	})
	next := map[string]int{}
	total := 0
	(&watch{t: t, ch: ch}).until("every event", func(e Event) bool {
		if s := seqOf(t, e); s != next[e.Agent] {
			t.Fatalf("%s: event %d where %d was due", e.Agent, s, next[e.Agent])
		}
		next[e.Agent]++
		total++
		return total == publishers*each
	})
}

func TestBusUnsubscribeClosesTheChannel(t *testing.T) {
	b := newBus()
	defer b.closeAll()
	gone, unsubscribe := b.subscribe()
	kept, _ := b.subscribe()
	publishWithin(t, b, func(publish func(Event)) {
		for i := range 200 {
			publish(marker(i))
		}
	})
	unsubscribe()
	unsubscribe() // a second call is harmless
	if !closedSoon(gone) {
		t.Fatal("the channel is open after unsubscribing")
	}
	publishWithin(t, b, func(publish func(Event)) { publish(marker(200)) })
	i := 0
	(&watch{t: t, ch: kept}).until("the last event", func(e Event) bool {
		if s := seqOf(t, e); s != i {
			t.Fatalf("the remaining subscriber got %d where %d was due", s, i)
		}
		i++
		return i == 201
	})
	if n := b.broker.Subscribers(); n != 1 {
		t.Fatalf("%d subscribers registered, want 1", b.broker.Subscribers())
	}
}

func TestBusCloseAll(t *testing.T) {
	b := newBus()
	var chans []<-chan Event
	var unsubs []func()
	for range 3 {
		ch, unsub := b.subscribe()
		chans, unsubs = append(chans, ch), append(unsubs, unsub)
	}
	publishWithin(t, b, func(publish func(Event)) {
		for i := range 100 {
			publish(marker(i))
		}
	})
	b.closeAll()
	for i, ch := range chans {
		if !closedSoon(ch) {
			t.Fatalf("subscription %d is open after closeAll", i)
		}
	}
	for _, unsub := range unsubs {
		unsub() // harmless after closeAll
	}
	late, unsub := b.subscribe()
	if !closedSoon(late) {
		t.Fatal("a subscription made after closeAll is open")
	}
	unsub()
	publishWithin(t, b, func(publish func(Event)) { publish(marker(100)) })
	b.closeAll() // a second call is harmless
}
