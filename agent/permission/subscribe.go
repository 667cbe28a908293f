package permission

import "sync"

// subscriberBuffer is the capacity of a subscription channel; requests
// beyond it wait in the subscriber's queue, never dropped.
const subscriberBuffer = 16

// subscriber delivers requests to one front end through an unbounded
// queue, so a slow reader never blocks an Ask and never loses a request.
type subscriber struct {
	out   chan Request
	mu    sync.Mutex
	queue []Request
	wake  chan struct{} // buffered 1: the queue grew
	done  chan struct{} // closed by stop
	once  sync.Once
}

func newSubscriber(backlog []Request) *subscriber {
	s := &subscriber{
		out:   make(chan Request, subscriberBuffer),
		queue: backlog,
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	go s.run()
	return s
}

// push queues r for delivery.
func (s *subscriber) push(r Request) {
	s.mu.Lock()
	s.queue = append(s.queue, r)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// stop ends delivery; run then closes out.
func (s *subscriber) stop() {
	s.once.Do(func() { close(s.done) })
}

// run moves queued requests to out, in order, until stopped.
func (s *subscriber) run() {
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- r:
		case <-s.done:
			return
		}
	}
}

// Subscribe returns a channel that receives every request asked from now
// on, after the requests already pending, in order. Each subscriber gets
// every request; none is dropped however slowly it reads. The channel is
// closed by Unsubscribe or Close; on a closed broker it is closed at once.
func (b *Broker) Subscribe() <-chan Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	backlog := make([]Request, len(b.order))
	for i, id := range b.order {
		backlog[i] = b.pending[id].req
	}
	s := newSubscriber(backlog)
	if b.closed {
		s.stop()
		return s.out
	}
	b.subs = append(b.subs, s)
	return s.out
}

// Unsubscribe stops deliveries to ch, a channel returned by Subscribe, and
// closes it. Requests already delivered stay pending until answered.
func (b *Broker) Unsubscribe(ch <-chan Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, s := range b.subs {
		if (<-chan Request)(s.out) == ch {
			s.stop()
			b.subs = append(b.subs[:i], b.subs[i+1:]...)
			return
		}
	}
}
