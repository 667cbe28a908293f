package diet

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/vault"
)

// Folding. Once every bulky old message is a ref, what stays of the old
// history (refs and the many messages below MinBlockChars) still grows by
// some 60 tokens a message and, in a long session, alone fills the
// trigger: epochs then free too little, and the prompt exceeds the trigger
// plus the recent window. So an epoch also folds the old messages into
// runs: a run's block in the vault holds, for each of its messages in
// order, the exact text the prompt sent for it (the message itself, or its
// ref); its first message is sent as one ref to the run, with the commands
// and files of the run as its summary, and each other one as FoldMarker.
// Every old message still resolves exactly: through the run's block to its
// text, and through that text's own ref when it was one.
//
// Every epoch folds what it moves behind the cut. The epoch rewrites the
// prompt from the old cut on anyway, so folding then breaks no cached
// prefix the epoch keeps; folding later, once refs pile up, would re-send
// uncached everything from the first ref it folds. (Measured on the tune
// set's swarm session: folding at every epoch costs 22.8 % of naive
// resend, folding only above the low-water mark 25.7 %.)

// FoldMarker is what a message folded into the run opened by an earlier
// message's ref is sent as.
const FoldMarker = "<il:in/>"

// KindRun is the kind of a run's block and of its ref.
const KindRun = "run"

// foldRunBytes bounds a run's block: a page fault on it returns no more
// than the ingestion limit lets one tool output keep in the prompt.
const foldRunBytes = 16 << 10

// FoldPart is one message of a run: its index in the conversation, its
// role and the text the prompt sent for it before the fold.
type FoldPart struct {
	Index int
	Role  string
	Text  string
}

// foldHeader opens each part in a run's block; n is the text's length in
// bytes, so any text (one holding a header too) splits back exactly.
const foldHeader = "<il:msg i="

// foldHeaderBytes is about what a part's header and newline take.
const foldHeaderBytes = 40

// EncodeFold renders a run's block: per part a header line
// `<il:msg i=INDEX n=BYTES role=ROLE>`, the text and a newline.
func EncodeFold(parts []FoldPart) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		fmt.Fprintf(&b, "%s%d n=%d role=%s>\n%s\n", foldHeader, p.Index, len(p.Text), cleanRole(p.Role), p.Text)
	}
	return b.Bytes()
}

// cleanRole keeps a role to the bytes the header can carry.
func cleanRole(r string) string {
	return strings.Map(func(c rune) rune {
		if c == '>' || c == ' ' || c == '\n' || c < ' ' {
			return '_'
		}
		return c
	}, r)
}

// ErrFoldMalformed wraps every error ParseFold returns.
var ErrFoldMalformed = errors.New("diet: malformed run block")

// ParseFold splits a run's block back into its parts.
func ParseFold(data []byte) ([]FoldPart, error) {
	var parts []FoldPart
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		if !bytes.HasPrefix(data, []byte(foldHeader)) || nl < 0 || data[nl-1] != '>' {
			return nil, fmt.Errorf("%w: part %d has no header", ErrFoldMalformed, len(parts))
		}
		f := strings.Split(string(data[len(foldHeader):nl-1]), " ")
		if len(f) != 3 || !strings.HasPrefix(f[1], "n=") || !strings.HasPrefix(f[2], "role=") {
			return nil, fmt.Errorf("%w: part %d: bad header", ErrFoldMalformed, len(parts))
		}
		i, err1 := strconv.Atoi(f[0])
		n, err2 := strconv.Atoi(f[1][2:])
		role := f[2][5:]
		// Only the header EncodeFold writes is accepted, so a block has one
		// reading and the same parts always make the same block.
		canonical := fmt.Sprintf("%s%d n=%d role=%s>", foldHeader, i, n, cleanRole(role))
		if err1 != nil || err2 != nil || n < 0 || string(data[:nl]) != canonical {
			return nil, fmt.Errorf("%w: part %d: bad index or length", ErrFoldMalformed, len(parts))
		}
		data = data[nl+1:]
		if n >= len(data) || data[n] != '\n' {
			return nil, fmt.Errorf("%w: part %d: text shorter than its length", ErrFoldMalformed, len(parts))
		}
		parts = append(parts, FoldPart{Index: i, Role: role, Text: string(data[:n])})
		data = data[n+1:]
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no parts", ErrFoldMalformed)
	}
	return parts, nil
}

// foldable reports whether entry i may join a run: old, not pinned, not
// the current human turn nor one held back for the next epoch, and not
// folded already.
func (s *State) foldable(i, cur int) bool {
	e := s.entries[i]
	if i == cur || e.msg.Pinned || e.form == formFold || e.form == formFolded || e.form == formElided {
		return false
	}
	for _, d := range s.deferred {
		if d == i {
			return false
		}
	}
	return true
}

// foldTokens is what a folded message costs: the marker and its frame.
func (s *State) foldTokens() int {
	return s.tok.Count(FoldMarker).Tokens + MsgOverheadTokens
}

