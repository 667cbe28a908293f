package app

// listen registers fn to hear the sidecar's progress; the returned
// function unregisters it.
func (st *Stores) listen(fn func(string)) func() {
	st.mu.Lock()
	defer st.mu.Unlock()
	id := st.nextID
	st.nextID++
	st.listeners[id] = fn
	return func() {
		st.mu.Lock()
		delete(st.listeners, id)
		st.mu.Unlock()
	}
}

// watch registers fn to hear that a command changed the vault or the
// memory; the returned function unregisters it.
func (st *Stores) watch(fn func()) func() {
	st.mu.Lock()
	defer st.mu.Unlock()
	id := st.nextID
	st.nextID++
	st.watchers[id] = fn
	return func() {
		st.mu.Lock()
		delete(st.watchers, id)
		st.mu.Unlock()
	}
}

// Changed tells every session that a command changed the vault or the
// memory, so their panes show it at once.
func (st *Stores) Changed() {
	st.mu.Lock()
	fns := make([]func(), 0, len(st.watchers))
	for _, fn := range st.watchers {
		fns = append(fns, fn)
	}
	st.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// say tells every listener msg.
func (st *Stores) say(msg string) {
	st.mu.Lock()
	fns := make([]func(string), 0, len(st.listeners))
	for _, fn := range st.listeners {
		fns = append(fns, fn)
	}
	st.mu.Unlock()
	for _, fn := range fns {
		fn(msg)
	}
}
