package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/ui"
)

// journalEvery is how often, at most, the journal looks for changes no
// event announces (a shell pane's directory after a cd) while the screen
// changes. A look that finds nothing new writes nothing.
const journalEvery = 2 * time.Second

// journalSoon is when the journal looks after the screen changed at rest
// (and after the session started): a change is journaled within moments,
// and a session left alone is at rest once it has looked.
const journalSoon = 300 * time.Millisecond

// sessionState is what the server journals for a session: enough to
// bring it back after the server died. Stats are each agent's figures, by
// name.
type sessionState struct {
	Layout ui.Snapshot            `json:"layout"`
	Stats  map[string]swarm.Stats `json:"stats,omitempty"`
}

// parseSessionState reads a journaled state; nil or damaged gives none.
func parseSessionState(data []byte, log *slog.Logger) *sessionState {
	if len(data) == 0 {
		return nil
	}
	var st sessionState
	if err := json.Unmarshal(data, &st); err != nil {
		log.Warn("journal: session state unreadable; the default layout opens", "error", err)
		return nil
	}
	return &st
}

// journaler keeps a session's journal current: on every change the
// application or the swarm reports, and after the screen changed (at
// most every journalEvery), it takes a snapshot on the UI goroutine and
// saves it when it differs from the last.
type journaler struct {
	app *ui.App
	// idle, when set and true, skips the periodic look: with no client
	// attached nobody changes a shell's directory, and a detached server
	// stays at rest. Changes that are announced are journaled anyway.
	idle func() bool
	// stats reads the agents' figures; nil journals none.
	stats func() map[string]swarm.Stats
	save  func([]byte) error
	log   *slog.Logger
	kick  chan struct{}
	done  chan struct{}
	last  []byte
}

// newJournaler starts journaling app's session, with the agents' figures
// stats reads, through save; idle tells it when to skip its periodic
// look.
func newJournaler(app *ui.App, idle func() bool, stats func() map[string]swarm.Stats, save func([]byte) error, log *slog.Logger) *journaler {
	j := &journaler{app: app, idle: idle, stats: stats, save: save, log: log, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go j.loop()
	return j
}

// changed asks for a journal entry soon. It never blocks.
func (j *journaler) changed() {
	select {
	case j.kick <- struct{}{}:
	default:
	}
}

// stop ends journaling.
func (j *journaler) stop() {
	select {
	case <-j.done:
	default:
		close(j.done)
	}
}

func (j *journaler) loop() {
	// Each change brings one look: a draw arms the timer, journalSoon
	// after it (journalEvery after the last look while the screen keeps
	// changing), and the look disarms it. Then the journal waits for the
	// next draw (ui.App.Active), so a session at rest wakes nobody.
	t := time.NewTimer(journalSoon)
	defer t.Stop()
	var drawn <-chan struct{} // the next draw, while the timer is disarmed
	var last time.Time        // the last look
	wasIdle := false
	for {
		select {
		case <-j.done:
			return
		case <-j.kick:
			if !j.look() {
				return
			}
			continue
		case <-drawn:
			drawn = nil
			t.Reset(max(journalSoon, journalEvery-time.Since(last)))
			continue
		case <-t.C:
		}
		last = time.Now()
		act := j.app.Activity()
		// With no client attached nobody changes a shell's directory: the
		// first look after the last client left runs, for a cd just
		// before detaching; the next ones find nothing.
		idle := j.idle != nil && j.idle()
		if !(idle && wasIdle) && !j.look() {
			return
		}
		wasIdle = idle
		// A signal from before this look is stale; a draw since shows in
		// Activity, which then differs.
		select {
		case <-j.app.Active():
		default:
		}
		if j.app.Activity() != act {
			t.Reset(journalEvery)
		} else {
			drawn = j.app.Active()
		}
	}
}

// look takes a snapshot on the UI goroutine and saves it when it changed;
// false when journaling ended meanwhile.
func (j *journaler) look() bool {
	got := make(chan []byte, 1)
	j.app.Inspect(func() {
		st := sessionState{Layout: j.app.Snapshot()}
		if j.stats != nil {
			st.Stats = j.stats()
		}
		data, err := json.Marshal(st)
		if err == nil {
			got <- data
		}
	})
	select {
	case data := <-got:
		j.write(data)
		return true
	case <-j.done:
		return false
	}
}

// write saves data unless it is what was saved last.
func (j *journaler) write(data []byte) {
	if bytes.Equal(data, j.last) {
		return
	}
	if err := j.save(data); err != nil {
		j.log.Warn("journal", "error", err)
		return
	}
	j.last = data
}
