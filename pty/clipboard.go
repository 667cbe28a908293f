package pty

import (
	"encoding/base64"
	"strings"
)

// MaxClipboard is the most bytes of text one OSC 52 sequence may set the
// clipboard to, whether a program in a pane sends it or copy mode does;
// terminals drop or truncate longer sequences.
const MaxClipboard = 100_000

// maxOSC52 is the longest OSC 52 string kept: "52;", the selections and
// the base64 form of MaxClipboard bytes.
const maxOSC52 = 3 + 16 + 1 + (MaxClipboard+2)/3*4

// decodeOSC52 reads the text of an OSC 52 request, the part after "52;":
// selections (c, p, s, q or the digits 0–7; empty means the clipboard) and
// a base64 payload. It returns the text to copy and true for a set
// request; a query (?), a clear (an empty payload), malformed base64,
// unknown selections and text over MaxClipboard bytes give false. The
// clipboard is never read back to the program.
func decodeOSC52(text string) (string, bool) {
	sel, data, ok := strings.Cut(text, ";")
	if !ok || data == "" || data == "?" || len(sel) > 16 {
		return "", false
	}
	if strings.Trim(sel, "cpqs01234567") != "" {
		return "", false
	}
	if base64.StdEncoding.DecodedLen(len(data)) > MaxClipboard+2 {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(b) == 0 || len(b) > MaxClipboard {
		return "", false
	}
	return string(b), true
}
