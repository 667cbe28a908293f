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
// sent as diet.FoldMarker (or auto-restored, resolving on its own) or not
// sent at all (elided), a text that resolves to that message by these same
// rules, a run's ref in a block opening a run in its turn.
func Verify(v Getter, orig []diet.Message, prompt []diet.Message) error {
	if len(prompt) != len(orig) {
		return fmt.Errorf("prompt has %d messages, want %d", len(prompt), len(orig))
	}
	for i := 0; i < len(prompt); i++ {
		m := prompt[i]
		if m.Role != orig[i].Role {
			return fmt.Errorf("message %d: role %q, want %q", i, m.Role, orig[i].Role)
		}
		if m.Elided {
			return fmt.Errorf("message %d: elided without a run before it", i)
		}
		if id, ok := runRef(m.Content); ok {
			end, err := verifyRun(v, id, i, orig)
			if err != nil {
				return err
			}
			for j := i + 1; j < end; j++ {
				switch {
				case prompt[j].Elided:
				case prompt[j].Role != orig[j].Role:
					return fmt.Errorf("message %d: role %q, want %q", j, prompt[j].Role, orig[j].Role)
				case prompt[j].Content == diet.FoldMarker:
				default:
					if err := verifyOne(v, prompt[j].Content, orig[j].Content); err != nil {
						return fmt.Errorf("message %d: run %s: message %d is neither folded nor exact: %w", i, id, j, err)
					}
				}
			}
			i = end - 1
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

// runRef returns the id of the run whose ref text is, alone.
func runRef(text string) (string, bool) {
	refs := vault.ParseRefs(text)
	if len(refs) == 1 && refs[0].Kind == diet.KindRun && text == refs[0].String() {
		return refs[0].ID, true
	}
	return "", false
}

// verifyRun checks the run with block id opened by message start and
// returns the index after the last message it covers. Its parts are the
// texts the prompt sent for the messages it holds, in order: a part that
// opens a run covers that run's messages, of which the ones sent as
// diet.FoldMarker have marker parts and the elided ones none.
func verifyRun(v Getter, id string, start int, orig []diet.Message) (int, error) {
	data, err := v.Get(id)
	if err != nil {
		return 0, fmt.Errorf("message %d: run %s: %w", start, id, err)
	}
	parts, err := diet.ParseFold(data)
	if err != nil {
		return 0, fmt.Errorf("message %d: run %s: %w", start, id, err)
	}
	j := start
	for k := 0; k < len(parts); {
		p := parts[k]
		switch {
		case j >= len(orig) || p.Index != j:
			return 0, fmt.Errorf("message %d: run %s: part %d is message %d, want %d", start, id, k, p.Index, j)
		case p.Role != orig[j].Role:
			return 0, fmt.Errorf("message %d: run %s: role %q, want %q", j, id, p.Role, orig[j].Role)
		}
		if sub, ok := runRef(p.Text); ok {
			end, err := verifyRun(v, sub, j, orig)
			if err != nil {
				return 0, err
			}
			for k++; k < len(parts) && parts[k].Index < end; k++ {
				if parts[k].Text != diet.FoldMarker {
					return 0, fmt.Errorf("message %d (run %s): covered by run %s but not a marker", parts[k].Index, id, sub)
				}
			}
			j = end
			continue
		}
		if err := verifyOne(v, p.Text, orig[j].Content); err != nil {
			return 0, fmt.Errorf("message %d (run %s): %w", j, id, err)
		}
		j, k = j+1, k+1
	}
	return j, nil
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
