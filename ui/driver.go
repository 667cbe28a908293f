package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/kwsdev/kws/panes/keymap"
)

// Driver runs the application headless on a simulation screen, for tests:
// keys go in, it waits until the application has handled them and drawn,
// and the screen's text comes out. It never sleeps a fixed time: WaitFor
// polls for a condition with a deadline.
type Driver struct {
	App    *App
	Screen tcell.SimulationScreen
	done   chan error
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
	d := &Driver{App: app, Screen: sim, done: make(chan error, 1)}
	go func() { d.done <- app.Run() }()
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
		case err := <-d.done:
			d.done <- err
			return fmt.Errorf("ui driver: the application stopped: %v", err)
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
		var mod tcell.ModMask
		if k.Alt {
			mod |= tcell.ModAlt
		}
		if k.Code >= tcell.KeyCtrlA && k.Code <= tcell.KeyCtrlZ && k.Code != tcell.KeyEnter && k.Code != tcell.KeyTab && k.Code != tcell.KeyBackspace {
			mod |= tcell.ModCtrl
		}
		if err := d.inject(k.Code, k.Rune, mod); err != nil {
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

// Text returns the screen, one line per row, trailing spaces removed.
func (d *Driver) Text() string {
	cells, w, h := d.Screen.GetContents()
	var b strings.Builder
	for y := range h {
		var row strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				row.WriteByte(' ')
				continue
			}
			row.WriteString(string(c.Runes))
		}
		b.WriteString(strings.TrimRight(row.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
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
	case err := <-d.done:
		return err
	default:
	}
	go d.App.tv.QueueUpdate(d.App.Quit)
	select {
	case err := <-d.done:
		return err
	case <-time.After(driverTimeout):
		return errors.New("ui driver: the application did not stop")
	}
}
