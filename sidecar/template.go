package sidecar

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// Message is one chat message for a prompt.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Template turns messages into the prompt text a model expects: the GGUF's
// own tokenizer.chat_template (Jinja), or ChatML when the model has none or
// the template cannot be used.
type Template struct {
	tpl        *exec.Template
	bos, eos   string
	fallback   bool
	fallbackBy string
}

// NewTemplate prepares the chat template from a model's metadata. A model
// without a usable template gets ChatML and a warning in log.
func NewTemplate(meta map[string]string, log *slog.Logger) *Template {
	t := &Template{bos: meta["tokenizer.ggml.bos_token"], eos: meta["tokenizer.ggml.eos_token"]}
	src := meta["tokenizer.chat_template"]
	if src == "" {
		t.fallback, t.fallbackBy = true, "the model has no tokenizer.chat_template"
	} else if tpl, err := gonja.FromString(src); err != nil {
		t.fallback, t.fallbackBy = true, "its chat template does not parse: "+err.Error()
	} else {
		t.tpl = tpl
	}
	if t.fallback && log != nil {
		log.Warn("sidecar: using ChatML", "reason", t.fallbackBy)
	}
	return t
}

// ChatML reports whether the template fell back to ChatML, and why.
func (t *Template) ChatML() (bool, string) { return t.fallback, t.fallbackBy }

// Render returns the prompt for msgs, ending where the assistant's answer
// begins. A template that fails at render time falls back to ChatML for
// this call.
func (t *Template) Render(msgs []Message) string {
	if t.tpl != nil {
		list := make([]map[string]any, len(msgs))
		for i, m := range msgs {
			list[i] = map[string]any{"role": m.Role, "content": m.Content}
		}
		ctx := exec.NewContext(map[string]any{
			"messages": list, "add_generation_prompt": true,
			"bos_token": t.bos, "eos_token": t.eos,
		})
		if out, err := t.tpl.ExecuteToString(ctx); err == nil {
			return out
		}
	}
	return chatML(msgs)
}

// chatML formats messages in the ChatML convention.
func chatML(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

// chatMLStops are the strings that end a ChatML answer.
var chatMLStops = []string{"<|im_end|>", "<|im_start|>"}
