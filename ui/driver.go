package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/internal/screentest"
	"github.com/kwsdev/kws/panes/keymap"
)

// Driver runs the application headless on a simulation screen, for tests:
// keys go in, it waits until the application has handled them and drawn,
// and the screen's text comes out. It never sleeps a fixed time: WaitFor
// polls for a condition with a deadline.
type Driver struct {
	App    *App
	Screen tcell.SimulationScreen
	// done is closed when Run returns, with its error in runErr.
	done   chan struct{}
	runErr error
}

// driverTimeout bounds every wait of the driver.
const driverTimeout = 10 * time.Second

// NewDriver builds the application from cfg on a w×h simulation screen and
// starts it.
func NewDriver(cfg Config, w, h int) (*Driver, error) {
	sim := tcell.NewSimulationScreen("UTF-8")
	if err := sim.Init(); err != nil {
		return nil, err
	}
	sim.SetSize(w, h)
	cfg.Screen = sim
	app, err := New(cfg)
	if err != nil {
		return nil, err
	}
	d := &Driver{App: app, Screen: sim, done: make(chan struct{})}
	go func() {
		d.runErr = app.Run()
		close(d.done)
	}()
	// Run initialises the screen, which resets its size.
	if err := d.Do(func() { sim.SetSize(w, h) }); err != nil {
		return nil, err
	}
	if err := d.Sync(); err != nil {
		return nil, err
	}
	return d, nil
}

// Sync waits until every update queued so far has run and the screen has
// been drawn after them.
func (d *Driver) Sync() error {
	for range 2 {
		ch := make(chan struct{})
		go d.App.tv.QueueUpdateDraw(func() { close(ch) })
		select {
		case <-ch:
		case <-d.done:
			return fmt.Errorf("ui driver: the application stopped: %v", d.runErr)
		case <-time.After(driverTimeout):
			return errors.New("ui driver: the application did not become idle")
		}
	}
	return nil
}

// Press sends keys as keymap spells them ("C-b" is written "Ctrl-b",
// "%", "Enter", "Up") one by one, waiting for each to be handled.
func (d *Driver) Press(keys ...string) error {
	for _, s := range keys {
		k, err := keymap.Parse(s)
		if err != nil {
			return err
		}
		ev := keyEvent(k)
		if err := d.inject(ev.Key(), ev.Rune(), ev.Modifiers()); err != nil {
			return fmt.Errorf("ui driver: key %s: %w", s, err)
		}
	}
	return d.Sync()
}

// Type sends text as typed runes.
func (d *Driver) Type(text string) error {
	for _, r := range text {
		if err := d.inject(tcell.KeyRune, r, 0); err != nil {
			return err
		}
	}
	return d.Sync()
}

func (d *Driver) inject(code tcell.Key, r rune, mod tcell.ModMask) error {
	for len(d.App.handled) > 0 {
		<-d.App.handled
	}
	d.Screen.InjectKey(code, r, mod)
	select {
	case <-d.App.handled:
		return nil
	case <-time.After(driverTimeout):
		return errors.New("not handled in time")
	}
}

// Text returns the screen, one line per row, trailing spaces removed. It
// reads the screen on the UI goroutine, between draws.
func (d *Driver) Text() string {
	ch := make(chan string, 1)
	go d.App.tv.QueueUpdate(func() { ch <- screentest.Text(d.Screen) })
	select {
	case s := <-ch:
		return s
	case <-d.done:
		return screentest.Text(d.Screen)
	case <-time.After(driverTimeout):
		return "(the application did not answer)"
	}
}

// WaitFor waits until the screen contains want.
func (d *Driver) WaitFor(want string) error {
	deadline := time.Now().Add(driverTimeout)
	for {
		if err := d.Sync(); err != nil {
			return err
		}
		if strings.Contains(d.Text(), want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ui driver: the screen never showed %q; it shows:\n%s", want, d.Text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop quits the application and waits for it.
func (d *Driver) Stop() error {
	select {
	case <-d.done:
		return d.runErr
	default:
	}
	go d.App.tv.QueueUpdate(d.App.Quit)
	select {
	case <-d.done:
		return d.runErr
	case <-time.After(driverTimeout):
		return errors.New("ui driver: the application did not stop")
	}
}

// Do runs fn on the UI goroutine and waits for it, so a test can read the
// application's state without racing its draws.
func (d *Driver) Do(fn func()) error {
	ch := make(chan struct{})
	go d.App.tv.QueueUpdate(func() {
		fn()
		close(ch)
	})
	select {
	case <-ch:
		return nil
	case <-d.done:
		return fmt.Errorf("ui driver: the application stopped: %v", d.runErr)
	case <-time.After(driverTimeout):
		return errors.New("ui driver: the application did not answer")
	}
}
