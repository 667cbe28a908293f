package diet

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
)

// Page-in answers. A page fault exists to put exact bytes in front of the
// model, so its answer is never encoded: no <il:seen/> of an earlier
// answer, no <il:seg/> of the block it answers with (which would send a
// pointer to the very text that was asked for), no <il:v1>. Only when the
// same bytes already stand exact earlier in the prompt (the message they
// came from, or an earlier answer) does the answer say where instead, and
// that is decided anew for every prompt, so it never points at a message
// that has since become a ref. Once an answer ages out of the recent window
// it becomes a ref like any other message, by the id of the block it
// answered with.

// pageIn is what a full page-in answer carries: the block's id and exact
// text. Answers that are not a whole exact block (escaped bytes, a cut
// answer over the page-in budget, search results, errors) have none.
type pageIn struct {
	id   string
	data string
	sum  [32]byte
}

// parsePageIn reads a whole <ctx_exact> answer as FormatExact writes it,
// escaped or not; a cut one (over the page-in budget) is not whole.
func parsePageIn(content string) (pageIn, bool) {
	head, rest, ok := strings.Cut(content, "\n")
	if !ok || !strings.HasPrefix(head, `<ctx_exact id="`) || !strings.HasSuffix(head, ">") {
		return pageIn{}, false
	}
	id, attrs, ok := strings.Cut(head[len(`<ctx_exact id="`):len(head)-1], `"`)
	attrs, escaped := strings.CutSuffix(attrs, ` escaped="true"`)
	n, err := strconv.Atoi(strings.TrimPrefix(attrs, " original_chars="))
	if !ok || err != nil || !strings.HasPrefix(attrs, " original_chars=") {
		return pageIn{}, false
	}
	data, ok := strings.CutSuffix(rest, "\n</ctx_exact>")
	if ok && escaped {
		data, ok = unescapeInvalidUTF8(data)
	}
	if !ok || len(data) != n {
		return pageIn{}, false
	}
	return pageIn{id: id, data: data, sum: sha256.Sum256([]byte(data))}, true
}

// StandsExact says whether block id stands exact in the prompt last built:
// the message it was stored from, or a page-in answer with it. A page
// fault for it is answered by a note saying where (placePageIns).
func (s *State) StandsExact(id string) bool {
	for _, e := range s.entries {
		if e.form == formExact && (e.id == id || e.pin != nil && e.pin.id == id) {
			return true
		}
	}
	return false
}

// placePageIns sends each page-in answer still in the prompt as it is, or,
// when the same bytes stand exact earlier in this prompt, as a note saying
// where.
func (s *State) placePageIns() {
	for _, i := range s.pageIns {
		e := s.entries[i]
		if e.form != formExact && e.form != formAbove {
			continue // aged out: a ref now
		}
		text, f := e.msg.Content, formExact
		if j := s.exactEarlier(i); j >= 0 {
			text, f = s.aboveNote(e, j), formAbove
		}
		if e.form != f || e.sent != text {
			s.resend(e, f, text) // a note explains itself: no decoder prompt
		}
	}
}

// exactEarlier is the earlier message that sends page-in i's bytes exact in
// this prompt: the message they were stored from, or an earlier answer
// with them; -1 when there is none.
func (s *State) exactEarlier(i int) int {
	e := s.entries[i]
	for j := i - 1; j >= 0; j-- {
		o := s.entries[j]
		if o.form != formExact {
			continue
		}
		switch {
		case e.pin == nil:
			if o.pageIn && o.sum == e.sum {
				return j
			}
		case o.pin == nil && !o.pageIn && o.sum == e.pin.sum, o.pin != nil && o.pin.sum == e.pin.sum:
			return j
		}
	}
	return -1
}

// aboveNote is what page-in e sends when message j already holds its bytes
// exact: the id, where, and what produced it.
func (s *State) aboveNote(e *entry, j int) string {
	// Messages are numbered from 0, the system prompt, as runs number them.
	where := fmt.Sprintf("message %d of this conversation (the system prompt is message 0)", j)
	if e.pin == nil {
		return fmt.Sprintf("<ctx_repeated at=%d/> (the same answer stands above as %s; read it there)", j, where)
	}
	if src, _, _ := strings.Cut(strings.TrimSpace(s.entries[j].msg.Source), "\n"); src != "" {
		where += fmt.Sprintf(": the result of %q", clip(src, 80))
	} else if s.entries[j].pageIn {
		where += ": an earlier answer"
	}
	return fmt.Sprintf("<ctx_exact id=%q original_chars=%d repeated=\"true\" at=%d/> (these exact bytes stand above as %s; read them there)",
		e.pin.id, len(e.pin.data), j, where)
}