// foldSavings estimates what folding the old messages before end would
// save once an epoch has made refs of those it externalizes; 0 unless
// the session folds.
func (s *State) foldSavings(end, cur int) int {
	if !s.p.Fold {
		return 0
	}
	n, size, member := 0, 0, s.foldTokens()
	for i := s.foldEnd; i < end; i++ {
		if !s.foldable(i, cur) {
			continue
		}
		e := s.entries[i]
		t := e.sentTok
		if e.id != "" && e.form != formRef && e.form != formSeen {
			t = refTokensEstimate
		}
		n += max(0, t-member)
		size += 4*t + foldHeaderBytes // about 4 bytes a token
	}
	// Each run's ref is sent instead of its first message's marker.
	return max(0, n-refTokensEstimate*(1+size/foldRunBytes))
}

// fold folds the old messages before end, from where the last fold ended,
// into runs of at most foldRunBytes, and of no more blocks than the run's
// ref has room to name (handleBytes), each cut where a message may not
// join. A run that would not shrink the prompt is left as it is.
func (s *State) fold(end, cur int) error {
	var runs [][]int
	var run []int
	size, named := 0, 0
	closeRun := func() {
		if len(run) >= 2 {
			runs = append(runs, run)
		}
		run, size, named = nil, 0, 0
	}
	for i := s.foldEnd; i < end; i++ {
		if !s.foldable(i, cur) {
			closeRun()
			continue
		}
		e := s.entries[i]
		n, h := len(e.sent)+foldHeaderBytes, 0
		if e.id != "" && e.form != formExact {
			h = handleEstimate
		}
		if len(run) > 0 && (size+n > foldRunBytes || named+h > handleBytes) {
			closeRun()
		}
		run = append(run, i)
		size, named = size+n, named+h
	}
	closeRun()
	s.foldEnd = max(s.foldEnd, end)
	var blocks []vault.Block
	var kept [][]int
	member := s.foldTokens()
	for _, r := range runs {
		parts := make([]FoldPart, len(r))
		before := 0
		for k, i := range r {
			e := s.entries[i]
			parts[k] = FoldPart{Index: i, Role: e.msg.Role, Text: e.sent}
			before += e.sentTok
		}
		if before <= member*(len(r)-1)+refTokensEstimate {
			continue
		}
		data := EncodeFold(parts)
		d := s.describeRun(r)
		m := d.Meta(KindRun, r[0], s.runTokens(r), true)
		m.Agent, m.Session, m.Turn = s.agent, s.session, s.entries[r[0]].turn
		m.Summary = withHandles(runSummary(r, d, 400), s.handles(r, d.Sensitive, handleBytes))
		blocks = append(blocks, vault.Block{Data: data, Meta: m})
		kept = append(kept, r)
	}
	if len(blocks) == 0 {
		return nil
	}
	ids, err := s.store.PutMany(blocks)
	if err != nil {
		return fmt.Errorf("diet: vault put run: %w", err)
	}
	for k, r := range kept {
		b := blocks[k]
		if s.p.Verify {
			got, err := s.store.Get(ids[k])
			if err != nil {
				return fmt.Errorf("diet: verify run %s: %w", ids[k], err)
			}
			if !bytes.Equal(got, b.Data) {
				return fmt.Errorf("diet: verify run %s: vault bytes differ from the messages", ids[k])
			}
		}
		d := Description{Command: b.Meta.Command, Files: b.Meta.Files, Sensitive: b.Meta.Sensitive}
		summary := runSummary(r, d, max(minSummary, min(maxSummary, len(b.Data)/s.p.RefDivisor)))
		ref := vault.Ref{Tag: vault.TagCtx, Kind: KindRun, ID: ids[k], Chars: len(b.Data), Sensitive: d.Sensitive,
			Priority: s.runPriority(r), Summary: withHandles(summary, s.handles(r, d.Sensitive, handleBytes))}
		for j, i := range r {
			if j == 0 {
				s.setSent(s.entries[i], formFold, ref.String())
			} else {
				s.setSent(s.entries[i], formFolded, FoldMarker)
			}
		}
	}
	return nil
}

// partHeaderTokens is about what a part's header line costs in tokens.
const partHeaderTokens = 12

// runTokens estimates the tokens of the block of a run over messages r
// from what each sends, already counted, and its headers: counting the
// block again (up to 16 KiB) was most of an epoch's time. The block's
// metadata says the figure is an estimate.
func (s *State) runTokens(r []int) int {
	n := 0
	for _, i := range r {
		if e := s.entries[i]; e.form != formElided {
			n += max(0, e.sentTok-MsgOverheadTokens) + partHeaderTokens
		}
	}
	return n
}

// runPriority is "high" when a message of r is: a run keeps the hint.
func (s *State) runPriority(r []int) string {
	for _, i := range r {
		if d := s.entries[i].desc; d != nil && d.Priority == "high" {
			return "high"
		}
	}
	return ""
}

