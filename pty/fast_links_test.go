package pty

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// link returns the OSC 8 sequence that opens a link to uri (or closes
// the link when uri is empty), ended with ST.
func link(uri string) string {
	return "\x1b]8;;" + uri + "\x1b\\"
}

func TestFastEmulatorLinks(t *testing.T) {
	const uri = "https://example.com/a?b=c;d"
	cases := []struct {
		name  string
		input string
		// want is the link of each cell of row 0 up to its length.
		want []string
	}{
		{"cells inside the link", "a" + link(uri) + "bc" + link("") + "d", []string{"", uri, uri, ""}},
		{"ended with BEL", "\x1b]8;;" + uri + "\x07b\x1b]8;;\x07c", []string{uri, ""}},
		{"params are passed over", "\x1b]8;id=x:y=z;" + uri + "\x1b\\b" + link("") + "c", []string{uri, ""}},
		{"both halves of a wide character", link(uri) + "界" + link(""), []string{uri, uri}},
		{"REP repeats the link", link(uri) + "a" + link("") + "\x1b[b", []string{uri, ""}},
		{"erased cells lose it", link(uri) + "abc\x1b[2G\x1b[K", []string{uri, ""}},
		{"the link stays open across DECRC", "\x1b7" + link(uri) + "\x1b8a", []string{uri}},
		{"DECSC keeps no link", link(uri) + "\x1b7" + link("") + "\x1b8a", []string{""}},
		{"RIS ends it", link(uri) + "\x1bca", []string{""}},
		{"SGR 0 keeps it", link(uri) + "\x1b[1m\x1b[0ma", []string{uri}},
		{"DEL refused", link("http://a\x7fb") + "a", []string{""}},
		{"C1 control refused", link("http://a\u009bb") + "a", []string{""}},
		{"bidi override refused", link("http://a\u202eb") + "a", []string{""}},
		{"invalid UTF-8 refused", link("http://a\xffb") + "a", []string{""}},
		{"a refused link ends the open one", link(uri) + "a" + link("http://\x7f") + "b", []string{uri, ""}},
		{"the longest URI", link("http://"+strings.Repeat("x", maxLinkURI-7)) + "a", []string{"http://" + strings.Repeat("x", maxLinkURI-7)}},
		{"too long refused", link("http://"+strings.Repeat("x", maxLinkURI-6)) + "a", []string{""}},
		{"cut short by the OSC limit refused", link("http://"+strings.Repeat("x", maxOSC)) + "a", []string{""}},
		{"unicode kept as given", link("https://例え.jp/パス") + "a", []string{"https://例え.jp/パス"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, 10, 4, tc.input)
			for x, w := range tc.want {
				if got := e.Cell(x, 0).Link; got != w {
					t.Errorf("cell %d links to %q, want %q", x, got, w)
				}
			}
		})
	}
}

func TestFastEmulatorLinksInScrollback(t *testing.T) {
	e := fastEmu(t, 10, 2, "a"+link("http://x")+"link"+link("")+"\r\n1\r\n2\r\n")
	line := e.ScrollbackLine(0)
	if len(line) != 5 || line[0].Link != "" || line[1].Link != "http://x" || line[4].Link != "http://x" {
		t.Errorf("scrollback line %+v", line)
	}
	h := newHistory(e.Emulator)
	if got := h.Line(0)[2].Link; got != "http://x" {
		t.Errorf("history cell links to %q", got)
	}
}

// TestFastEmulatorLinkTable checks the link table's bounds: cells with the
// same URI share an id, ids no cell uses are freed for new links once the
// table is full, links still shown keep theirs, and a table full of links
// still shown gives new ones none.
func TestFastEmulatorLinkTable(t *testing.T) {
	if size := unsafe.Sizeof(fcell{}); size != 20 {
		t.Errorf("fcell is %d bytes, want 20", size)
	}
	e := fastEmu(t, 20, 4, "\x1b[?1049h")
	fe := e.Emulator.(*FastEmulator)
	_, _ = e.Write([]byte(link("http://same") + "a" + link("") + link("http://same") + "b" + link("")))
	if n := len(fe.links.uris); n != 1 {
		t.Errorf("one URI twice took %d ids", n)
	}
	_, _ = e.Write([]byte("\x1b[2;1H" + link("http://keep") + "k" + link("") + "\x1b[H"))
	for i := range 3 * maxLinks {
		_, _ = e.Write([]byte(fmt.Sprintf("%sx%s\r\x1b[K", link(fmt.Sprintf("http://churn/%d", i)), link(""))))
	}
	if n := len(fe.links.uris); n > maxLinks {
		t.Errorf("table holds %d links, over %d", n, maxLinks)
	}
	_, _ = e.Write([]byte(link("http://new") + "n" + link("")))
	if got := e.Cell(0, 0).Link; got != "http://new" {
		t.Errorf("new link after churn: %q", got)
	}
	if got := e.Cell(0, 1).Link; got != "http://keep" {
		t.Errorf("the link still shown became %q", got)
	}

	full := fastEmu(t, 20, 2, "")
	var b strings.Builder
	for i := range maxLinks {
		fmt.Fprintf(&b, "%sx%s\r\n", link(fmt.Sprintf("http://live/%d", i)), link(""))
	}
	_, _ = full.Write([]byte(b.String() + link("http://late") + "y"))
	if got := full.Cell(0, 1).Link; got != "" {
		t.Errorf("a link beyond a full table of shown links got %q", got)
	}
	if got := full.ScrollbackLine(0)[0].Link; got != "http://live/0" {
		t.Errorf("the oldest shown link became %q", got)
	}
}
