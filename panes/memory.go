package panes

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rivo/tview"

	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
)

// MemorySource is what the memory pane needs of the memory store;
// *memory.Store is one.
type MemorySource interface {
	Scopes() []string
	List(ctx context.Context, scope string) ([]memory.Memory, error)
	Search(ctx context.Context, query string, scopes []string, k int) ([]memory.Hit, error)
	Update(ctx context.Context, m memory.Memory) (memory.Memory, error)
	Delete(id string) error
	Pending() []memory.Pending
	Approve(ctx context.Context, id, editedText string) (memory.Action, memory.Memory, error)
	Reject(id string) error
	Reembedding() memory.Reembedding
}

// memorySearchLimit bounds the hits a search shows.
const memorySearchLimit = 100

// memRow is one row of the pane: a memory, or a candidate waiting for
// approval.
type memRow struct {
	mem  memory.Memory
	cand *memory.Pending
}

// MemoryPane lists the memories of every scope and the candidates waiting
// for approval; it searches as you type, shows where a memory came from
// (Enter opens its vault block), edits, deletes, approves and rejects.
type MemoryPane struct {
	*tview.Box
	env     *pane.Env
	src     MemorySource
	openRef func(id string)
	keys    *keymap.Table

	rows       []memRow
	candidates bool // showing the approval queue
	listCursor
	query     string
	searching bool
	editor    *tview.InputField
	editing   *memRow
	err       error
	// reembed is the store's background re-embedding as the last
	// Refresh read it; the bottom line shows it while it runs or after
	// it failed.
	reembed memory.Reembedding
}

// NewMemoryPane returns the memory pane of src; openRef shows a vault
// block (a memory's provenance).
func NewMemoryPane(env *pane.Env, src MemorySource, openRef func(id string)) *MemoryPane {
	p := &MemoryPane{Box: tview.NewBox(), env: env, src: src, openRef: openRef}
	p.editor = tview.NewInputField().SetLabel("edit: ")
	p.editor.SetFieldStyle(env.Theme.Selection.TCell()).SetLabelStyle(env.Theme.HintKey.TCell())
	p.keys = env.KeyTable("memory", memoryActions(p)...)
	p.Refresh()
	return p
}

// memoryActions are the memory pane's keys, run on p.
func memoryActions(p *MemoryPane) []keymap.Action {
	return []keymap.Action{
		keymap.Bind("down", "j Down", "down", false, func() { p.move(1) }),
		keymap.Bind("up", "k Up", "up", false, func() { p.move(-1) }),
		keymap.Bind("approve", "a", "approve the candidate", true, p.approve).Short("approve"),
		keymap.Bind("delete", "D", "delete the memory / reject the candidate", true, p.remove).Short("delete"),
		keymap.Bind("edit", "e", "edit the text", true, p.startEdit).Short("edit"),
		keymap.Bind("queue", "Tab", "memories / candidates to approve", true, p.toggleQueue).Short("candidates"),
		keymap.Bind("search", "/", "search as you type", true, func() { p.searching = true }).Short("search"),
		keymap.Bind("provenance", "Enter", "where it came from (opens its vault block)", true, p.provenance).Short("source"),
		keymap.Bind("refresh", "R Ctrl-r", "refresh", false, p.Refresh),
		keymap.Bind("clear", "Esc q", "clear the search", false, func() { p.query = ""; p.Refresh() }),
	}
}

// MemoryInfo describes the memory pane.
var MemoryInfo = pane.Info{Kind: pane.KindMemory, Scopes: []string{"memory"}, Key: "m", Action: "memory",
	Help: "show the memory pane (memories, candidates to approve)",
	Keys: func() []*keymap.Table { return []*keymap.Table{keymap.New("memory", memoryActions(nil)...)} }}

// Kind returns "memory".
func (p *MemoryPane) Kind() pane.Kind { return pane.KindMemory }

// Title counts the memories and the candidates.
func (p *MemoryPane) Title() string {
	n := len(p.src.Pending())
	t := "memory"
	if p.candidates {
		t += " · candidates"
	} else if p.query != "" {
		t += fmt.Sprintf(" · %q", p.query)
	}
	if n > 0 {
		t += fmt.Sprintf(" · %d waiting for approval", n)
	}
	return t
}

// Keys returns the pane's key table.
func (p *MemoryPane) Keys() *keymap.Table { return p.keys }

