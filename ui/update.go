package ui

import "time"

// Inspect runs fn on the UI goroutine without redrawing, for reading the
// application's state (a snapshot for the journal). Safe from any
// goroutine; fn does not run once the application has stopped.
func (a *App) Inspect(fn func()) {
	a.mu.Lock()
	stopped := a.stopped
	a.mu.Unlock()
	if !stopped {
		go a.tv.QueueUpdate(fn)
	}
}

// Update runs fn on the UI goroutine and redraws. It is the one way
// background goroutines reach primitives. It never blocks: calls are queued
// and run together before one redraw, so a burst of output costs one frame.
func (a *App) Update(fn func()) { a.update(fn, false) }

// Answer runs fn as Update does and draws at once, even while a frame
// waits its turn for another pane's flood: fn shows a program's answer to
// what the user typed (a shell's echo), and typing is never paced.
func (a *App) Answer(fn func()) { a.update(fn, true) }

func (a *App) update(fn func(), answer bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return
	}
	a.queue = append(a.queue, fn)
	if a.scheduled {
		// A frame paced for a flood is drawn now for an answer.
		if answer && a.pace != nil && a.pace.Stop() {
			a.pace = nil
			go a.tv.QueueUpdateDraw(a.flush)
		}
		return
	}
	a.scheduled = true
	// A stream of output draws at most one frame per frameGap: the
	// updates of the gap run together before it, as tmux paces its
	// redraws, instead of one full draw per chunk. An answer to typing (a
	// shell's echo) is drawn at once: typing is never paced.
	if wait := a.frameGap - time.Since(a.lastFlush); wait > 0 && !answer {
		a.pace = time.AfterFunc(wait, func() { a.tv.QueueUpdateDraw(a.flush) })
		return
	}
	go a.tv.QueueUpdateDraw(a.flush)
}

// Activity counts the batches of updates the application has run: it
// stays the same while nothing on the screen changed (no pane's output,
// no event). Safe from any goroutine.
func (a *App) Activity() uint64 { return a.flushes.Load() }

// Active receives once a batch of updates has run since the last receive:
// a watcher at rest (the session's journal) waits on it rather than on a
// timer, so an application with nothing to draw wakes nobody. It has one
// reader.
func (a *App) Active() <-chan struct{} { return a.active }

// frameGap is the shortest time between two frames drawn for updates
// (App.frameGap, which tests lengthen).
const frameGap = 10 * time.Millisecond

// flush runs the queued updates on the UI goroutine.
func (a *App) flush() {
	a.mu.Lock()
	q := a.queue
	a.queue, a.scheduled, a.pace = nil, false, nil
	a.lastFlush = time.Now()
	a.mu.Unlock()
	a.flushes.Add(1)
	select {
	case a.active <- struct{}{}:
	default:
	}
	for _, fn := range q {
		fn()
	}
}

// Notify shows msg in the status bar for a few seconds or until the next
// key. Safe from any goroutine.
func (a *App) Notify(msg string) {
	a.mu.Lock()
	a.notice = msg
	if a.noticeT != nil {
		a.noticeT.Stop()
	}
	a.noticeT = time.AfterFunc(6*time.Second, func() {
		a.mu.Lock()
		if a.notice == msg {
			a.notice = ""
		}
		a.mu.Unlock()
		a.Update(func() {})
	})
	a.mu.Unlock()
}

// dismissNotice clears the notice before its time is up and reports
// whether there was one.
func (a *App) dismissNotice() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.notice == "" {
		return false
	}
	a.notice = ""
	if a.noticeT != nil {
		a.noticeT.Stop()
	}
	return true
}

func (a *App) currentNotice() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.notice
}
