package app

// listen registers fn to hear the sidecar's progress; the returned
// function unregisters it.
func (st *Stores) listen(fn func(string)) func() { return st.progress.Listen(fn) }

// watch registers fn to hear that a command changed the vault or the
// memory; the returned function unregisters it.
func (st *Stores) watch(fn func()) func() { return st.changed.Listen(func(struct{}) { fn() }) }

// Changed tells every session that a command changed the vault or the
// memory, so their panes show it at once.
func (st *Stores) Changed() { st.changed.Notify(struct{}{}) }

// say tells every listener msg.
func (st *Stores) say(msg string) { st.progress.Notify(msg) }
