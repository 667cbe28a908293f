package ui

import (
	"strings"
	"testing"
)

// Script is a Driver bound to a test: each step waits until it is done and
// fails the test itself, with what the screen shows, when it cannot be, and
// returns the script for the next step, so that a test reads as what a
// user does:
//
//	s.Press("Ctrl-b", "%").Focused("shell-2").Contains("[Z]")
type Script struct {
	*Driver
	t testing.TB
}

// Script binds d to t.
func (d *Driver) Script(t testing.TB) *Script { return &Script{Driver: d, t: t} }

// check fails the test with err, if any.
func (s *Script) check(err error) *Script {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
	return s
}

// Press sends keys as keymap spells them and waits until they are handled.
func (s *Script) Press(keys ...string) *Script {
	s.t.Helper()
	return s.check(s.Driver.Press(keys...))
}

// Type types text and waits until it is handled.
func (s *Script) Type(text string) *Script {
	s.t.Helper()
	return s.check(s.Driver.Type(text))
}

// WaitFor waits until the screen shows want.
func (s *Script) WaitFor(want string) *Script {
	s.t.Helper()
	return s.check(s.Driver.WaitFor(want))
}

// Do runs fn on the UI goroutine and waits for it.
func (s *Script) Do(fn func()) *Script {
	s.t.Helper()
	return s.check(s.Driver.Do(fn))
}

// Sync waits until the application is idle and drawn.
func (s *Script) Sync() *Script {
	s.t.Helper()
	return s.check(s.Driver.Sync())
}

// Contains checks that the screen, once idle, shows every one of want.
func (s *Script) Contains(want ...string) *Script {
	s.t.Helper()
	s.Sync()
	text := s.Text()
	for _, w := range want {
		if !strings.Contains(text, w) {
			s.t.Fatalf("the screen does not show %q; it shows:\n%s", w, text)
		}
	}
	return s
}

// Lacks checks that the screen, once idle, shows none of unwanted.
func (s *Script) Lacks(unwanted ...string) *Script {
	s.t.Helper()
	s.Sync()
	text := s.Text()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			s.t.Fatalf("the screen shows %q; it shows:\n%s", w, text)
		}
	}
	return s
}

// Focused checks that the focused pane's title is title.
func (s *Script) Focused(title string) *Script {
	s.t.Helper()
	got := ""
	s.Do(func() {
		if p := s.App.Focused(); p != nil {
			got = p.Title()
		}
	})
	if got != title {
		s.t.Fatalf("the focused pane is %q, want %q; the screen shows:\n%s", got, title, s.Text())
	}
	return s
}
