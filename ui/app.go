package ui

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/themes"
)

// Config wires the application.
type Config struct {
	Theme    *themes.Theme
	Status   func() Status
	Bindings map[string]string
	// Panes builds the panes; the composition root registers a factory
	// for every kind, wired to the swarm, the vault and the shell.
	Panes *pane.Registry
	// Screen replaces the terminal (tests use a simulation screen).
	Screen tcell.Screen
	// Layout is the panes to open at start, split left to right; empty
	// opens the default layout (agent, shell, vault and stats).
	Layout []pane.Kind
	// Roles are the agent roles a new agent may take; the agent factory
	// is given one in its pane.Spec.
	Roles []string
	// Commands are the /commands an agent pane takes (the built-ins, then
	// the skills), each with what it does, for the help screen.
	Commands [][2]string
	// Detach, when set, detaches the client the keys came from while the
	// session keeps running (the server's sessions); without it the quit
	// key ends the workstation.
	Detach func()
	// Restore, when set, is a layout saved by Snapshot to rebuild instead
	// of Layout or the default one (see restore).
	Restore *Snapshot
	// OnLayoutChange, when set, is called on the UI goroutine after every
	// change a Snapshot would see: a pane opened or closed, a split, a
	// resize, a zoom, a focus move. It is not called while New builds the
	// first layout. It must be cheap.
	OnLayoutChange func()
	// HasBlock, when set, says whether the vault holds block id (nil) or
	// why not. OpenBlock asks it first, so a block that is not there
	// leaves the focus where it was.
	HasBlock func(id string) error
	// MCPStatus, when set, is the MCP servers' state, one line each,
	// which the palette command mcp shows in a dialog.
	MCPStatus func() string
	// SessionName and RenameSession, when set, are the server session's
	// name and what renames it (C-b $); RenameSession may block, so it is
	// called off the UI goroutine.
	SessionName   func() string
	RenameSession func(name string) error
}

// App is the workstation.
type App struct {
	cfg     Config
	tv      *tview.Application
	pages   *tview.Pages
	layout  *Layout
	status  *statusBar
	hints   *hintsBar
	prefix  *keymap.Table
	global  *keymap.Table
	pending bool // the prefix key was pressed
	// picking is set after display-panes (C-b q): the next key, a
	// pane's number, focuses that pane.
	picking bool
	// skipFrame is set by a key that changes nothing on the screen; the
	// frame drawn for it is skipped (see capture).
	skipFrame bool
	// windows are the windows in order; layout shows one of them.
	// lastWin is the one shown before it (C-b l).
	windows []*window
	lastWin *window

	lastOf   map[pane.Kind]pane.Pane // last focused pane of each kind
	focusSeq uint64
	// paneSeq is the last pane id given (see build).
	paneSeq int

	mu      sync.Mutex
	notice  string
	noticeT *time.Timer
	stopped bool
	// queue holds Update calls waiting for the UI goroutine; scheduled is
	// set while a flush is queued, pace while it waits for its frame.
	queue     []func()
	scheduled bool
	pace      *time.Timer
	// lastFlush is when queued updates last ran (frames are paced).
	lastFlush time.Time
	frameGap  time.Duration
	// flushes counts the batches of updates run (Activity); active gets
	// a signal after each (Active).
	flushes atomic.Uint64
	active  chan struct{}
	// handled counts key events the application has finished with; the
	// headless driver waits on it.
	handled chan struct{}
}

// New builds the application and its first layout: cfg.Restore's, else
// cfg.Layout, else the default one.
func New(cfg Config) (*App, error) {
	if cfg.Theme == nil {
		cfg.Theme = themes.Default()
	}
	if cfg.Status == nil {
		cfg.Status = func() Status { return Status{} }
	}
	a := &App{cfg: cfg, tv: tview.NewApplication(), lastOf: map[pane.Kind]pane.Pane{}, handled: make(chan struct{}, 1024), frameGap: frameGap,
		active: make(chan struct{}, 1)}
	// The first layout is no change: the caller has no App to ask yet.
	a.cfg.OnLayoutChange = nil
	defer func() { a.cfg.OnLayoutChange = cfg.OnLayoutChange }()
	a.windows = []*window{{}}
	a.layout = newLayout(cfg.Theme, a.windows[0])
	a.layout.onClick = a.focus
	a.layout.modal = a.modal
	a.status = &statusBar{Box: tview.NewBox(), app: a}
	a.hints = &hintsBar{Box: tview.NewBox(), app: a}
	a.prefix = a.prefixTable()
	a.global = keymap.New("global", keymap.Bind("prefix", "Ctrl-b", "start a command (then a key of the prefix table)", false, nil))
	if err := a.checkBindings(cfg.Bindings); err != nil {
		return nil, err
	}
	root := tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(a.layout, 0, 1, true).
		AddItem(a.hints, 1, 0, false).
		AddItem(a.status, 1, 0, false)
	a.pages = tview.NewPages().AddPage("main", root, true, true)
	a.tv.SetRoot(screenRoot{a.pages}, true).EnableMouse(true).EnablePaste(true)
	a.tv.SetInputCapture(a.capture)
	a.tv.SetBeforeDrawFunc(func(tcell.Screen) bool {
		skip := a.skipFrame
		a.skipFrame = false
		return skip
	})
	screen := cfg.Screen
	if screen == nil {
		var err error
		if screen, err = tcell.NewScreen(); err != nil {
			return nil, err
		}
	}
	a.tv.SetScreen(newFrameScreen(screen))
	if cfg.Restore != nil && a.restore(*cfg.Restore) {
		return a, nil
	}
	if len(cfg.Layout) == 0 {
		// A pane that cannot open (no shell) is reported; the rest work.
		if err := a.defaultLayout(); err != nil {
			a.Notify(err.Error())
		}
		return a, nil
	}
	for _, k := range cfg.Layout {
		if err := a.Open(k, LeftRight); err != nil {
			return nil, err
		}
	}
	a.focusLeaf(a.layout.tree.leaves()[0])
	return a, nil
}

