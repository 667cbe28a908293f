package diet

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

//go:embed decoder.md
var decoderPrompt string

// DecoderPrompt returns the text that teaches a model the ref syntax and
// the page-fault protocol. The agent appends it to the system prompt once
// the diet is active.
func DecoderPrompt() string { return strings.TrimSpace(decoderPrompt) }

// FormatExact renders a page-fault answer: the exact block. Chat APIs carry
// only valid UTF-8, so a block that is not is sent with each invalid byte
// written \xNN and each backslash doubled, marked escaped="true"; the
// original bytes stay in the vault.
func FormatExact(id string, data []byte) string {
	if utf8.Valid(data) {
		return fmt.Sprintf("<ctx_exact id=%q original_chars=%d>\n%s\n</ctx_exact>", id, len(data), data)
	}
	return fmt.Sprintf("<ctx_exact id=%q original_chars=%d escaped=\"true\">\n%s\n</ctx_exact>", id, len(data), EscapeInvalidUTF8(data))
}

// EscapeInvalidUTF8 writes every byte that is not part of valid UTF-8 as
// \xNN and every backslash as \\, so the result is valid UTF-8 and the
// original can be recovered exactly.
func EscapeInvalidUTF8(data []byte) string {
	var b strings.Builder
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, "\\x%02x", data[0])
		case r == '\\':
			b.WriteString("\\\\")
		default:
			b.Write(data[:n])
		}
		data = data[n:]
	}
	return b.String()
}

// unescapeInvalidUTF8 undoes EscapeInvalidUTF8; ok is false for text it
// cannot have written.
func unescapeInvalidUTF8(s string) (string, bool) {
	var b strings.Builder
	for len(s) > 0 {
		k := strings.IndexByte(s, '\\')
		if k < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:k])
		s = s[k:]
		switch {
		case strings.HasPrefix(s, `\\`):
			b.WriteByte('\\')
			s = s[2:]
		case len(s) >= 4 && s[1] == 'x':
			v, err := strconv.ParseUint(s[2:4], 16, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(v))
			s = s[4:]
		default:
			return "", false
		}
	}
	return b.String(), true
}
