package panes

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/kwsdev/kws/panes/keymap"
	"github.com/kwsdev/kws/panes/pane"
	"github.com/kwsdev/kws/vault"
)

// VaultSource is what the vault pane needs of the vault; *vault.Vault is
// one. The list loads metadata only; block bytes are read one at a time
// when a block is opened.
type VaultSource interface {
	List(fn func(vault.Meta) error) error
	Get(id string) ([]byte, error)
	Meta(id string) (vault.Meta, error)
	Search(query string, k int) ([]vault.Hit, error)
}

// vaultSearchLimit bounds the hits a filter asks the vault for.
const vaultSearchLimit = 200

// VaultPane browses the vault: a list of blocks, newest first, with a
// filter that searches as you type, and a viewer of one exact block. It
// injects a block into an agent's next turn and shows sensitive blocks
// only on request.
type VaultPane struct {
	*tview.Box
	env    *pane.Env
	src    VaultSource
	inject Injector
	keys   *keymap.Table
	// summarize asks the sidecar for a richer summary of a block; nil
	// leaves the key without effect.
	summarize func(ctx context.Context, kind, text string) (string, error)

	all     []vault.Meta // every block, newest first
	shown   []vault.Meta // the blocks the filter lets through
	loadErr error
	listCursor
	height  int // list rows of the last draw
	filter  string
	editing bool
	view    *vaultView
	// asking is the inject question while it waits for an answer.
	asking *injectAsk
}

// Injector gives vault blocks to an agent's next turn.
type Injector struct {
	// Target names the agent that would get a block now (the inject
	// question names it), or says why no agent can.
	Target func() (string, error)
	// Give queues block id for agent's next turn.
	Give func(agent, id string) error
}

// NewVaultPane returns a vault pane reading v. inject queues a block for an
// agent's next turn; its error, or its success, is shown with env.Notify.
// A zero Injector leaves the inject key saying no agent can take a block.
func NewVaultPane(env *pane.Env, v VaultSource, inject Injector) *VaultPane {
	p := &VaultPane{Box: tview.NewBox(), env: env, src: v, inject: inject}
	p.keys = env.KeyTable("vault", vaultActions(p)...)
	p.Refresh()
	return p
}

// SetSummarizer lets S in the viewer ask fn (the sidecar) for a richer
// summary of the open block. The summary is a hint shown above the exact
// bytes; a sensitive block is summarised only once revealed.
func (p *VaultPane) SetSummarizer(fn func(ctx context.Context, kind, text string) (string, error)) {
	p.summarize = fn
}

// summarizeOpen asks for the open block's summary in the background.
func (p *VaultPane) summarizeOpen() {
	v := p.view
	switch {
	case p.summarize == nil:
		return
	case v == nil:
		p.env.Tell("open a block (Enter) first")
		return
	case v.sensitive && !v.revealed:
		p.env.Tell("reveal the block (r) before asking for a summary")
		return
	}
	v.hint = "…"
	kind, text := v.meta.Kind, string(v.data)
	go func() {
		sum, err := p.summarize(context.Background(), kind, text)
		p.env.Update(func() {
			if err != nil {
				v.hint = ""
				p.env.Tell("summary: " + err.Error())
				return
			}
			v.hint = sum
		})
	}()
}

// vaultActions are the vault pane's keys, run on p.
func vaultActions(p *VaultPane) []keymap.Action {
	return []keymap.Action{
		keymap.Bind("down", "j Down", "down", false, func() { p.move(1) }),
		keymap.Bind("up", "k Up", "up", false, func() { p.move(-1) }),
		keymap.Bind("page-down", "PgDn Ctrl-d", "page down", false, func() { p.move(p.page()) }),
		keymap.Bind("page-up", "PgUp Ctrl-u", "page up", false, func() { p.move(-p.page()) }),
		keymap.Bind("top", "g Home", "first", false, func() { p.jump(false) }),
		keymap.Bind("bottom", "G End", "last", false, func() { p.jump(true) }),
		keymap.Bind("open", "Enter", "open exact", true, p.openSelected),
		keymap.Bind("search", "/", "filter / search", true, p.startInput),
		keymap.Bind("next-match", "n", "next match", false, func() { p.step(1) }),
		keymap.Bind("prev-match", "N", "previous match", false, func() { p.step(-1) }),
		keymap.Bind("reveal", "r", "reveal / mask", true, p.reveal),
		keymap.Bind("inject", "i", "inject into next turn", true, p.injectSelected),
		keymap.Bind("summarize", "S", "sidecar summary of the open block (a hint)", false, p.summarizeOpen),
		keymap.Bind("refresh", "R Ctrl-r", "refresh", false, p.Refresh),
		keymap.Bind("back", "q Esc", "back / clear filter", true, p.back),
	}
}

