package diet

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/secrets"
	"github.com/kwsdev/kws/vault"
)

// Token accounting of a chat prompt: each message costs its content plus a
// fixed frame, and the prompt a fixed priming (OpenAI's chat format).
const (
	MsgOverheadTokens    = 4
	PromptOverheadTokens = 3
)

// Message is one chat message as the diet sees it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Kind refines Role: "user" for a human turn, "tool:shell" or
	// "observation" for tool output, "demo" for a demonstration.
	Kind string `json:"kind,omitempty"`
	// Pinned messages (system prompt, AGENTS.md) are never dieted.
	Pinned bool `json:"pinned,omitempty"`
	// Sensitive marks content read from a credentials file: its block is
	// sensitive and its summary quotes none of it.
	Sensitive bool `json:"sensitive,omitempty"`
	// Source names what produced a tool output: the tool call's name and
	// main argument, or the shell command ("shell: pytest -x"). The vault
	// indexes it, so a search for the command finds its output.
	Source string `json:"source,omitempty"`
	// Elided, in a built prompt, marks a message that is not sent: the
	// elided run opened by an earlier message's ref holds it.
	Elided bool `json:"elided,omitempty"`
}

// kind returns Kind, else Role.
func (m Message) kind() string {
	if m.Kind != "" {
		return m.Kind
	}
	return m.Role
}

// IsHumanTurn reports whether m is a user turn typed by a person.
func (m Message) IsHumanTurn() bool {
	return m.Role == "user" && (m.Kind == "" || m.Kind == "user")
}

// KindPageIn marks an exact block the model asked for: it is never
// compacted at ingestion, or the model would not get what it asked for.
const KindPageIn = "pagein"

// IsToolOutput reports whether m carries tool output.
func (m Message) IsToolOutput() bool {
	k := m.kind()
	if k == KindPageIn {
		return false
	}
	return m.Role == "tool" || k == "observation" || len(k) > 4 && k[:5] == "tool:"
}

// Store is what the diet needs of the vault.
type Store interface {
	PutMany(blocks []vault.Block) ([]string, error)
	Get(id string) ([]byte, error)
}

type form uint8

const (
	formExact  form = iota // sent as is
	formIngest             // compacted at ingestion: head, errors, tail, ref
	formIL                 // <il:v1> lossless encoding
	formRef                // <ctx/> reference
	formSeen               // <il:seen/> repeat
	formSpans              // <il:spans> new parts exact, repeats as <il:seg/>
	formFold               // <ctx k="run"/>: opens a run of folded messages
	formFolded             // FoldMarker: folded into the run opened before it
	formAbove              // a page-in answer whose bytes stand exact earlier: where
	formElided             // not sent: elided into the run opened before it (elide.go)
)

type entry struct {
	msg      Message
	sum      [32]byte
	naiveTok int
	exactTok bool
	desc     *Description
	id       string
	form     form
	sent     string
	sentTok  int
	wantIL   bool
	turn     int
	pageIn   bool    // a page-fault answer: never encoded (see pagein.go)
	pin      *pageIn // the block a full page-in answer carries
	// level is, for the first message of an elided run (whose ref stands
	// for the messages after it that are not sent), 1 plus the highest
	// level of the elided runs it holds; 0 for any other message.
	level int
	// planned marks a message of an elided run being planned (elide.go).
	planned bool
}

// State is the diet state of one conversation. Add appends messages,
// Build returns the prompt to send. It is not safe for concurrent use; one
// agent owns one session.
type State struct {
	p       Params
	store   Store
	tok     *tokens.Counter
	agent   string
	session string

	entries  []*entry
	pending  []int
	cut      int
	foldEnd  int // messages before it were considered for folding
	deferred []int
	active   bool
	first    map[[32]byte]int
	spans    *spanIndex
	pageIns  []int // the page-in answers, in order

	nonExact              int
	naiveTok, sentTok     int
	naiveChars, sentChars int
	calls                 int
	turns                 int
	decoderTok            int
	restore               stickyRestore
	squeeze               int   // see Squeeze
	extraFixed            int   // sent besides the contents; see SetExtraTokens
	extraPer              []int // ... with each message
	extraSave             []int // per message, saved besides its content when externalized
}

