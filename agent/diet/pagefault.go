package diet

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadFault is wrapped by every error ParseFaults reports for a request
// line that names a page-fault verb but is malformed.
var ErrBadFault = errors.New("diet: malformed page-fault request")

// Fault is one page-fault request found in model output.
type Fault struct {
	Op     string // "get" or "search"
	ID     string // for get: normalized "ctx:" + lowercase hex (8..64 hex chars)
	Query  string // for search
	Reason string // optional, may be empty
	Line   int    // 1-based line number in the text
}

// FaultError describes one malformed request line. Its text reads like
// "line 3: .ctx_get: missing id=", and it wraps ErrBadFault.
type FaultError struct {
	Line int    // 1-based line number in the text
	Verb string // ".ctx_get", ".ctx_search" or ". err need_ref"
	Msg  string // what is wrong with the line
}

// Error returns the line number, the verb and what is wrong.
func (e *FaultError) Error() string { return fmt.Sprintf("line %d: %s: %s", e.Line, e.Verb, e.Msg) }

// Unwrap returns ErrBadFault so that errors.Is recognizes every FaultError.
func (e *FaultError) Unwrap() error { return ErrBadFault }

const (
	pfVerbGet     = ".ctx_get"
	pfVerbSearch  = ".ctx_search"
	pfVerbNeedRef = ". err need_ref"
	pfSpaces      = " \t"
)

// ParseFaults scans text line by line and returns the well-formed requests
// in order, plus one *FaultError per malformed request line. A request line
// starts, after optional pfSpaces or tabs, with ".ctx_get", ".ctx_search" or
// ". err need_ref" followed by a space, a tab or the end of the line; lines
// inside ``` fences count too, and every other line is ignored.
func ParseFaults(text string) ([]Fault, []error) {
	var faults []Fault
	var errs []error
	for n := 1; ; n++ {
		line, rest, more := strings.Cut(text, "\n")
		line = strings.TrimRight(strings.TrimLeft(line, pfSpaces), "\r"+pfSpaces)
		var f Fault
		var verb, msg string
		if args, ok := pfCutWord(line, pfVerbGet); ok {
			verb = pfVerbGet
			f, msg = pfParseGet(args)
		} else if args, ok := pfCutWord(line, pfVerbSearch); ok {
			verb = pfVerbSearch
			f, msg = pfParseSearch(args)
		} else if args, ok := pfCutNeedRef(line); ok {
			verb = pfVerbNeedRef
			f, msg = pfParseNeedRef(args)
		}
		switch {
		case msg != "":
			errs = append(errs, &FaultError{Line: n, Verb: verb, Msg: msg})
		case verb != "":
			f.Line = n
			faults = append(faults, f)
		}
		if !more {
			return faults, errs
		}
		text = rest
	}
}

// pfCutWord reports whether s starts with the word w followed by a space, a
// tab or nothing, and returns the text after w.
func pfCutWord(s, w string) (string, bool) {
	rest, ok := strings.CutPrefix(s, w)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return rest, true
}

// pfCutNeedRef recognizes ". err need_ref", allowing any run of pfSpaces or
// tabs (or none after the dot) between its three words.
func pfCutNeedRef(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, ".")
	if !ok {
		return "", false
	}
	if rest, ok = pfCutWord(strings.TrimLeft(rest, pfSpaces), "err"); !ok {
		return "", false
	}
	return pfCutWord(strings.TrimLeft(rest, pfSpaces), "need_ref")
}

// pfParseGet parses the arguments of .ctx_get: id=… and an optional
// reason=… that runs to the end of the line.
func pfParseGet(s string) (Fault, string) {
	var id, reason string
	haveID := false
	for {
		s = strings.TrimLeft(s, pfSpaces)
		if s == "" {
			break
		}
		word, _, _ := strings.Cut(strings.ReplaceAll(pfClip(s, 256), "\t", " "), " ")
		key, _, hasEq := strings.Cut(word, "=")
		switch {
		case !hasEq:
			return Fault{}, fmt.Sprintf("unexpected %q (want id=ctx:<hex> [reason=...])", pfClip(word, 40))
		case key == "reason":
			reason = pfUnquote(s[len("reason="):])
			s = ""
		case key == "id" && haveID:
			return Fault{}, "duplicate id="
		case key == "id":
			haveID = true
			val := s[len("id="):]
			end := strings.IndexAny(val, pfSpaces)
			if end < 0 {
				end = len(val)
			}
			id, s = val[:end], val[end:]
		default:
			return Fault{}, fmt.Sprintf("unknown key %q (want id= or reason=)", pfClip(key, 40))
		}
	}
	if !haveID {
		return Fault{}, "missing id="
	}
	norm, msg := pfNormalizeID(id)
	if msg != "" {
		return Fault{}, msg
	}
	return Fault{Op: "get", ID: norm, Reason: reason}, ""
}

