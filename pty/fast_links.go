package pty

import (
	"strings"
	"unicode/utf8"
)

// Limits on OSC 8 hyperlinks, which come from untrusted output: the
// table holds at most maxLinks URIs at once (at most 2 MiB with the
// longest), and a URI longer than maxLinkURI bytes, kitty's limit, is
// refused.
const (
	maxLinks   = 1024
	maxLinkURI = 2048
)

// linkTable holds the URIs of the hyperlinks cells carry, so a cell keeps
// a small id (fcell.link) instead of a string and the grid stays free of
// pointers. Ids count from 1; 0 is no link.
type linkTable struct {
	// uris[id-1] is the URI of id, "" once the id is free again.
	uris []string
	// ids finds the id of a URI in the table, so cells linking to the
	// same URI share one.
	ids  map[string]uint16
	free []uint16
	// asked counts the URIs asked for since the last sweep, which bounds
	// how often the table is swept.
	asked int
}

// uri returns the URI of link id, "" for none.
func (t *linkTable) uri(id uint16) string {
	if id == 0 {
		return ""
	}
	return t.uris[id-1]
}

// openLink performs OSC 8 with its text, "params;URI": the cells printed
// next link to URI, and an empty URI ends the link. The params (an id
// that groups cells) are not kept: cells with the same URI share a link.
// A URI is kept as given, but one that is longer than maxLinkURI, was cut
// short by the OSC limit, is not UTF-8 or holds a control or
// bidirectional formatting character is refused, which ends the link too.
func (e *FastEmulator) openLink(text string) {
	_, uri, _ := strings.Cut(text, ";")
	e.cur.pen.link = 0
	if uri != "" && !e.oscLong && safeURI(uri) {
		e.cur.pen.link = e.linkID(uri)
	}
}

// safeURI reports whether uri may link cells: short enough, valid UTF-8,
// and free of C0 and C1 controls, DEL and the bidirectional formatting
// characters that could make it read as another.
func safeURI(uri string) bool {
	if len(uri) > maxLinkURI || !utf8.ValidString(uri) {
		return false
	}
	return !strings.ContainsFunc(uri, func(r rune) bool {
		return r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
	})
}

// linkID returns the id of uri, adding it to the table. When the table
// is full, ids no cell uses any longer are freed first; that sweep visits
// every cell, so it runs at most once per quarter table of new URIs, and
// until an id frees up new links get none (0): their text shows, unlinked.
func (e *FastEmulator) linkID(uri string) uint16 {
	t := &e.links
	if id, ok := t.ids[uri]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = make(map[string]uint16)
	}
	t.asked++
	if len(t.free) == 0 && len(t.uris) == maxLinks && t.asked >= maxLinks/4 {
		e.sweepLinks()
	}
	var id uint16
	switch n := len(t.free); {
	case n > 0:
		id, t.free = t.free[n-1], t.free[:n-1]
		t.uris[id-1] = uri
	case len(t.uris) < maxLinks:
		t.uris = append(t.uris, uri)
		id = uint16(len(t.uris))
	default:
		return 0
	}
	t.ids[uri] = id
	return id
}

// sweepLinks frees the ids that no cell of either screen or the
// scrollback carries and the pen does not hold open.
func (e *FastEmulator) sweepLinks() {
	t := &e.links
	used := make([]bool, len(t.uris)+1)
	used[e.cur.pen.link] = true
	mark := func(cells []fcell) {
		for _, c := range cells {
			used[c.link] = true
		}
	}
	for _, s := range [2]*fscreen{e.prim, e.alt} {
		for _, l := range s.lines {
			mark(l.c[:l.used])
		}
	}
	for i := range e.sb.n {
		line, _ := e.sb.line(i)
		mark(line)
	}
	for id := 1; id < len(used); id++ {
		if uri := t.uris[id-1]; !used[id] && uri != "" {
			delete(t.ids, uri)
			t.uris[id-1] = ""
			t.free = append(t.free, uint16(id))
		}
	}
	t.asked = 0
}