// NewState starts a diet for one conversation. agent and session label
// the vault blocks and stats events.
func NewState(p Params, store Store, counter *tokens.Counter, agent, session string) (*State, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if counter == nil {
		counter = tokens.Default()
	}
	s := &State{p: p, store: store, tok: counter, agent: agent, session: session,
		first: map[[32]byte]int{}, restore: stickyRestore{turn: -2, index: -1}}
	// The tokenizer and the secret rules load now, with the session,
	// rather than in its first call.
	s.decoderTok = counter.Count(DecoderPrompt()).Tokens
	secrets.Load()
	return s, nil
}

// Params returns the session's parameters.
func (s *State) Params() Params { return s.p }

// Len returns the number of messages added.
func (s *State) Len() int { return len(s.entries) }

// SentExact reports whether message i is currently sent as it was added
// (not externalized, repeated, encoded or compacted).
func (s *State) SentExact(i int) bool {
	return i >= 0 && i < len(s.entries) && s.entries[i].form == formExact
}

// Add appends messages to the conversation. Bulky ones are queued for the
// vault; tool output over the ingestion limits is compacted at once.
func (s *State) Add(msgs ...Message) {
	for _, m := range msgs {
		i := len(s.entries)
		if m.IsHumanTurn() {
			s.turns++
		}
		e := &entry{msg: m, sum: sha256.Sum256([]byte(m.Content)), sent: m.Content, turn: s.turns, pageIn: m.kind() == KindPageIn}
		if e.pageIn {
			if pin, ok := parsePageIn(m.Content); ok {
				e.pin = &pin
			}
			s.pageIns = append(s.pageIns, i)
		}
		c := s.tok.CountHashed(e.sum, m.Content)
		e.naiveTok, e.exactTok = c.Tokens+MsgOverheadTokens, c.Exact
		e.sentTok = e.naiveTok
		if i == 0 && m.Role == "system" {
			e.msg.Pinned = true
		}
		if !e.msg.Pinned && len(m.Content) >= s.p.MinBlockChars {
			s.pending = append(s.pending, i)
			if _, dup := s.first[e.sum]; !dup && !e.pageIn {
				s.first[e.sum] = i
			}
			e.wantIL = s.active && s.p.Lossless && !m.IsHumanTurn() && !e.pageIn
		}
		s.entries = append(s.entries, e)
		s.naiveTok += e.naiveTok
		s.sentTok += e.sentTok
		s.naiveChars += len(m.Content)
		s.sentChars += len(m.Content)
		if !e.msg.Pinned && m.IsToolOutput() && s.overIngest(m.Content) {
			e.form = formIngest
		}
	}
}

func (s *State) overIngest(text string) bool {
	return len(text) > s.p.IngestBytes || strings.Count(text, "\n") >= s.p.IngestLines
}

// flush stores queued blocks in one vault transaction and renders the
// forms that need an id. A full page-in answer stores nothing: its block
// is in the vault already, and its id is the answer's.
func (s *State) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	var blocks []vault.Block
	for _, i := range s.pending {
		e := s.entries[i]
		if e.pin != nil {
			d := describeMessage(Message{Role: e.msg.Role, Kind: e.msg.Kind, Content: e.pin.data})
			e.desc, e.id = &d, e.pin.id
			continue
		}
		d := describeMessage(e.msg)
		e.desc = &d
		m := d.Meta(e.msg.kind(), i, e.naiveTok-MsgOverheadTokens, !e.exactTok)
		m.Agent, m.Session, m.Turn = s.agent, s.session, e.turn
		blocks = append(blocks, vault.Block{Data: []byte(e.msg.Content), Meta: m})
	}
	ids, err := s.store.PutMany(blocks)
	if err != nil {
		return fmt.Errorf("diet: vault put: %w", err)
	}
	for _, i := range s.pending {
		e := s.entries[i]
		if e.pin == nil {
			e.id, ids = ids[0], ids[1:]
		}
		if e.pageIn {
			continue
		}
		s.indexSpans(i)
		switch {
		case s.seenAtOnce(e, i):
			s.sendSeen(e)
		case s.repeatAtOnce(e, i):
			s.setSent(e, formRef, s.ref(e, false).String())
		case e.form == formIngest:
			s.setSent(e, formIngest, compactBody(e, s.ref(e, false)))
		case e.wantIL && s.trySpans(i):
		case e.wantIL:
			s.tryIL(e)
		}
	}
	s.pending = s.pending[:0]
	return nil
}