// VaultInfo describes the vault pane.
var VaultInfo = pane.Info{Kind: pane.KindVault, Scopes: []string{"vault"}, Key: "v", Action: "vault", Help: "show the vault pane",
	Keys: func() []*keymap.Table { return []*keymap.Table{keymap.New("vault", vaultActions(nil)...)} }}

// Kind returns "vault".
func (p *VaultPane) Kind() pane.Kind { return pane.KindVault }

// Title names the pane: the number of blocks, the filter, or the block
// being viewed.
func (p *VaultPane) Title() string {
	switch {
	case p.view != nil:
		return "vault: " + p.view.meta.ID
	case p.filter != "":
		return fmt.Sprintf("vault (%d of %s, filter %q)", len(p.shown), blocks(len(p.all)), p.filter)
	}
	return fmt.Sprintf("vault (%s)", blocks(len(p.all)))
}

// blocks counts n blocks in words: "1 block", "4 blocks".
func blocks(n int) string {
	if n == 1 {
		return "1 block"
	}
	return fmt.Sprintf("%d blocks", n)
}

// Keys returns the pane's key-action table (scope "vault").
func (p *VaultPane) Keys() *keymap.Table { return p.keys }

// Close releases nothing: the vault belongs to the application.
func (p *VaultPane) Close() error { return nil }

// Refresh reloads the block list from the vault, keeping the filter and
// the selected block. The application calls it, on the UI goroutine, when
// blocks are added.
func (p *VaultPane) Refresh() {
	var all []vault.Meta
	p.loadErr = p.src.List(func(m vault.Meta) error {
		all = append(all, m)
		return nil
	})
	slices.SortStableFunc(all, func(a, b vault.Meta) int {
		return cmp.Or(b.Created.Compare(a.Created), strings.Compare(a.ID, b.ID))
	})
	p.all = all
	p.applyFilter()
}

// Open shows the exact block id (a unique prefix works too) in the viewer,
// as when the user opens a reference from an agent transcript. Call it on
// the UI goroutine.
func (p *VaultPane) Open(id string) error {
	m, err := p.src.Meta(id)
	if err != nil {
		return fmt.Errorf("open %s: %w", id, err)
	}
	data, err := p.src.Get(m.ID)
	if err != nil {
		return fmt.Errorf("open %s: %w", m.ID, err)
	}
	p.editing = false
	p.view = newVaultView(m, data)
	p.selectID(m.ID)
	return nil
}

// applyFilter narrows the list to the filter's search hits, or to blocks
// whose id, kind, agent, command or summary contain it when the search
// finds none.
func (p *VaultPane) applyFilter() {
	id := p.selectedID()
	p.shown = p.all
	if q := strings.TrimSpace(p.filter); q != "" {
		p.shown = nil
		if hits, err := p.src.Search(q, vaultSearchLimit); err == nil {
			for _, h := range hits {
				p.shown = append(p.shown, h.Meta)
			}
		}
		if len(p.shown) == 0 {
			lq := strings.ToLower(q)
			for _, m := range p.all {
				hay := strings.ToLower(m.ID + "\x00" + m.Kind + "\x00" + m.Agent + "\x00" + m.Command + "\x00" + m.Summary)
				if strings.Contains(hay, lq) {
					p.shown = append(p.shown, m)
				}
			}
		}
	}
	p.sel = 0
	p.selectID(id)
}

func (p *VaultPane) openSelected() {
	if p.view != nil {
		return
	}
	if id := p.selectedID(); id != "" {
		if err := p.Open(id); err != nil {
			p.env.Tell(err.Error())
		}
	}
}

func (p *VaultPane) startInput() {
	p.editing = true
	if p.view != nil {
		p.view.editing = true
		p.view.search("")
	}
}

func (p *VaultPane) step(d int) {
	if p.view != nil {
		p.view.step(d)
	}
}

// reveal unmasks or re-masks the viewed block; in the list it opens the
// selected block revealed.
func (p *VaultPane) reveal() {
	if p.view == nil {
		p.openSelected()
	}
	if p.view != nil {
		p.view.reveal()
	}
}

// back closes the viewer, or clears the filter in the list.
func (p *VaultPane) back() {
	if p.view != nil {
		p.view = nil
		return
	}
	if p.filter != "" {
		p.filter = ""
		p.applyFilter()
	}
}

// InputHandler answers the inject question while it is asked, edits the
// filter or the viewer's search while one is being typed, and runs the
// key-action table otherwise.
func (p *VaultPane) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		if p.asking != nil {
			p.answerInject(ev)
			return
		}
		if p.editing {
			p.edit(ev)
			return
		}
		p.keys.Handle(ev)
	})
}
