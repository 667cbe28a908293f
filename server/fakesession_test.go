package server

import (
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/kwsdev/kws/server/wire"
)

// fakeSession is a Session that draws on the real screen the daemon gives
// it: each key typed is drawn as "<r>" in fresh cells and reported on keys,
// its size at the start and after each resize is reported on sizes.
type fakeSession struct {
	spec     SessionSpec
	agents   []AgentState
	ended    chan struct{}
	endOnce  sync.Once
	attached chan struct{}
	keys     chan rune
	sizes    chan wire.Size
}

func newFake(spec SessionSpec, agents []AgentState) *fakeSession {
	return &fakeSession{spec: spec, agents: agents, ended: make(chan struct{}),
		attached: make(chan struct{}, 256), keys: make(chan rune, 256), sizes: make(chan wire.Size, 256)}
}

func (f *fakeSession) Run() error {
	s := f.spec.Screen
	if err := s.Init(); err != nil {
		return err
	}
	defer s.Fini()
	w, h := s.Size()
	f.sizes <- wire.Size{Cols: w, Rows: h}
	events := make(chan tcell.Event)
	go func() {
		for {
			ev := s.PollEvent()
			if ev == nil {
				return
			}
			select {
			case events <- ev:
			case <-f.ended:
				return
			}
		}
	}()
	n := 0
	for {
		select {
		case <-f.ended:
			return nil
		case ev := <-events:
			switch ev := ev.(type) {
			case *tcell.EventKey:
				w, h := s.Size()
				x, y := (n%16)*5, (n/16)%max(h, 1)
				for i, r := range []rune{'<', ev.Rune(), '>'} {
					if x+i < w {
						s.SetContent(x+i, y, r, nil, tcell.StyleDefault)
					}
				}
				n++
				s.Show()
				f.keys <- ev.Rune()
			case *tcell.EventResize:
				w, h := ev.Size()
				s.Sync()
				f.sizes <- wire.Size{Cols: w, Rows: h}
			}
		}
	}
}

func (f *fakeSession) End() { f.endOnce.Do(func() { close(f.ended) }) }

func (f *fakeSession) Attached() {
	select {
	case f.attached <- struct{}{}:
	default:
	}
}

func (f *fakeSession) Agents() []AgentState { return f.agents }

func (f *fakeSession) WaitingPanes() []PaneState { return nil }

// waitKey waits for the session to read r.
func (f *fakeSession) waitKey(t *testing.T, r rune) {
	t.Helper()
	for {
		select {
		case got := <-f.keys:
			if got == r {
				return
			}
		case <-time.After(waitLimit):
			t.Fatalf("the session never read %q", r)
		}
	}
}

// waitSize waits for the screen to be resized to s.
func (f *fakeSession) waitSize(t *testing.T, s wire.Size) {
	t.Helper()
	for {
		select {
		case got := <-f.sizes:
			if got == s {
				return
			}
		case <-time.After(waitLimit):
			t.Fatalf("the screen never became %+v", s)
		}
	}
}