// Close does nothing: the store outlives the pane.
func (p *MemoryPane) Close() error { return nil }

// Refresh reloads the rows (the search hits, every memory newest first,
// or the candidates) and the re-embedding's progress.
func (p *MemoryPane) Refresh() {
	ctx := context.Background()
	p.rows, p.err = nil, nil
	p.reembed = p.src.Reembedding()
	switch {
	case p.candidates:
		for _, c := range p.src.Pending() {
			p.rows = append(p.rows, memRow{cand: &c})
		}
	case p.query != "":
		hits, err := p.src.Search(ctx, p.query, nil, memorySearchLimit)
		p.err = err
		for _, h := range hits {
			p.rows = append(p.rows, memRow{mem: h.Memory})
		}
	default:
		for _, scope := range p.src.Scopes() {
			ms, err := p.src.List(ctx, scope)
			if err != nil {
				p.err = err
			}
			for _, m := range ms {
				p.rows = append(p.rows, memRow{mem: m})
			}
		}
		sortNewest(p.rows)
	}
	p.clampTo(len(p.rows))
}

// sortNewest orders memories by their last update, newest first, then by
// text so the order is stable.
func sortNewest(rows []memRow) {
	slices.SortFunc(rows, func(a, b memRow) int {
		if c := b.mem.Updated.Compare(a.mem.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.mem.Text, b.mem.Text)
	})
}

func (p *MemoryPane) move(n int) {
	p.moveBy(n, len(p.rows))
}

func (p *MemoryPane) toggleQueue() {
	p.candidates, p.sel, p.top = !p.candidates, 0, 0
	p.Refresh()
}

func (p *MemoryPane) current() *memRow {
	if p.sel < 0 || p.sel >= len(p.rows) {
		return nil
	}
	return &p.rows[p.sel]
}

// provenance opens the vault block behind the memory, or says where the
// memory came from when no block backs it.
func (p *MemoryPane) provenance() {
	r := p.current()
	if r == nil {
		return
	}
	prov := r.mem.Provenance
	if r.cand != nil {
		prov = r.cand.Provenance
	}
	if len(prov.VaultIDs) > 0 {
		p.openRef(prov.VaultIDs[0])
		return
	}
	where := "from " + cmp.Or(prov.Source, "unknown")
	if prov.Session != "" {
		where += ", session " + prov.Session
	}
	if prov.Turn > 0 {
		where += fmt.Sprintf(" turn %d", prov.Turn)
	}
	p.env.Tell(where + " (no vault block backs it)")
}

func (p *MemoryPane) startEdit() {
	r := p.current()
	if r == nil {
		return
	}
	text := r.mem.Text
	if r.cand != nil {
		text = r.cand.Candidate.Text
	}
	p.editor.SetText(text)
	p.editing = r
}

// finishEdit saves the edited text: an edited memory is updated, an edited
// candidate is approved with the new text.
func (p *MemoryPane) finishEdit(save bool) {
	r, text := p.editing, strings.TrimSpace(p.editor.GetText())
	p.editing = nil
	if !save || r == nil || text == "" {
		return
	}
	ctx := context.Background()
	var err error
	if r.cand != nil {
		_, _, err = p.src.Approve(ctx, r.cand.ID, text)
	} else {
		m := r.mem
		m.Text = text
		_, err = p.src.Update(ctx, m)
	}
	p.report("saved", err)
}

func (p *MemoryPane) remove() {
	r := p.current()
	switch {
	case r == nil:
		return
	case r.cand != nil:
		p.report("rejected "+r.cand.ID, p.src.Reject(r.cand.ID))
	default:
		p.report("deleted "+r.mem.ID, p.src.Delete(r.mem.ID))
	}
}

func (p *MemoryPane) approve() {
	r := p.current()
	if r == nil || r.cand == nil {
		p.env.Tell("a approves a candidate: Tab shows the queue")
		return
	}
	act, m, err := p.src.Approve(context.Background(), r.cand.ID, "")
	p.report(fmt.Sprintf("approved: %s %s", act, m.ID), err)
}

// report refreshes and tells the user what happened.
func (p *MemoryPane) report(done string, err error) {
	if err != nil {
		p.env.Tell(err.Error())
	} else {
		p.env.Tell(done)
	}
	p.Refresh()
}
