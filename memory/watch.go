package memory

// Watch registers fn to hear that this store changed the pending queue (a
// candidate queued, approved or rejected) or that its background
// re-embedding made progress (every few memories, and when it ends), so
// that what shows them (the memory pane, the status bar) can re-read the
// queue and Reembedding. It returns a
// function that unregisters fn. fn runs on the goroutine that made the
// change, once the change is written, and must not block or call the
// store's changing methods. Changes other processes make to the shared
// queue file are not heard.
func (s *Store) Watch(fn func()) (cancel func()) {
	return s.watchers.Listen(func(struct{}) { fn() })
}

// pendingChanged tells the watchers the pending queue or the
// re-embedding's progress changed.
func (s *Store) pendingChanged() { s.watchers.Notify(struct{}{}) }
