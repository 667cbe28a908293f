package vault

import (
	"strconv"
	"strings"
)

// Ref tags as they appear in prompts.
const (
	TagCtx  = "ctx"     // <ctx id=… n=… …/>: a block moved to the vault
	TagSeen = "il:seen" // <il:seen id=… n=…/>: exact repeat of content already in the prompt
	TagIL   = "il:v1"   // <il:v1 id=… n=…>body</il>: lossless compact encoding
)

// Ref is one vault reference as sent to a model. Zero-valued optional
// fields are omitted when formatted.
type Ref struct {
	Tag          string   // TagCtx, TagSeen or TagIL
	ID           string   // id (required)
	Chars        int      // n: bytes of the exact block
	Kind         string   // k: what the block was (tool:shell, user, assistant...)
	Tokens       int      // tok: o200k tokens of the exact block
	Confidence   float64  // c: share of the block the summary covers
	Priority     string   // p: high, normal or low
	AutoRestored bool     // ar: an excerpt follows the ref in this prompt
	Sensitive    bool     // sens: holds secrets; never auto-restored
	Topics       []string // t: topic terms
	Summary      string   // s: extractive, non-authoritative summary
	Body         string   // il:v1 only: the encoded body
}

// cleanAttr makes s safe inside a double-quoted attribute: quotes become
// apostrophes and control characters spaces.
func cleanAttr(s string) string {
	if !strings.ContainsAny(s, "\"\n\r\t\x00") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r < 0x20:
			return ' '
		}
		return r
	}, s)
}

// CleanTopic returns t as it survives a round trip through the t attribute.
func CleanTopic(t string) string {
	return strings.TrimSpace(strings.ReplaceAll(cleanAttr(t), ",", " "))
}

// String formats the reference.
func (r Ref) String() string {
	var b strings.Builder
	tag := r.Tag
	if tag == "" {
		tag = TagCtx
	}
	b.WriteString("<" + tag)
	if r.Kind != "" {
		b.WriteString(` k="` + cleanAttr(r.Kind) + `"`)
	}
	b.WriteString(` id="` + r.ID + `" n=` + strconv.Itoa(r.Chars))
	if r.Tokens > 0 {
		b.WriteString(" tok=" + strconv.Itoa(r.Tokens))
	}
	if r.Confidence > 0 {
		b.WriteString(` c="` + strconv.FormatFloat(r.Confidence, 'f', 2, 64) + `"`)
	}
	if r.Priority != "" {
		b.WriteString(` p="` + cleanAttr(r.Priority) + `"`)
	}
	if r.AutoRestored {
		b.WriteString(` ar="true"`)
	}
	if r.Sensitive {
		b.WriteString(` sens="true"`)
	}
	if len(r.Topics) > 0 {
		ts := make([]string, 0, len(r.Topics))
		for _, t := range r.Topics {
			if t = CleanTopic(t); t != "" {
				ts = append(ts, t)
			}
		}
		if len(ts) > 0 {
			b.WriteString(` t="` + strings.Join(ts, ",") + `"`)
		}
	}
	if r.Summary != "" {
		b.WriteString(` s="` + cleanAttr(r.Summary) + `"`)
	}
	if tag == TagIL {
		b.WriteString(">\n" + r.Body + "\n</il>")
	} else {
		b.WriteString("/>")
	}
	return b.String()
}

// ParseRefs returns every well-formed reference in text, in order. Malformed
// elements are skipped; it never panics.
func ParseRefs(text string) []Ref {
	var out []Ref
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			break
		}
		i += j
		r, end, ok := parseElement(text, i)
		if !ok {
			i++
			continue
		}
		out = append(out, r)
		i = end
	}
	return out
}

func parseElement(text string, at int) (Ref, int, bool) {
	var r Ref
	rest := text[at+1:]
	for _, tag := range []string{TagSeen, TagIL, TagCtx} {
		if strings.HasPrefix(rest, tag+" ") {
			r.Tag = tag
			break
		}
	}
	if r.Tag == "" {
		return r, 0, false
	}
	p := at + 1 + len(r.Tag)
	closed := false
	for p < len(text) {
		for p < len(text) && text[p] == ' ' {
			p++
		}
		if strings.HasPrefix(text[p:], "/>") && r.Tag != TagIL {
			p += 2
			closed = true
			break
		}
		if strings.HasPrefix(text[p:], ">") && r.Tag == TagIL {
			p++
			closed = true
			break
		}
		name, val, next, ok := parseAttr(text, p)
		if !ok {
			return r, 0, false
		}
		p = next
		if !r.set(name, val) {
			return r, 0, false
		}
	}
	if !closed || r.ID == "" {
		return r, 0, false
	}
	if r.Tag == TagIL {
		body := text[p:]
		if !strings.HasPrefix(body, "\n") {
			return r, 0, false
		}
		k := strings.Index(body, "\n</il>")
		if k < 0 {
			return r, 0, false
		}
		if k > 0 { // k == 0 is "<il…>\n</il>": an empty body
			r.Body = body[1:k]
		}
		p += k + len("\n</il>")
	}
	return r, p, true
}

// parseAttr reads name=value or name="value" at p.
func parseAttr(text string, p int) (name, val string, next int, ok bool) {
	s := p
	for p < len(text) && (text[p] >= 'a' && text[p] <= 'z') {
		p++
	}
	if p == s || p >= len(text) || text[p] != '=' {
		return "", "", 0, false
	}
	name = text[s:p]
	p++
	if p < len(text) && text[p] == '"' {
		e := strings.IndexByte(text[p+1:], '"')
		if e < 0 {
			return "", "", 0, false
		}
		return name, text[p+1 : p+1+e], p + 2 + e, true
	}
	s = p
	for p < len(text) && text[p] != ' ' && text[p] != '/' && text[p] != '>' && text[p] != '\n' {
		p++
	}
	if p == s {
		return "", "", 0, false
	}
	return name, text[s:p], p, true
}

// set stores one attribute; it reports false for a malformed value.
func (r *Ref) set(name, val string) bool {
	var err error
	switch name {
	case "id":
		r.ID, err = NormalizeID(val)
	case "n":
		r.Chars, err = strconv.Atoi(val)
	case "tok":
		r.Tokens, err = strconv.Atoi(val)
	case "c":
		r.Confidence, err = strconv.ParseFloat(val, 64)
	case "k":
		r.Kind = val
	case "p":
		r.Priority = val
	case "ar":
		r.AutoRestored = val == "true"
	case "sens":
		r.Sensitive = val == "true"
	case "t":
		r.Topics = nil
		for _, t := range strings.Split(val, ",") {
			if t != "" {
				r.Topics = append(r.Topics, t)
			}
		}
	case "s":
		r.Summary = val
	}
	return err == nil
}