// seenAtOnce reports whether entry i repeats an earlier message exactly
// and goes as <il:seen/> as soon as it is added, before any trigger: a
// repeated output tells the model nothing new. A repeated human turn
// waits for an epoch (it may be the current one).
func (s *State) seenAtOnce(e *entry, i int) bool {
	return s.p.Seen && s.first[e.sum] < i && !e.msg.IsHumanTurn() && s.showsID(s.first[e.sum])
}

// repeatAtOnce reports whether entry i repeats an earlier message that
// has joined a run, so that no <il:seen/> can point at it: the repeat goes
// as its own ref at once, for the reason seenAtOnce gives.
func (s *State) repeatAtOnce(e *entry, i int) bool {
	return s.p.Seen && s.first[e.sum] < i && !e.msg.IsHumanTurn() && !s.showsID(s.first[e.sum])
}

// showsID says whether message j shows its block's id in the prompt: sent
// exact, encoded or as its ref, but not folded into a run, where only the
// run's id shows. A <il:seen/> repeats a message that shows the same id,
// so the model finds the text above, or the ref to page it in by.
func (s *State) showsID(j int) bool {
	f := s.entries[j].form
	return f != formFold && f != formFolded && f != formElided
}

// fixSeen makes a ref of every <il:seen/> whose first occurrence no longer
// shows its id (it joined a run): a seen ref must point at something the
// prompt still shows.
func (s *State) fixSeen() {
	for _, e := range s.entries {
		if e.form == formSeen && !s.showsID(s.first[e.sum]) {
			s.setSent(e, formRef, s.ref(e, false).String())
		}
	}
}

// sendSeen sends e as <il:seen/>. Before the diet is active the ref
// explains itself, as an ingestion form does, so that it does not bring
// the decoder prompt into the system prompt: that would end the provider's
// cached prefix at its start.
func (s *State) sendSeen(e *entry) {
	ref := vault.Ref{Tag: vault.TagSeen, ID: e.id, Chars: len(e.msg.Content)}.String()
	if s.nonExact > 0 {
		e.form = formExact // an ingestion form was never counted as non-exact
		s.setSent(e, formSeen, ref)
		return
	}
	e.form = formIngest // not counted as non-exact, like an ingestion form
	s.setSent(e, formSeen, ref+"\n[kws: exact repeat of an earlier message, vaulted; .ctx_get the ref for it]")
}

// setSent replaces what entry e sends and keeps the running totals; a
// message that stops being sent exact brings in the decoder prompt.
func (s *State) setSent(e *entry, f form, text string) {
	if (e.form == formExact || e.form == formAbove) && f != formExact {
		s.nonExact++
	}
	s.resend(e, f, text)
}

// resend replaces what entry e sends and keeps the running totals.
func (s *State) resend(e *entry, f form, text string) {
	s.sentTok -= e.sentTok
	s.sentChars -= len(e.sent)
	e.form, e.sent = f, text
	e.sentTok = s.tok.Count(text).Tokens + MsgOverheadTokens
	s.sentTok += e.sentTok
	s.sentChars += len(text)
}

// tryIL sends e as <il:v1> when the lossless encoding saves at least a
// fifth of its bytes.
func (s *State) tryIL(e *entry) {
	if e.form != formExact || e.pageIn {
		return
	}
	body := vault.EncodeIL([]byte(e.msg.Content))
	r := vault.Ref{Tag: vault.TagIL, ID: e.id, Chars: len(e.msg.Content), Body: string(body)}
	if text := r.String(); len(text)*5 <= len(e.msg.Content)*4 {
		s.setSent(e, formIL, text)
	}
}