// pfParseSearch parses the arguments of .ctx_search: query=… up to
// " reason=" (or whole if quoted) and an optional reason=….
func pfParseSearch(s string) (Fault, string) {
	s = strings.TrimLeft(s, pfSpaces)
	v, ok := strings.CutPrefix(s, "query=")
	if !ok {
		if s == "" || strings.HasPrefix(s, "reason=") {
			return Fault{}, "missing query="
		}
		word, _, _ := strings.Cut(strings.ReplaceAll(pfClip(s, 256), "\t", " "), " ")
		if key, _, hasEq := strings.Cut(word, "="); hasEq {
			return Fault{}, fmt.Sprintf("unknown key %q (want query= [reason=...])", pfClip(key, 40))
		}
		return Fault{}, fmt.Sprintf("unexpected %q (want query=<text> [reason=...])", pfClip(word, 40))
	}
	var query, reason string
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		end := strings.IndexByte(v[1:], v[0])
		if end < 0 {
			return Fault{}, "unterminated quote in query="
		}
		query = v[1 : 1+end]
		after := strings.TrimLeft(v[2+end:], pfSpaces)
		if r, ok := strings.CutPrefix(after, "reason="); ok {
			reason = pfUnquote(r)
		} else if after != "" {
			return Fault{}, fmt.Sprintf("unexpected %q after quoted query (want reason=...)", pfClip(after, 40))
		}
	} else {
		query = v
		if k := pfIndexReason(v); k >= 0 {
			query, reason = v[:k], pfUnquote(v[k+len("reason="):])
		}
		query = strings.TrimSpace(query)
	}
	if strings.TrimSpace(query) == "" {
		return Fault{}, "empty query="
	}
	return Fault{Op: "search", Query: query, Reason: reason}, ""
}

// pfIndexReason returns the index of the first "reason=" in s that starts s
// or follows a space or tab, or -1.
func pfIndexReason(s string) int {
	for off := 0; ; {
		k := strings.Index(s[off:], "reason=")
		if k < 0 {
			return -1
		}
		k += off
		if k == 0 || s[k-1] == ' ' || s[k-1] == '\t' {
			return k
		}
		off = k + 1
	}
}

// pfParseNeedRef parses the arguments of ". err need_ref": an id, then
// optional free text that becomes the reason.
func pfParseNeedRef(s string) (Fault, string) {
	s = strings.TrimLeft(s, pfSpaces)
	if s == "" {
		return Fault{}, "missing id"
	}
	end := strings.IndexAny(s, pfSpaces)
	if end < 0 {
		end = len(s)
	}
	id, rest := strings.TrimPrefix(s[:end], "id="), s[end:]
	norm, msg := pfNormalizeID(id)
	if msg != "" {
		return Fault{}, msg
	}
	rest = strings.TrimLeft(rest, pfSpaces+"-:–—")
	return Fault{Op: "get", ID: norm, Reason: pfUnquote(strings.TrimPrefix(rest, "reason="))}, ""
}

// pfNormalizeID turns a raw id ("ctx:5F2A…", "5f2a…", quoted, or followed by
// punctuation) into "ctx:" plus lowercase hex, or returns what is wrong.
func pfNormalizeID(raw string) (string, string) {
	s := strings.Trim(strings.TrimRight(raw, ".,;:!?)"), `"'`)
	s = strings.TrimRight(s, ".,;:!?)")
	if s == "" || strings.EqualFold(s, "ctx") {
		return "", "empty id"
	}
	if len(s) >= 4 && strings.EqualFold(s[:4], "ctx:") {
		s = s[4:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", fmt.Sprintf("id %q is not hex", pfClip(raw, 40))
		}
	}
	if len(s) < 8 || len(s) > 64 {
		return "", fmt.Sprintf("id %q has %d hex digits (want 8 to 64)", pfClip(raw, 40), len(s))
	}
	return "ctx:" + strings.ToLower(s), ""
}

// pfUnquote trims pfSpaces and strips one pair of matching quotes that enclose
// the whole value.
func pfUnquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// pfClip shortens s to at most n bytes for use in messages.
func pfClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
