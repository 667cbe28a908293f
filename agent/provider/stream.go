package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// emptyMessagesLimit tolerates long runs of SSE comments, which some
// gateways send as keep-alives while a reasoning model thinks.
const emptyMessagesLimit = 1 << 16

// errStreamCut marks a stream that ended before a finish reason arrived.
var errStreamCut = errors.New("the stream ended before the answer was complete")

// attemptError is the raw failure of one attempt, before classification.
type attemptError struct {
	err      error
	header   http.Header
	timedOut bool
	// local means the request never left the process (go-openai refused
	// to build it), so retrying cannot help.
	local bool
}

// Error reports the underlying error.
func (e *attemptError) Error() string { return e.err.Error() }

// Unwrap returns the underlying error.
func (e *attemptError) Unwrap() error { return e.err }

// captureDoer sends requests with an http.Client and keeps the headers of
// the last response, so that Retry-After is available after an error. It
// writes the sampling settings into each request body.
type captureDoer struct {
	client   *http.Client
	sampling map[string]float64
	mu       sync.Mutex
	sent     bool
	header   http.Header
}

// Do sends req and records the response headers.
func (d *captureDoer) Do(req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.sent = true
	d.mu.Unlock()
	if err := withSampling(req, d.sampling); err != nil {
		return nil, err
	}
	resp, err := d.client.Do(req)
	if resp != nil {
		d.mu.Lock()
		d.header = resp.Header.Clone()
		d.mu.Unlock()
	}
	return resp, err
}

// state returns whether a request was sent and the last response headers.
func (d *captureDoer) state() (bool, http.Header) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sent, d.header
}

// attempt makes one streamed request. The timeout is an idle limit: the
// longest wait for the response to start and between two chunks, so a
// long but healthy answer is never cut, while a stalled one is.
func (c *OpenAI) attempt(ctx context.Context, creq openai.ChatCompletionRequest, emit func(string)) (Response, *attemptError) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var idle atomic.Bool
	timer := time.AfterFunc(c.cfg.Timeout, func() {
		idle.Store(true)
		cancel()
	})
	defer timer.Stop()
	doer := &captureDoer{client: c.http, sampling: c.sampling()}
	oc := openai.DefaultConfig(c.cfg.APIKey)
	oc.BaseURL = c.baseURL
	oc.HTTPClient = doer
	oc.EmptyMessagesLimit = emptyMessagesLimit
	fail := func(err error) *attemptError {
		sent, header := doer.state()
		return &attemptError{
			err:      err,
			header:   header,
			local:    !sent,
			timedOut: idle.Load() && ctx.Err() == nil,
		}
	}

	stream, err := openai.NewClientWithConfig(oc).CreateChatCompletionStream(actx, creq)
	if err != nil {
		return Response{}, fail(err)
	}
	defer stream.Close()
	acc := accumulator{byIndex: map[int]int{}}
	for {
		chunk, err := stream.Recv()
		if err != nil {
			if acc.finish != "" {
				return acc.response(), nil
			}
			if errors.Is(err, io.EOF) {
				return Response{}, fail(errStreamCut)
			}
			var apiErr *openai.APIError
			if errors.As(err, &apiErr) {
				return Response{}, fail(err)
			}
			return Response{}, fail(fmt.Errorf("%w: %w", errStreamCut, err))
		}
		timer.Reset(c.cfg.Timeout)
		acc.add(chunk, emit)
	}
}

// accumulator assembles a streamed answer.
type accumulator struct {
	content strings.Builder
	calls   []ToolCall
	byIndex map[int]int
	finish  string
	usage   Usage
}

// add folds one chunk into the answer, passing new text to emit.
func (a *accumulator) add(chunk openai.ChatCompletionStreamResponse, emit func(string)) {
	if u := chunk.Usage; u != nil {
		a.usage = Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
		if u.PromptTokensDetails != nil {
			a.usage.CachedTokens = u.PromptTokensDetails.CachedTokens
			a.usage.CacheReported = true
		}
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.Delta.Content != "" {
			a.content.WriteString(ch.Delta.Content)
			emit(ch.Delta.Content)
		}
		for _, tc := range ch.Delta.ToolCalls {
			a.addCall(tc)
		}
		if ch.FinishReason != "" {
			a.finish = string(ch.FinishReason)
		}
	}
}

// addCall merges one tool call delta. Deltas are matched by index; servers
// that send no index get a new call per new id, else the last call grows.
func (a *accumulator) addCall(tc openai.ToolCall) {
	pos := -1
	switch {
	case tc.Index != nil:
		p, ok := a.byIndex[*tc.Index]
		if !ok {
			a.calls = append(a.calls, ToolCall{})
			p = len(a.calls) - 1
			a.byIndex[*tc.Index] = p
		}
		pos = p
	case tc.ID != "":
		for i, c := range a.calls {
			if c.ID == tc.ID {
				pos = i
			}
		}
	case len(a.calls) > 0:
		pos = len(a.calls) - 1
	}
	if pos < 0 {
		a.calls = append(a.calls, ToolCall{})
		pos = len(a.calls) - 1
	}
	call := &a.calls[pos]
	if tc.ID != "" {
		call.ID = tc.ID
	}
	if name := tc.Function.Name; name != "" && name != call.Name {
		call.Name += name
	}
	call.Arguments += tc.Function.Arguments
}

// response is the assembled answer.
func (a *accumulator) response() Response {
	calls := make([]ToolCall, len(a.calls))
	for i, c := range a.calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i+1)
		}
		if strings.TrimSpace(c.Arguments) == "" {
			c.Arguments = "{}"
		}
		calls[i] = c
	}
	if len(calls) == 0 {
		calls = nil
	}
	return Response{
		Content:      a.content.String(),
		ToolCalls:    calls,
		Usage:        a.usage,
		FinishReason: a.finish,
	}
}
