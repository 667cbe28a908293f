package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/kwsdev/kws/sidecar"
)

// ErrNoLocalModel is returned by a Local client while the sidecar has no
// model to answer with (none found, or still loading).
var ErrNoLocalModel = errors.New("provider: the sidecar has no model loaded yet")

// Local is a Client answering with the sidecar's in-process GGUF model
// (local-only mode): the model's chat template formats the messages, tools
// go through the text protocol, and the answer arrives as one delta.
type Local struct {
	engine func() sidecar.Engine
	// MaxTokens caps an answer when the request sets no limit.
	MaxTokens int
}

// NewLocal returns a client asking engine() for the current sidecar engine
// at each call, so it starts answering once a model has loaded.
func NewLocal(engine func() sidecar.Engine) *Local {
	return &Local{engine: engine, MaxTokens: 1024}
}

// Chat runs one completion on the sidecar model.
func (l *Local) Chat(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	loc, ok := l.engine().(*sidecar.Local)
	if !ok {
		return Response{}, ErrNoLocalModel
	}
	msgs := textProtocolMessages(req.Messages, req.Tools)
	chat := make([]sidecar.Message, 0, len(msgs))
	for _, m := range msgs {
		chat = append(chat, sidecar.Message{Role: m.Role, Content: m.Content})
	}
	limit := req.MaxTokens
	if limit <= 0 {
		limit = l.MaxTokens
	}
	c, err := loc.Model().Complete(ctx, loc.Template().Render(chat), sidecar.CompleteOptions{
		MaxTokens: limit, Stop: []string{"<|im_end|>", "<|im_start|>"}})
	if err != nil {
		return Response{Attempts: 1}, fmt.Errorf("provider: sidecar model: %w", err)
	}
	if onDelta != nil && c.Text != "" {
		onDelta(Delta{Text: c.Text})
	}
	res := Response{Content: c.Text, Attempts: 1, FinishReason: "stop",
		Usage: Usage{PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens}}
	if len(req.Tools) > 0 {
		res = withTextToolCalls(res)
	}
	return res, nil
}
