package swarm

import "sync"

// bus fans events out to subscribers. Each subscriber has its own queue
// drained by its own goroutine, so a slow listener never blocks an agent.
// Routine events (diet and usage figures) are dropped for a subscriber that
// has fallen more than routineLimit events behind; every other event is
// delivered, in order.
type bus struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
	seq    uint64 // the Seq of the last event published
}

const routineLimit = 4096

type subscriber struct {
	out chan Event
	mu  sync.Mutex
	// queue holds the events not yet handed to out; its length is how far
	// the subscriber has fallen behind beyond out's buffer.
	queue  []Event
	wake   chan struct{}
	done   chan struct{}
	closed bool
}

func newBus() *bus { return &bus{subs: map[*subscriber]struct{}{}} }

// subscribe returns a channel of every event published from now on and a
// function that ends the subscription and closes the channel. After
// closeAll the channel is closed at once.
func (b *bus) subscribe() (<-chan Event, func()) {
	s := &subscriber{out: make(chan Event, 64), wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(s.out)
		return s.out, func() {}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go s.pump()
	var once sync.Once
	return s.out, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
			s.close()
		})
	}
}

// publish numbers e (Event.Seq) and hands it to every subscriber; it
// returns e as numbered.
func (b *bus) publish(e Event) Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	e.Seq = b.seq
	for s := range b.subs {
		s.push(e)
	}
	return e
}

// last returns the Seq of the last event published (0 before the first).
func (b *bus) last() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

// closeAll ends every subscription, and any made later.
func (b *bus) closeAll() {
	b.mu.Lock()
	b.closed = true
	subs := b.subs
	b.subs = map[*subscriber]struct{}{}
	b.mu.Unlock()
	for s := range subs {
		s.close()
	}
}

func (s *subscriber) push(e Event) {
	s.mu.Lock()
	if s.closed || e.routine() && len(s.queue) >= routineLimit {
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()
}

// pump moves queued events to the subscriber's channel, one at a time so
// that the queue's length stays the true backlog push measures, and closes
// the channel when the subscription ends.
func (s *subscriber) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		e, ok := s.pop()
		s.mu.Unlock()
		if !ok {
			select {
			case <-s.wake:
			case <-s.done:
				return
			}
			continue
		}
		select {
		case s.out <- e:
		case <-s.done:
			return
		}
	}
}

// pop takes the oldest queued event; s.mu is held.
func (s *subscriber) pop() (Event, bool) {
	if len(s.queue) == 0 {
		return Event{}, false
	}
	e := s.queue[0]
	s.queue[0] = Event{}
	s.queue = s.queue[1:]
	if len(s.queue) == 0 {
		s.queue = nil
	}
	return e, true
}
