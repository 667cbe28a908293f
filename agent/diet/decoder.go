package diet

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed decoder.md
var decoderPrompt string

// DecoderPrompt returns the text that teaches a model the ref syntax and
// the page-fault protocol. The agent appends it to the system prompt once
// the diet is active.
func DecoderPrompt() string { return strings.TrimSpace(decoderPrompt) }

// FormatExact renders a page-fault answer: the exact block.
func FormatExact(id string, data []byte) string {
	return fmt.Sprintf("<ctx_exact id=%q original_chars=%d>\n%s\n</ctx_exact>", id, len(data), data)
}
