package replay

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

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
// own id and its literal parts and segments all resolve to it; a run's ref
// opens a run whose block holds, for it and for each following message
// sent as diet.FoldMarker (or auto-restored, resolving on its own), a text
// that resolves to that message by these same rules.
func Verify(v Getter, orig []diet.Message, prompt []diet.Message) error {
	if len(prompt) != len(orig) {
		return fmt.Errorf("prompt has %d messages, want %d", len(prompt), len(orig))
	}
	for i := 0; i < len(prompt); i++ {
		m := prompt[i]
		if m.Role != orig[i].Role {
			return fmt.Errorf("message %d: role %q, want %q", i, m.Role, orig[i].Role)
		}
		if refs := vault.ParseRefs(m.Content); len(refs) == 1 && refs[0].Kind == diet.KindRun && m.Content == refs[0].String() {
			n, err := verifyRun(v, refs[0].ID, i, orig, prompt)
			if err != nil {
				return err
			}
			i += n - 1
			continue
		}
		if m.Content == diet.FoldMarker && orig[i].Content != diet.FoldMarker {
			return fmt.Errorf("message %d: folded without a run before it", i)
		}
		if err := verifyOne(v, m.Content, orig[i].Content); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		if err := verifySeen(prompt, orig, i); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	return nil
}

// verifySeen checks that message i, when it is an <il:seen/>, repeats an
// earlier message the prompt shows: exact, or under the same id.
func verifySeen(prompt, orig []diet.Message, i int) error {
	if !strings.HasPrefix(prompt[i].Content, "<"+vault.TagSeen+" ") {
		return nil
	}
	id := vault.ParseRefs(prompt[i].Content)[0].ID
	for j := range i {
		if prompt[j].Content == orig[i].Content || strings.Contains(prompt[j].Content, `id="`+id+`"`) {
			return nil
		}
	}
	return fmt.Errorf("<il:seen> of %s, which no earlier message of the prompt shows", id)
}

// verifyRun checks the run with block id opened by message i and returns
// how many messages it covers.
func verifyRun(v Getter, id string, i int, orig, prompt []diet.Message) (int, error) {
	data, err := v.Get(id)
	if err != nil {
		return 0, fmt.Errorf("message %d: run %s: %w", i, id, err)
	}
	parts, err := diet.ParseFold(data)
	if err != nil {
		return 0, fmt.Errorf("message %d: run %s: %w", i, id, err)
	}
	for k, p := range parts {
		j := i + k
		switch {
		case j >= len(orig) || p.Index != j:
			return 0, fmt.Errorf("message %d: run %s: part %d is message %d", i, id, k, p.Index)
		case k > 0 && prompt[j].Content != diet.FoldMarker:
			if err := verifyOne(v, prompt[j].Content, orig[j].Content); err != nil {
				return 0, fmt.Errorf("message %d: run %s: message %d is neither folded nor exact: %w", i, id, j, err)
			}
		case prompt[j].Role != orig[j].Role:
			return 0, fmt.Errorf("message %d: role %q, want %q", j, prompt[j].Role, orig[j].Role)
		}
		if err := verifyOne(v, p.Text, orig[j].Content); err != nil {
			return 0, fmt.Errorf("message %d (run %s): %w", j, id, err)
		}
	}
	return len(parts), nil
}

// verifyOne checks that text, what the prompt sends for one message,
// resolves to that message's content.
func verifyOne(v Getter, text, orig string) error {
	if text == orig {
		return nil
	}
	if ok, err := verifySegmented(v, text, orig); ok {
		return err
	}
	refs := vault.ParseRefs(text)
	if len(refs) == 0 {
		return fmt.Errorf("changed without a ref: %.200q", text)
	}
	resolved := false
	for _, r := range refs {
		data, err := v.Get(r.ID)
		if err != nil {
			return fmt.Errorf("ref %s: %w", r.ID, err)
		}
		if r.Tag == vault.TagIL {
			dec, err := vault.DecodeIL([]byte(r.Body))
			if err != nil || string(dec) != orig {
				return fmt.Errorf("il:v1 body does not decode to the original (%v)", err)
			}
		}
		if bytes.Equal(data, []byte(orig)) {
			resolved = true
		}
	}
	if !resolved {
		return errors.New("no ref resolves to the original content")
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