// defaultLayout opens the start screen: the agent and a shell on top, the
// vault and the stats below.
func (a *App) defaultLayout() error {
	var errs []error
	open := func(kind pane.Kind, at *leaf, d Dir) *leaf {
		p, s, err := a.build(pane.Spec{Kind: kind})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s pane: %w", kind, err))
			return at
		}
		return a.insert(at, d, s, p)
	}
	agentL := open(pane.KindAgent, nil, LeftRight)
	vaultL := open(pane.KindVault, agentL, TopBottom)
	open(pane.KindShell, agentL, LeftRight)
	open(pane.KindStats, vaultL, LeftRight)
	if root := a.layout.tree.root; root != nil && root.leaf == nil && root.dir == TopBottom {
		root.weights = []float64{3, 2}
	}
	if leaves := a.layout.tree.leaves(); len(leaves) > 0 {
		a.focusLeaf(leaves[0])
	}
	return errors.Join(errs...)
}

// Run shows the workstation until Quit.
func (a *App) Run() error { return a.tv.Run() }

// Quit stops the application and closes every pane.
func (a *App) Quit() {
	a.mu.Lock()
	if a.stopped {
		a.mu.Unlock()
		return
	}
	a.stopped = true
	a.mu.Unlock()
	// Panes close in parallel: a shell may wait a moment for its job to
	// end after the hangup.
	var wg sync.WaitGroup
	for _, lf := range a.allLeaves() {
		wg.Add(1)
		go func(p pane.Pane) {
			defer wg.Done()
			_ = p.Close()
		}(lf.pane)
	}
	wg.Wait()
	a.tv.Stop()
}

// EachPane calls fn for every pane of every window; call it on the UI
// goroutine.
func (a *App) EachPane(fn func(p pane.Pane)) {
	for _, lf := range a.allLeaves() {
		fn(lf.pane)
	}
}

// Focused returns the focused pane.
func (a *App) Focused() pane.Pane {
	if a.layout.focused == nil {
		return nil
	}
	return a.layout.focused.pane
}

// Last returns the pane of the kind that had the focus last in the
// window on the screen, else its first one of that kind, else the one of
// another window that had the focus last, else the first one there.
func (a *App) Last(kind pane.Kind) pane.Pane {
	last := a.lastOf[kind]
	for _, leaves := range [][]*leaf{a.layout.tree.leaves(), a.allLeaves()} {
		var first pane.Pane
		for _, lf := range leaves {
			if lf.pane == last {
				return last
			}
			if first == nil && lf.pane.Kind() == kind {
				first = lf.pane
			}
		}
		if first != nil {
			return first
		}
	}
	return nil
}

// Open builds a pane of the kind and splits the focused pane for it.
func (a *App) Open(kind pane.Kind, d Dir) error {
	return a.open(pane.Spec{Kind: kind}, d)
}

// open builds the pane s names and splits the focused pane for it.
func (a *App) open(s pane.Spec, d Dir) error {
	p, s, err := a.build(s)
	if err != nil {
		a.Notify(fmt.Sprintf("cannot open a %s pane: %v", s, err))
		return err
	}
	a.focusLeaf(a.insert(a.layout.focused, d, s, p))
	return nil
}

// readableCols is the narrowest a pane Show opens beside another is left:
// a table or a transcript reads badly narrower.
const readableCols = 60

// showDir is the way Show splits a w×h pane for a new one: side by side
// while both halves keep readableCols and the pane is wider than tall (a
// cell is about twice as tall as wide), else one above the other.
func showDir(w, h int) Dir {
	if w/2 >= readableCols && w >= 2*h {
		return LeftRight
	}
	if h/2 < 5 && w > 2*h {
		return LeftRight // too few rows to share
	}
	return TopBottom
}

// Show focuses the pane of the kind, opening one when there is none, and
// returns it; a pane that can re-read its data does.
func (a *App) Show(kind pane.Kind) (pane.Pane, error) {
	if p := a.Last(kind); p != nil {
		a.focusLeaf(a.leafOf(p))
		if r, ok := p.(pane.Refresher); ok {
			r.Refresh()
		}
		return p, nil
	}
	d := LeftRight
	if f := a.layout.focused; f != nil {
		d = showDir(f.w, f.h)
	}
	if err := a.Open(kind, d); err != nil {
		return nil, err
	}
	return a.Focused(), nil
}

// screenRoot is the application's root: its pages, the main one (the
// layout and the bars) and the dialogs in front of it, each the screen's
// size. Unlike tview.Pages it does not fill the screen before drawing
// them: the main page paints every cell.
type screenRoot struct{ *tview.Pages }

// Draw draws the visible pages, back to front.
func (r screenRoot) Draw(screen tcell.Screen) {
	// A shell pane's program may shape the cursor (vim's bar); anything
	// else drawing this frame has the terminal's own.
	screen.SetCursorStyle(tcell.CursorStyleDefault, tcell.ColorReset)
	x, y, w, h := r.GetInnerRect()
	names := r.GetPageNames(true) // front first
	for i := len(names) - 1; i >= 0; i-- {
		item := r.GetPage(names[i])
		item.SetRect(x, y, w, h)
		item.Draw(screen)
	}
}
