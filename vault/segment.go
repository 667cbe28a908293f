package vault

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A message that repeats long spans of earlier blocks is sent in the
// segmented form: its new parts exact, each repeated span as a segment ref
// to a byte range of a stored block.
//
//	<il:spans id="ctx:…" n=N>
//	literal bytes<il:seg id="ctx:…" at=A n=L/>more literal bytes
//	</il>
//
// The envelope names the message's own block (N bytes) and spans the whole
// message text. In the body, <il:seg id=I at=A n=L s="H"/> (attributes in
// this order, A ≥ 0, L ≥ 1, decimals without leading zeros, s optional)
// stands for bytes [A, A+L) of block I; H is a short hint of what the span
// holds, never needed to resolve it, without quotes, angle brackets or
// control characters. Every other byte is literal, except that a literal
// "<" that would start "<il:seg " or "<il:lt/>" is written <il:lt/>. So any
// byte string, including invalid UTF-8, round-trips.

// Segmented-form tags.
const (
	TagSpans = "il:spans" // envelope of a segmented message
	TagSeg   = "il:seg"   // one span of a stored block
)

const (
	segOpen  = "<il:seg "
	segLt    = "<il:lt/>"
	segClose = "\n</il>"
)

// ErrSegMalformed is wrapped by every error DecodeSpans and ParseSegmented
// return: the text is not one the encoder could have produced.
var ErrSegMalformed = errors.New("vault: malformed segmented text")

// Span is one part of a segmented message: literal bytes when ID is empty,
// else N bytes of block ID starting at byte At, with an optional hint of
// what they hold (formatted through CleanHint).
type Span struct {
	Lit   []byte
	ID    string
	At, N int
	Hint  string
}

// IsSeg reports whether s refers to a stored block.
func (s Span) IsSeg() bool { return s.ID != "" }

// String formats a segment ref (ID set) as it appears in a body.
func (s Span) String() string {
	out := `<il:seg id="` + s.ID + `" at=` + strconv.Itoa(s.At) + ` n=` + strconv.Itoa(s.N)
	if h := CleanHint(s.Hint); h != "" {
		out += ` s="` + h + `"`
	}
	return out + `/>`
}

// CleanHint returns h as it survives a round trip through the s attribute
// of a segment: quotes become apostrophes, angle brackets and control
// characters spaces.
func CleanHint(h string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '<' || r == '>' || r < 0x20 || r == 0x7f:
			return ' '
		}
		return r
	}, h)
}

// EncodeSpans returns the body for parts. Segment parts must carry a valid
// id, At ≥ 0 and N ≥ 1; DecodeSpans of the body returns parts with empty
// literals dropped and adjacent literals joined (they are escaped as one,
// so a directive split across two literals is escaped too).
func EncodeSpans(parts []Span) []byte {
	var out, lit []byte
	for _, p := range parts {
		if !p.IsSeg() {
			lit = append(lit, p.Lit...)
			continue
		}
		out = appendSegLiteral(out, lit)
		lit = lit[:0]
		out = append(out, p.String()...)
	}
	return appendSegLiteral(out, lit)
}

// appendSegLiteral appends lit with every "<" that starts a directive
// written as <il:lt/>.
func appendSegLiteral(out, lit []byte) []byte {
	for {
		k := bytes.IndexByte(lit, '<')
		if k < 0 {
			return append(out, lit...)
		}
		out = append(out, lit[:k]...)
		if rest := lit[k:]; bytes.HasPrefix(rest, []byte(segOpen)) || bytes.HasPrefix(rest, []byte(segLt)) {
			out = append(out, segLt...)
		} else {
			out = append(out, '<')
		}
		lit = lit[k+1:]
	}
}

// DecodeSpans parses a body into its parts. Malformed input gives an error
// that wraps ErrSegMalformed and names the byte offset; it never panics.
func DecodeSpans(body []byte) ([]Span, error) {
	var parts []Span
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			parts = append(parts, Span{Lit: lit})
			lit = nil
		}
	}
	for p := 0; p < len(body); {
		k := bytes.IndexByte(body[p:], '<')
		if k < 0 {
			lit = append(lit, body[p:]...)
			break
		}
		lit = append(lit, body[p:p+k]...)
		p += k
		switch rest := body[p:]; {
		case bytes.HasPrefix(rest, []byte(segLt)):
			lit = append(lit, '<')
			p += len(segLt)
		case bytes.HasPrefix(rest, []byte(segOpen)):
			s, n, err := parseSeg(rest)
			if err != nil {
				return nil, fmt.Errorf("%w: at byte %d: %v", ErrSegMalformed, p, err)
			}
			flush()
			parts = append(parts, s)
			p += n
		default:
			lit = append(lit, '<')
			p++
		}
	}
	flush()
	return parts, nil
}

