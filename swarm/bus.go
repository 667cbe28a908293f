package swarm

import (
	"sync"

	"github.com/kwsdev/kws/internal/pubsub"
)

// bus numbers the swarm's events (Event.Seq) and publishes them on a
// pubsub broker: each subscriber has its own queue drained by its own
// goroutine, so a slow listener never blocks an agent. Routine events
// (diet and usage figures) are dropped for a subscriber that has fallen
// routineLimit events behind; every other event is delivered, in order.
type bus struct {
	mu     sync.Mutex
	seq    uint64 // the Seq of the last event published
	broker *pubsub.Broker[Event]
}

const routineLimit = 4096

func newBus() *bus {
	return &bus{broker: pubsub.New(pubsub.Options[Event]{Droppable: Event.routine, DropAfter: routineLimit})}
}

// subscribe returns a channel of every event published from now on and a
// function that ends the subscription and closes the channel. After
// closeAll the channel is closed at once.
func (b *bus) subscribe() (<-chan Event, func()) { return b.broker.Subscribe() }

// publish numbers e (Event.Seq) and hands it to every subscriber; it
// returns e as numbered. Numbering and publishing under one lock keeps
// every subscriber's order the order of Seq.
func (b *bus) publish(e Event) Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	e.Seq = b.seq
	b.broker.Publish(e)
	return e
}

// last returns the Seq of the last event published (0 before the first).
func (b *bus) last() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

// closeAll ends every subscription, and any made later.
func (b *bus) closeAll() { b.broker.Close() }