// verify reads e's block back and compares it with the exact content.
func (s *State) verify(e *entry) error {
	got, err := s.store.Get(e.id)
	if err != nil {
		return fmt.Errorf("diet: verify %s: %w", e.id, err)
	}
	if !bytes.Equal(got, []byte(e.body())) {
		return fmt.Errorf("diet: verify %s: vault bytes differ from the message", e.id)
	}
	return nil
}

// currentTurn returns the index of the latest human user turn, or -1.
func (s *State) currentTurn() int {
	for i := len(s.entries) - 1; i >= 0; i-- {
		if s.entries[i].msg.IsHumanTurn() {
			return i
		}
	}
	return -1
}

// epoch externalizes every eligible message older than the recent window.
func (s *State) epoch(cur int) error {
	end := max(s.cut, len(s.entries)-s.recent())
	cands := append(s.deferred, seq(s.cut, end)...)
	s.deferred = nil
	for _, i := range cands {
		e := s.entries[i]
		if i == cur {
			s.deferred = append(s.deferred, i)
			continue
		}
		if e.msg.Pinned || e.id == "" || e.form == formRef || e.form == formSeen || e.form == formFold || e.form == formFolded || e.form == formElided {
			continue
		}
		if s.p.Verify {
			if err := s.verify(e); err != nil {
				return err
			}
		}
		if j, ok := s.first[e.sum]; s.p.Seen && ok && j < i && s.showsID(j) {
			r := vault.Ref{Tag: vault.TagSeen, ID: e.id, Chars: len(e.msg.Content)}
			s.setSent(e, formSeen, r.String())
			continue
		}
		s.setSent(e, formRef, s.ref(e, false).String())
	}
	s.cut = end
	if s.p.Fold {
		if err := s.fold(end, cur); err != nil {
			return err
		}
		if err := s.elide(end, cur); err != nil {
			return err
		}
	}
	s.spanRecent(end)
	s.fixSeen()
	if !s.active {
		s.active = true
		if s.p.Lossless {
			for i := end; i < len(s.entries); i++ {
				if e := s.entries[i]; e.id != "" && !e.msg.Pinned && !e.msg.IsHumanTurn() {
					s.tryIL(e)
				}
			}
		}
	}
	return nil
}