// parseSeg reads one <il:seg id="…" at=A n=L/> at the start of b.
func parseSeg(b []byte) (Span, int, error) {
	var s Span
	p := len(segOpen)
	if !bytes.HasPrefix(b[p:], []byte(`id="`)) {
		return s, 0, errors.New(`segment without id="…"`)
	}
	p += len(`id="`)
	q := bytes.IndexByte(b[p:], '"')
	if q < 0 {
		return s, 0, errors.New("unterminated segment id")
	}
	id, err := NormalizeID(string(b[p : p+q]))
	if err != nil || id != string(b[p:p+q]) {
		return s, 0, fmt.Errorf("bad segment id %q", b[p:p+q])
	}
	s.ID = id
	p += q + 1
	if s.At, p, err = segNumber(b, p, " at="); err != nil {
		return s, 0, err
	}
	if s.N, p, err = segNumber(b, p, " n="); err != nil {
		return s, 0, err
	}
	if s.N < 1 {
		return s, 0, errors.New("empty segment")
	}
	if bytes.HasPrefix(b[p:], []byte(` s="`)) {
		p += len(` s="`)
		q := bytes.IndexByte(b[p:], '"')
		if q < 0 {
			return s, 0, errors.New("unterminated segment hint")
		}
		s.Hint = string(b[p : p+q])
		if s.Hint == "" || CleanHint(s.Hint) != s.Hint {
			return s, 0, fmt.Errorf("bad segment hint %q", s.Hint)
		}
		p += q + 1
	}
	if !bytes.HasPrefix(b[p:], []byte("/>")) {
		return s, 0, errors.New("segment not closed with />")
	}
	return s, p + 2, nil
}

// segNumber reads name followed by a canonical decimal at p.
func segNumber(b []byte, p int, name string) (int, int, error) {
	if !bytes.HasPrefix(b[p:], []byte(name)) {
		return 0, 0, fmt.Errorf("segment lacks %q", name[1:])
	}
	p += len(name)
	s := p
	for p < len(b) && b[p] >= '0' && b[p] <= '9' && p-s < 12 {
		p++
	}
	if p == s || b[s] == '0' && p-s > 1 {
		return 0, 0, fmt.Errorf("segment %s is not a canonical number", name[1:len(name)-1])
	}
	v, err := strconv.Atoi(string(b[s:p]))
	if err != nil {
		return 0, 0, fmt.Errorf("segment %s: %w", name[1:len(name)-1], err)
	}
	return v, p, nil
}

// ResolveSpans returns the exact bytes parts stand for, reading each
// segment's block through get. A segment outside its block is an error.
func ResolveSpans(parts []Span, get func(id string) ([]byte, error)) ([]byte, error) {
	var out []byte
	for _, p := range parts {
		if !p.IsSeg() {
			out = append(out, p.Lit...)
			continue
		}
		data, err := get(p.ID)
		if err != nil {
			return nil, fmt.Errorf("vault: segment %s: %w", p.ID, err)
		}
		if p.At < 0 || p.N < 1 || p.At > len(data) || p.N > len(data)-p.At {
			return nil, fmt.Errorf("vault: segment %s at=%d n=%d outside its %d bytes", p.ID, p.At, p.N, len(data))
		}
		out = append(out, data[p.At:p.At+p.N]...)
	}
	return out, nil
}

// FormatSegmented returns the whole segmented text of a message whose block
// is id (n bytes) and whose body is body.
func FormatSegmented(id string, n int, body []byte) string {
	return `<` + TagSpans + ` id="` + id + `" n=` + strconv.Itoa(n) + ">\n" + string(body) + segClose
}

// ParseSegmented splits a message's text in the segmented form into its
// envelope id, size and parts. ok is false when text is not in that form at
// all; err (wrapping ErrSegMalformed) when it is but its body is malformed.
func ParseSegmented(text string) (id string, n int, parts []Span, ok bool, err error) {
	head := "<" + TagSpans + ` id="`
	if len(text) < len(head) || text[:len(head)] != head || len(text) < len(segClose) || text[len(text)-len(segClose):] != segClose {
		return "", 0, nil, false, nil
	}
	b := []byte(text[:len(text)-len(segClose)])
	q := bytes.IndexByte(b[len(head):], '"')
	if q < 0 {
		return "", 0, nil, true, fmt.Errorf("%w: unterminated envelope id", ErrSegMalformed)
	}
	id = string(b[len(head) : len(head)+q])
	if norm, err := NormalizeID(id); err != nil || norm != id {
		return "", 0, nil, true, fmt.Errorf("%w: bad envelope id %q", ErrSegMalformed, id)
	}
	n, p, err := segNumber(b, len(head)+q+1, " n=")
	if err != nil {
		return "", 0, nil, true, fmt.Errorf("%w: envelope: %v", ErrSegMalformed, err)
	}
	if !bytes.HasPrefix(b[p:], []byte(">\n")) {
		return "", 0, nil, true, fmt.Errorf("%w: envelope not closed with >", ErrSegMalformed)
	}
	parts, err = DecodeSpans(b[p+2:])
	return id, n, parts, true, err
}
