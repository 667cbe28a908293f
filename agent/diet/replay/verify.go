package replay

import (
	"bytes"
	"fmt"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/vault"
)

// Getter reads exact blocks back from the vault.
type Getter interface {
	Get(id string) ([]byte, error)
}

// Verify checks a dieted prompt against the original messages: one
// entry per message in order; an unchanged message is byte-identical; a
// changed one carries a ref that resolves through the vault to exactly the
// original content (and an <il:v1> body decodes to it); a segmented one's
// own id and its literal parts and segments all resolve to it.
func Verify(v Getter, orig []diet.Message, prompt []diet.Message) error {
	if len(prompt) != len(orig) {
		return fmt.Errorf("prompt has %d messages, want %d", len(prompt), len(orig))
	}
	for i, m := range prompt {
		if m.Role != orig[i].Role {
			return fmt.Errorf("message %d: role %q, want %q", i, m.Role, orig[i].Role)
		}
		if m.Content == orig[i].Content {
			continue
		}
		if ok, err := verifySegmented(v, m.Content, orig[i].Content); ok {
			if err != nil {
				return fmt.Errorf("message %d: %w", i, err)
			}
			continue
		}
		refs := vault.ParseRefs(m.Content)
		if len(refs) == 0 {
			return fmt.Errorf("message %d changed without a ref: %.200q", i, m.Content)
		}
		resolved := false
		for _, r := range refs {
			data, err := v.Get(r.ID)
			if err != nil {
				return fmt.Errorf("message %d: ref %s: %w", i, r.ID, err)
			}
			if r.Tag == vault.TagIL {
				dec, err := vault.DecodeIL([]byte(r.Body))
				if err != nil || string(dec) != orig[i].Content {
					return fmt.Errorf("message %d: il:v1 body does not decode to the original (%v)", i, err)
				}
			}
			if bytes.Equal(data, []byte(orig[i].Content)) {
				resolved = true
			}
		}
		if !resolved {
			return fmt.Errorf("message %d: no ref resolves to the original content", i)
		}
	}
	return nil
}

// verifySegmented checks a message sent in the <il:spans> form: its id holds
// the original, and its parts, segments read through the vault, rebuild it
// byte for byte. ok is false when text is not in that form.
func verifySegmented(v Getter, text, orig string) (ok bool, err error) {
	id, n, parts, ok, err := vault.ParseSegmented(text)
	if !ok || err != nil {
		return ok, err
	}
	data, err := v.Get(id)
	if err != nil {
		return true, fmt.Errorf("il:spans %s: %w", id, err)
	}
	if string(data) != orig || n != len(orig) {
		return true, fmt.Errorf("il:spans %s does not hold the original content", id)
	}
	exact, err := vault.ResolveSpans(parts, v.Get)
	if err != nil {
		return true, err
	}
	if string(exact) != orig {
		return true, fmt.Errorf("il:spans %s: segments resolve to different bytes", id)
	}
	return true, nil
}
