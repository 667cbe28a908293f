// Package pubsub is kws's one event bus: a Broker[T] that services
// publish to and panes, front ends and status lines listen to, and its
// synchronous form, Listeners[T], for signals that something changed.
//
// Broker delivery, for every subscriber:
//   - Publish never blocks on a subscriber. Each subscription has its own
//     queue, unbounded, drained into its channel by its own goroutine, so
//     a slow reader never stalls an agent or a store.
//   - A subscriber receives what was published after it subscribed (and
//     the backlog it subscribed with, first), in publish order.
//   - Nothing is dropped, except values the broker's Droppable says are
//     routine (figures a newer value replaces) for a subscriber more than
//     DropAfter values behind.
//   - Cancelling a subscription, or closing the broker, closes its
//     channel; values not yet delivered are dropped.
//
// Publishers that number their values or publish from several goroutines
// serialize Publish themselves when the order matters across them; the
// broker keeps the order of the calls it receives.
package pubsub

import "sync"

// DefaultBuffer is the capacity of a subscription's channel unless
// Options.Buffer says otherwise.
const DefaultBuffer = 64

// Options configure a Broker.
type Options[T any] struct {
	// Buffer is the capacity of each subscription's channel (values
	// beyond it wait in the subscriber's queue); 0 means DefaultBuffer.
	Buffer int
	// Droppable says a value may be dropped for a subscriber that has
	// fallen DropAfter or more values behind; nil drops nothing.
	Droppable func(T) bool
	// DropAfter is the backlog from which Droppable values are dropped.
	DropAfter int
}

// Broker fans values out to its subscribers. The zero value is not
// usable; call New.
type Broker[T any] struct {
	opts   Options[T]
	mu     sync.Mutex
	subs   map[*subscriber[T]]struct{}
	closed bool
}

// New returns an open broker.
func New[T any](opts Options[T]) *Broker[T] {
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	return &Broker[T]{opts: opts, subs: map[*subscriber[T]]struct{}{}}
}

// Subscribe returns a channel of the backlog, then of every value
// published from now on, and a function that ends the subscription and
// closes the channel (calling it again does nothing). On a closed broker
// the channel is closed at once.
func (b *Broker[T]) Subscribe(backlog ...T) (<-chan T, func()) {
	s := &subscriber[T]{b: b, out: make(chan T, b.opts.Buffer), queue: append([]T(nil), backlog...),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(s.out)
		return s.out, func() {}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go s.pump()
	return s.out, s.cancel
}

// Publish hands v to every subscriber.
func (b *Broker[T]) Publish(v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.push(v)
	}
}

// Subscribers returns the number of open subscriptions.
func (b *Broker[T]) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// Close ends every subscription, and any made later.
func (b *Broker[T]) Close() {
	b.mu.Lock()
	b.closed = true
	subs := b.subs
	b.subs = map[*subscriber[T]]struct{}{}
	b.mu.Unlock()
	for s := range subs {
		s.stop()
	}
}

// subscriber is one subscription: its queue and the goroutine that
// drains it into out.
type subscriber[T any] struct {
	b   *Broker[T]
	out chan T
	mu  sync.Mutex
	// queue holds the values not yet handed to out; its length is how far
	// the subscriber has fallen behind beyond out's buffer.
	queue   []T
	wake    chan struct{} // buffered 1: the queue grew
	done    chan struct{} // closed by stop
	stopped bool
}

// push queues v, unless it is routine and the subscriber is too far
// behind.
func (s *subscriber[T]) push(v T) {
	s.mu.Lock()
	if s.stopped || s.b.opts.Droppable != nil && len(s.queue) >= s.b.opts.DropAfter && s.b.opts.Droppable(v) {
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, v)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// cancel ends the subscription.
func (s *subscriber[T]) cancel() {
	s.b.mu.Lock()
	delete(s.b.subs, s)
	s.b.mu.Unlock()
	s.stop()
}

// stop ends delivery; pump then closes out.
func (s *subscriber[T]) stop() {
	s.mu.Lock()
	if !s.stopped {
		s.stopped = true
		close(s.done)
	}
	s.mu.Unlock()
}

// pump moves queued values to out, one at a time so that the queue's
// length stays the true backlog push measures, and closes out when the
// subscription ends.
func (s *subscriber[T]) pump() {
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
		v := s.queue[0]
		var zero T
		s.queue[0] = zero
		s.queue = s.queue[1:]
		if len(s.queue) == 0 {
			s.queue = nil
		}
		s.mu.Unlock()
		select {
		case s.out <- v:
		case <-s.done:
			return
		}
	}
}

// Listeners is the synchronous form, for "something changed, re-read it"
// signals: Notify calls every listener on the notifying goroutine, once
// the change is made, in no particular order. A listener must not block
// or call back into what notifies (it queues work, such as a pane's
// redraw). The zero value is ready to use.
type Listeners[T any] struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(T)
}

// Listen registers fn and returns the function that unregisters it
// (calling it again does nothing).
func (l *Listeners[T]) Listen(fn func(T)) (cancel func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = map[int]func(T){}
	}
	id := l.next
	l.next++
	l.fns[id] = fn
	return func() {
		l.mu.Lock()
		delete(l.fns, id)
		l.mu.Unlock()
	}
}

// Notify calls every listener with v.
func (l *Listeners[T]) Notify(v T) {
	l.mu.Lock()
	fns := make([]func(T), 0, len(l.fns))
	for _, fn := range l.fns {
		fns = append(fns, fn)
	}
	l.mu.Unlock()
	for _, fn := range fns {
		fn(v)
	}
}
