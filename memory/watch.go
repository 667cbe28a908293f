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
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watchers == nil {
		s.watchers = map[int]func(){}
	}
	id := s.watchID
	s.watchID++
	s.watchers[id] = fn
	return func() {
		s.watchMu.Lock()
		delete(s.watchers, id)
		s.watchMu.Unlock()
	}
}

// pendingChanged tells the watchers the pending queue or the
// re-embedding's progress changed.
func (s *Store) pendingChanged() {
	s.watchMu.Lock()
	fns := make([]func(), 0, len(s.watchers))
	for _, fn := range s.watchers {
		fns = append(fns, fn)
	}
	s.watchMu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