func seq(a, b int) []int {
	var out []int
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

// Squeeze makes the next Build externalize every message but the newest
// keep (the current user turn stays whole), as an epoch does: for a
// prompt still over the agent's budget after compaction, because the
// recent window alone is too big (a turn that read file after file).
func (s *State) Squeeze(keep int) { s.squeeze = max(keep, 1) }

// recent is how many of the newest messages the next epoch leaves exact.
func (s *State) recent() int {
	if s.squeeze > 0 {
		return min(s.squeeze, s.p.Recent)
	}
	return s.p.Recent
}

// promptTokens is what the prompt costs now, decoder prompt included once
// any message is sent in a vault form.
func (s *State) promptTokens() int {
	n := s.sentTok + PromptOverheadTokens + s.extraTokens()
	if s.nonExact > 0 {
		n += s.decoderTok
	}
	return n
}

// epochDue reports whether a prompt over the trigger should start a new
// epoch now. An epoch rewrites the prompt from the old cut on, so the
// provider's cached prefix ends there and the rewritten tail is paid in
// full; epochs therefore come with hysteresis. Over the trigger, one is
// due only when it frees at least the hysteresis gap (bringing the prompt
// down to the low-water mark, trigger minus gap, so the next one is far
// off), when the history outside the recent window alone is over the
// trigger (so the prompt never exceeds the trigger plus the recent
// window), or when a former human turn was held back.
func (s *State) epochDue(cur int) bool {
	p := s.promptTokens()
	if s.restore.turn == cur && s.restore.index >= 0 {
		p += s.restore.extra
	}
	if p <= s.p.TriggerTokens {
		return false
	}
	for _, i := range s.deferred {
		if i != cur {
			return true
		}
	}
	end := max(s.cut, len(s.entries)-s.recent())
	recent := s.recentTokens(end)
	free := s.freeable(end, cur) + s.foldSavings(end, cur)
	free += s.elideSavings(end, free)
	over := p - recent - s.p.TriggerTokens
	return free >= s.hysteresis() || over > 0 && (free >= over || free >= s.p.TriggerTokens*minFreePct/100)
}

// recentTokens is what the messages from end on send.
func (s *State) recentTokens(end int) int {
	n := 0
	for i := max(0, end); i < len(s.entries); i++ {
		n += s.entries[i].sentTok
	}
	return n
}

// minFreePct is the least an epoch forced by the bound must free, as a
// share of the trigger, unless it frees all the excess: an epoch that
// frees less would break the cache for little.
const minFreePct = 6

// hysteresis is the gap between the trigger and the low-water mark.
func (s *State) hysteresis() int {
	return s.p.TriggerTokens * lowWaterGapPct / 100
}

// lowWaterGapPct is the hysteresis gap as a share of the trigger.
const lowWaterGapPct = 50

// refTokensEstimate is about what a ref costs in the prompt.
const refTokensEstimate = 48

// freeable estimates the tokens an epoch now would save: the exact
// messages between the cut and end that it would replace by refs.
func (s *State) freeable(end, cur int) int {
	n := 0
	for i := s.cut; i < end; i++ {
		e := s.entries[i]
		if i == cur || e.msg.Pinned {
			continue
		}
		n += s.savableExtra(i)
		if e.id == "" || e.form == formRef || e.form == formSeen {
			continue
		}
		n += max(0, e.sentTok-refTokensEstimate)
	}
	return n
}

// Result is one built prompt and its stats event.
type Result struct {
	Messages []Message
	Event    vault.DietEvent
	// Tokens holds each message's sent tokens, frame included.
	Tokens []int
	// Active reports whether the decoder prompt belongs in the system
	// prompt (anything was ever externalized); DecoderTokens is its cost.
	Active        bool
	DecoderTokens int
	// Restored lists the ids auto-restored into this prompt.
	Restored []string
}

// Build returns the prompt for the next model call: every message, in
// order, each exact or replaced by its reference.
func (s *State) Build() (Result, error) {
	start := time.Now()
	if err := s.flush(); err != nil {
		return Result{}, err
	}
	cur := s.currentTurn()
	ev := vault.DietEvent{Time: start.UTC(), Agent: s.agent, Session: s.session, Mode: s.p.Mode}
	if s.squeeze > 0 || s.epochDue(cur) {
		if err := s.epoch(cur); err != nil {
			return Result{}, err
		}
		ev.Epoch, s.squeeze = true, 0
	}
	s.placePageIns()
	s.calls++
	out := make([]Message, len(s.entries))
	toks := make([]int, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.msg
		out[i].Content = e.sent
		out[i].Elided = e.form == formElided
		toks[i] = e.sentTok
		switch e.form {
		case formRef, formFold:
			ev.Refs++
		case formSeen:
			ev.SeenRefs++
		case formIL:
			ev.Lossless++
		case formIngest:
			ev.Ingested++
		}
	}
	res := Result{Messages: out, Tokens: toks, Active: s.nonExact > 0}
	if res.Active {
		res.DecoderTokens = s.decoderTok
	}
	extraTok, extraChars := 0, 0
	if s.p.AutoRestore {
		if r, ok := s.autoRestore(cur); ok {
			out[r.index].Content = r.text
			toks[r.index] += r.extraTok
			extraTok, extraChars = r.extraTok, len(r.text)-len(s.entries[r.index].sent)
			res.Restored = append(res.Restored, r.id)
			ev.AutoRestores = 1
		}
	}
	ev.Call = s.calls
	ev.Messages = len(s.entries)
	ev.NaiveChars, ev.SentChars = s.naiveChars, s.sentChars+extraChars
	ev.NaiveTokens = s.naiveTok + PromptOverheadTokens
	ev.SentTokens = s.promptTokens() + extraTok
	ev.SavedTokens = ev.NaiveTokens - ev.SentTokens
	ev.DietMicros = time.Since(start).Microseconds()
	res.Event = ev
	return res, nil
}
