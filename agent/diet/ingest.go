package diet

import (
	"fmt"
	"strings"
)

// Ingestion compaction keeps this much of an oversized tool output in the
// history; the whole output is in the vault.
const (
	ingestHead    = 40
	ingestTail    = 40
	ingestErrors  = 40
	ingestLineCap = 400
)

// compactBody renders the ingestion form of a tool output: its ref, then
// head and tail lines and the error or failure lines between them.
func compactBody(e *entry, r interface{ String() string }) string {
	return Compact(e.msg.Content, r.String())
}

// Compact returns the kept view of an oversized output whose exact text is
// in the vault under ref: the ref, the first 40 and last 40 lines and up to
// 40 lines from the middle (the first and the last 20) that report an
// error or failure, summarize tests, hold a URL or are headings, each
// line capped at 400 bytes.
func Compact(text, ref string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var b strings.Builder
	b.WriteString(ref)
	b.WriteByte('\n')
	if len(lines) <= ingestHead+ingestTail {
		fmt.Fprintf(&b, "[kws: output of %d bytes vaulted exactly; long lines shortened below]\n", len(text))
		for _, l := range lines {
			b.WriteString(capLine(l) + "\n")
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	omitted := len(lines) - ingestHead - ingestTail
	body := strings.TrimSuffix(text, "\n")
	headLen := len(strings.Join(lines[:ingestHead], "\n")) + 1
	tailLen := len(strings.Join(lines[len(lines)-ingestTail:], "\n")) + 1
	midText := body[headLen : len(body)-tailLen]
	errs := errorLines(midText, ingestErrors/2)
	fmt.Fprintf(&b, "[kws: output of %d lines, %d bytes vaulted exactly; showing the first %d lines, %d error, failure, test-summary, URL or heading lines from the middle, the last %d]\n",
		len(lines), len(text), ingestHead, len(errs), ingestTail)
	for _, l := range lines[:ingestHead] {
		b.WriteString(capLine(l) + "\n")
	}
	fmt.Fprintf(&b, "[… %d lines omitted; .ctx_get the ref for them …]\n", omitted)
	for _, l := range errs {
		b.WriteString(capLine(l) + "\n")
	}
	if len(errs) > 0 {
		b.WriteString("[…]\n")
	}
	for _, l := range lines[len(lines)-ingestTail:] {
		b.WriteString(capLine(l) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func capLine(l string) string {
	if len(l) <= ingestLineCap {
		return l
	}
	return clip(l, ingestLineCap) + fmt.Sprintf(" [+%d bytes]", len(l)-ingestLineCap)
}