// describeRun describes a run by what its messages say, not by the refs
// some of them were: the commands that produced its outputs, the files
// its messages and their blocks name, and whether any is sensitive.
func (s *State) describeRun(r []int) Description {
	var cmds, files []string
	var exact strings.Builder
	var d Description
	for _, i := range r {
		e := s.entries[i]
		d.Sensitive = d.Sensitive || e.msg.Sensitive || e.desc != nil && e.desc.Sensitive
		if src, _, _ := strings.Cut(strings.TrimSpace(e.msg.Source), "\n"); src != "" {
			cmds = append(cmds, src)
		}
		if e.desc != nil {
			files = append(files, e.desc.Files...)
		}
		if e.sent == e.msg.Content {
			exact.WriteString(e.msg.Content + "\n")
		}
	}
	x := Describe(KindRun, exact.String())
	d.Sensitive = d.Sensitive || x.Sensitive
	d.Errors = x.Errors
	d.Files = dedupe(append(x.Files, files...))
	d.Files = d.Files[:min(len(d.Files), 6)]
	// Whole commands, as many as the summary can show: withSource scans
	// what it gets for secrets, and a long run's every command would cost
	// more than the epoch.
	var src strings.Builder
	for _, c := range dedupe(cmds) {
		if src.Len() > 2*sourceBytes {
			break
		}
		if src.Len() > 0 {
			src.WriteString(" | ")
		}
		src.WriteString(c)
	}
	return d.withSource(src.String())
}

// runSummary is a run's summary within budget bytes: the messages it
// spans, then its commands, files and an error line. A sensitive run
// quotes none of its text.
func runSummary(r []int, d Description, budget int) string {
	out := fmt.Sprintf("msgs %d-%d", r[0], r[len(r)-1])
	if d.Sensitive {
		return out
	}
	add := func(key, val string) {
		if room := budget - len(out) - 2 - len(key); val != "" && room >= 12 {
			out += "; " + key + clip(val, room)
		}
	}
	add("cmd=", d.Command)
	if len(d.Files) > 0 {
		add("files=", "["+strings.Join(d.Files, ",")+"]")
	}
	if len(d.Errors) > 0 {
		add("err=", d.Errors[0])
	}
	return out
}

// dedupe drops repeats from xs, keeping the first of each.
func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// handleBytes bounds the handles a run's ref lists; an elided run's ref,
// which stands for many more blocks and of which the prompt holds few,
// lists elidedHandles times as many. On the fixtures' tune half as one
// multi-agent session (TestPageFaultsReachTheModel), 480 bytes with 32
// of what produced each block put 82 % of the questions' evidence one
// fault away, 600 with 16 bytes 92 %: more handles beat longer ones.
const (
	handleBytes   = 600
	elidedHandles = 4
)

// handleEstimate is about what one handle takes: "I=HEX what, ".
const handleEstimate = 40

// handleWhatBytes bounds what one handle says of its block.
const handleWhatBytes = 16

// handles lists, within budget bytes, the blocks of messages idx (those
// stored as blocks: the prompt sent them as refs before they were
// folded), so that one fault pages any of them in without the runs
// first: "I=HEX", I the message and HEX the id's digits (ctx_get takes
// them bare), and for errors and failing tests " what": the command or
// file that produced it and its first error or test summary. Those come
// first, then the newest; a sensitive block (or any, in a sensitive run)
// is named by its id alone.
func (s *State) handles(idx []int, sensitive bool, budget int) string {
	type handle struct {
		i    int
		text string
	}
	var high, rest []handle
	for _, i := range idx {
		e := s.entries[i]
		if e.id == "" || e.desc == nil || e.msg.Pinned || e.form == formExact {
			continue
		}
		h := handle{i, fmt.Sprintf("%d=%s", i, strings.TrimPrefix(e.id, "ctx:"))}
		if d := e.desc; !sensitive && !d.Sensitive && !e.msg.Sensitive {
			what := d.Command
			if what == "" && len(d.Files) > 0 {
				what = d.Files[0]
			}
			switch {
			case len(d.Errors) > 0:
				what += ": " + d.Errors[0]
			case d.Tests != "":
				what += ": " + d.Tests
			}
			if what = strings.TrimSpace(vault.CleanHint(what)); what != "" {
				h.text += " " + clip(what, handleWhatBytes)
			}
		}
		if e.desc.Priority == "high" {
			high = append(high, h)
		} else {
			rest = append(rest, h)
		}
	}
	slices.Reverse(rest)
	var picked []handle
	size := 0
	for _, h := range append(high, rest...) {
		if size+len(h.text)+2 > budget {
			continue
		}
		picked = append(picked, h)
		size += len(h.text) + 2
	}
	slices.SortFunc(picked, func(a, b handle) int { return a.i - b.i })
	out := make([]string, len(picked))
	for k, h := range picked {
		out[k] = h.text
	}
	return strings.Join(out, ", ")
}

// withHandles appends handles to a run's summary.
func withHandles(summary, handles string) string {
	if handles == "" {
		return summary
	}
	return summary + "; blocks: " + handles
}
