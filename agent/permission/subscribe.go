package permission

// subscriberBuffer is the capacity of a subscription channel; requests
// beyond it wait in the subscriber's queue, never dropped.
const subscriberBuffer = 16

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
	ch, cancel := b.requests.Subscribe(backlog...)
	b.cancels[ch] = cancel
	return ch
}

// Unsubscribe stops deliveries to ch, a channel returned by Subscribe, and
// closes it. Requests already delivered stay pending until answered.
func (b *Broker) Unsubscribe(ch <-chan Request) {
	b.mu.Lock()
	cancel := b.cancels[ch]
	delete(b.cancels, ch)
	b.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
