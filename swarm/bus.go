package swarm

import "sync"

// bus fans events out to subscribers. Each subscriber has its own queue
// drained by its own goroutine, so a slow listener never blocks an agent.
// Routine events (diet and usage figures) are dropped for a subscriber that
// has fallen more than routineLimit events behind; every other event is
// delivered, in order.
type bus struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

const routineLimit = 4096

type subscriber struct {
	out    chan Event
	mu     sync.Mutex
	queue  []Event
	wake   chan struct{}
	done   chan struct{}
	closed bool
}

func newBus() *bus { return &bus{subs: map[*subscriber]struct{}{}} }

func (b *bus) subscribe() (<-chan Event, func()) {
	s := &subscriber{out: make(chan Event, 64), wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
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

func (b *bus) publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.push(e)
	}
}

func (b *bus) closeAll() {
	b.mu.Lock()
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

// pump moves queued events to the subscriber's channel and closes it when
// the subscription ends.
func (s *subscriber) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		s.mu.Unlock()
		for _, e := range batch {
			select {
			case s.out <- e:
			case <-s.done:
				return
			}
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}
