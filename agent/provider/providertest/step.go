package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/kwsdev/kws/agent/provider"
)

// Step scripts the answer to one chat completions request.
type Step struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// ErrorBody is the JSON body of a non-200 answer; a generic OpenAI-shaped
	// error is sent when it is empty.
	ErrorBody string
	// Text is the answer text, streamed in chunks of ChunkSize runes.
	Text string
	// ToolCalls are streamed the way OpenAI does: a first delta with index,
	// id, type, name and empty arguments, then argument fragments.
	ToolCalls []provider.ToolCall
	// Usage is sent in a final chunk when the request asked for
	// stream_options.include_usage, and always in a non-streamed answer.
	Usage *provider.Usage
	// ChunkSize is the number of runes per streamed piece; 0 means 8.
	ChunkSize int
	// CutAfter, when positive, closes the connection abruptly after that
	// many SSE chunks, without [DONE].
	CutAfter int
	// Delay is waited before answering (or until the client gives up).
	Delay time.Duration
	// Hold, when set, holds the answer until it is closed (or the client
	// gives up): a test decides when a slow model answers.
	Hold <-chan struct{}
	// ChunkDelay is waited before each streamed chunk after the first.
	ChunkDelay time.Duration
	// Match, when set, checks the request; an error is reported with
	// t.Errorf.
	Match func(RecordedRequest) error
	// Reply, when set, makes the answer from the request, after Match: a
	// model that acts on what it was sent, such as a ref it pages in.
	Reply func(RecordedRequest) Step
}

// TextStep answers with streamed text.
func TextStep(s string) Step {
	return Step{Text: s}
}

// ToolStep answers with the given tool calls.
func ToolStep(calls ...provider.ToolCall) Step {
	return Step{ToolCalls: calls}
}

// respond writes the scripted answer for request number n.
func (st Step) respond(w http.ResponseWriter, r *http.Request, rec RecordedRequest, n int) {
	if st.Delay > 0 {
		timer := time.NewTimer(st.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		}
	}
	if st.Hold != nil {
		select {
		case <-st.Hold:
		case <-r.Context().Done():
			return
		}
	}
	if st.RetryAfter != "" {
		w.Header().Set("Retry-After", st.RetryAfter)
	}
	status := st.Status
	if status == 0 {
		status = http.StatusOK
	}
	if status != http.StatusOK {
		if st.ErrorBody == "" {
			writeError(w, status, fmt.Sprintf("providertest: scripted status %d", status))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(st.ErrorBody))
		return
	}
	model := rec.Model
	if model == "" {
		model = Model
	}
	id := fmt.Sprintf("chatcmpl-providertest-%d", n)
	if !rec.Stream {
		writeJSON(w, http.StatusOK, st.completion(id, model))
		return
	}
	st.stream(w, st.chunks(id, model, rec.IncludeUsage))
}

// finishReason is "tool_calls" when the step calls tools, else "stop".
func (st Step) finishReason() string {
	if len(st.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// completion is the non-streamed answer.
func (st Step) completion(id, model string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": st.Text}
	if len(st.ToolCalls) > 0 {
		if st.Text == "" {
			msg["content"] = nil
		}
		var calls []map[string]any
		for _, tc := range st.ToolCalls {
			calls = append(calls, map[string]any{
				"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments},
			})
		}
		msg["tool_calls"] = calls
	}
	var usage provider.Usage
	if st.Usage != nil {
		usage = *st.Usage
	}
	return map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": st.finishReason()}},
		"usage":   wireUsage(usage),
	}
}

// chunks builds the JSON payloads of the streamed answer, [DONE] excluded.
func (st Step) chunks(id, model string, includeUsage bool) [][]byte {
	size := st.ChunkSize
	if size <= 0 {
		size = 8
	}
	created := time.Now().Unix()
	var out [][]byte
	add := func(delta map[string]any, finish any) {
		out = append(out, mustJSON(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}},
		}))
	}
	add(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, piece := range splitRunes(st.Text, size) {
		add(map[string]any{"content": piece}, nil)
	}
	for i, tc := range st.ToolCalls {
		add(map[string]any{"tool_calls": []map[string]any{{
			"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""},
		}}}, nil)
		for _, frag := range splitRunes(tc.Arguments, size) {
			add(map[string]any{"tool_calls": []map[string]any{{
				"index": i, "function": map[string]any{"arguments": frag},
			}}}, nil)
		}
	}
	add(map[string]any{}, st.finishReason())
	if includeUsage && st.Usage != nil {
		out = append(out, mustJSON(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{}, "usage": wireUsage(*st.Usage),
		}))
	}
	return out
}

// stream writes the chunks as server-sent events, cutting the connection
// when the step says so.
func (st Step) stream(w http.ResponseWriter, chunks [][]byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for i, c := range chunks {
		if st.CutAfter > 0 && i == st.CutAfter {
			break
		}
		if i > 0 && st.ChunkDelay > 0 {
			time.Sleep(st.ChunkDelay)
		}
		fmt.Fprintf(w, "data: %s\n\n", c)
		if flusher != nil {
			flusher.Flush()
		}
	}
	if st.CutAfter > 0 {
		// Aborting the handler closes the connection without ending the
		// chunked body, as a dropped connection would.
		panic(http.ErrAbortHandler)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

// splitRunes splits s into pieces of at most n runes.
func splitRunes(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

// wireUsage is the OpenAI usage object for u. It reports cached tokens
// (usage.prompt_tokens_details.cached_tokens) when u has any or says they
// are reported; otherwise it leaves the details out, as servers without a
// prompt cache do.
func wireUsage(u provider.Usage) map[string]any {
	out := map[string]any{
		"prompt_tokens":     u.PromptTokens,
		"completion_tokens": u.CompletionTokens,
		"total_tokens":      u.PromptTokens + u.CompletionTokens,
	}
	if u.CachedTokens > 0 || u.CacheReported {
		out["prompt_tokens_details"] = map[string]any{"cached_tokens": u.CachedTokens}
	}
	return out
}

// mustJSON marshals values built from maps, strings and numbers, which
// cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("providertest: marshal: %v", err))
	}
	return b
}
