// Package providertest is a scripted OpenAI-compatible chat completions
// server for tests. Each request to /v1/chat/completions consumes the next
// Step, which says what to answer: streamed text, tool calls, an HTTP error,
// a delay, or a stream cut off in the middle. Like the strict servers, it
// refuses (400, no step consumed) a request in which an earlier tool call's
// arguments are not a JSON object.
package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwsdev/kws/agent/provider"
)

// Model is the model id the server lists on GET /v1/models and reports in
// its answers when a request names none.
const Model = "providertest-model"

// RecordedRequest is one chat completions request as the server received it.
type RecordedRequest struct {
	// Model is the requested model.
	Model string
	// Messages are the decoded messages; tool calls are flattened into
	// provider.ToolCall values.
	Messages []provider.Message
	// Tools are the decoded function tools offered to the model.
	Tools []provider.ToolSpec
	// Stream reports whether the request asked for a streamed answer.
	Stream bool
	// IncludeUsage reports whether stream_options.include_usage was set.
	IncludeUsage bool
	// MaxTokens is max_completion_tokens, or max_tokens when that is unset.
	MaxTokens int
	// Temperature and TopP are the request's temperature and top_p; nil
	// when the body leaves them out.
	Temperature, TopP *float64
	// Body is the raw JSON body.
	Body json.RawMessage
	// Header holds the request headers without Authorization.
	Header http.Header
	// Bearer reports whether an "Authorization: Bearer …" header was sent;
	// its value is never recorded.
	Bearer bool
}

// Server is a scripted OpenAI-compatible server listening on 127.0.0.1.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	steps    []Step
	requests []RecordedRequest
	// arrived is closed and replaced each time a request is recorded.
	arrived chan struct{}
}

// New starts a server that answers chat completions requests with steps, in
// order, and closes it when the test ends.
func New(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s := &Server{t: t, steps: append([]Step(nil), steps...), arrived: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	t.Cleanup(s.srv.Close)
	return s
}

// URL returns the base URL of the API, ending in /v1.
func (s *Server) URL() string {
	return s.srv.URL + "/v1"
}

// Push appends steps to the script.
func (s *Server) Push(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// WaitRequests waits until at least n chat completions requests have
// arrived, and fails the test when that takes longer than limit (which
// only bounds a hang: a loaded machine may be slow).
func (s *Server) WaitRequests(n int, limit time.Duration) {
	s.t.Helper()
	timeout := time.After(limit)
	for {
		s.mu.Lock()
		got, arrived := len(s.requests), s.arrived
		s.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-arrived:
		case <-timeout:
			s.t.Fatalf("providertest: %d of %d requests arrived within %v", got, n, limit)
		}
	}
}

// Requests returns every chat completions request received so far, in order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{
			"object": "list",
			"data": []map[string]any{
				{"id": Model, "object": "model", "created": 0, "owned_by": "providertest"},
			},
		})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r)
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("providertest: no route for %s %s", r.Method, r.URL.Path))
	}
}

// chat records the request, takes the next step and answers with it.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("providertest: reading body: %v", err))
		return
	}
	rec, err := decodeRequest(body, r.Header)
	if err != nil {
		s.t.Errorf("providertest: request body is not valid chat completions JSON: %v", err)
		writeError(w, http.StatusBadRequest, fmt.Sprintf("providertest: bad JSON body: %v", err))
		return
	}
	if err := checkArguments(rec.Messages); err != nil {
		// Strict servers (vLLM, llama-server) parse the arguments of every
		// earlier tool call and refuse the request when one is not JSON.
		writeError(w, http.StatusBadRequest, "providertest: "+err.Error())
		return
	}
	if err := checkToolResults(rec.Messages); err != nil {
		// OpenAI refuses a tool message that answers no call of the
		// assistant message before it, and a call left unanswered.
		writeError(w, http.StatusBadRequest, "providertest: "+err.Error())
		return
	}

	s.mu.Lock()
	s.requests = append(s.requests, rec)
	close(s.arrived)
	s.arrived = make(chan struct{})
	n := len(s.requests)
	var step Step
	ok := len(s.steps) > 0
	if ok {
		step = s.steps[0]
		s.steps = s.steps[1:]
	}
	s.mu.Unlock()

	if !ok {
		writeError(w, http.StatusInternalServerError,
			fmt.Sprintf("providertest: no scripted step left for request %d (script one with New or Push)", n))
		return
	}
	if step.Match != nil {
		if err := step.Match(rec); err != nil {
			s.t.Errorf("providertest: request %d does not match its step: %v", n, err)
		}
	}
	if step.Reply != nil {
		step = step.Reply(rec)
	}
	step.respond(w, r, rec, n)
}

// decodeRequest turns a chat completions body into a RecordedRequest.
func decodeRequest(body []byte, h http.Header) (RecordedRequest, error) {
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return RecordedRequest{}, err
	}
	rec := RecordedRequest{
		Model:       wr.Model,
		Stream:      wr.Stream,
		MaxTokens:   wr.MaxCompletionTokens,
		Temperature: wr.Temperature,
		TopP:        wr.TopP,
		Body:        json.RawMessage(append([]byte(nil), body...)),
		Header:      h.Clone(),
	}
	if rec.MaxTokens == 0 {
		rec.MaxTokens = wr.MaxTokens
	}
	if wr.StreamOptions != nil {
		rec.IncludeUsage = wr.StreamOptions.IncludeUsage
	}
	auth := rec.Header.Get("Authorization")
	rec.Bearer = strings.HasPrefix(auth, "Bearer ") && strings.TrimSpace(strings.TrimPrefix(auth, "Bearer ")) != ""
	rec.Header.Del("Authorization")
	for _, m := range wr.Messages {
		msg := provider.Message{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, Content: m.text()}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, provider.ToolCall{
				ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments,
			})
		}
		rec.Messages = append(rec.Messages, msg)
	}
	for _, tool := range wr.Tools {
		rec.Tools = append(rec.Tools, provider.ToolSpec{
			Name:        tool.Function.Name,
			Description: tool.Function.Description,
			Parameters:  tool.Function.Parameters,
		})
	}
	return rec, nil
}

// checkArguments reports the first tool call whose arguments are not a
// JSON object.
func checkArguments(msgs []provider.Message) error {
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.Arguments), &obj); err != nil || obj == nil {
				return fmt.Errorf("messages[%d]: tool call %q (%s): arguments are not a JSON object: %.80q", i, tc.ID, tc.Name, tc.Arguments)
			}
		}
	}
	return nil
}

// checkToolResults reports the first tool message that answers no call of
// the assistant message it follows (with only tool messages between), and
// the first call that no such tool message answers.
func checkToolResults(msgs []provider.Message) error {
	open := map[string]bool{}
	for i, m := range msgs {
		if m.Role == "tool" {
			if !open[m.ToolCallID] {
				return fmt.Errorf("messages[%d]: tool result for %q, which the assistant message before it did not call", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		}
		for id := range open {
			return fmt.Errorf("messages[%d]: tool call %q has no result before it", i, id)
		}
		for _, tc := range m.ToolCalls {
			open[tc.ID] = true
		}
	}
	return nil
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes an error in OpenAI's {"error":{…}} shape.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{
		"error": map[string]any{"message": msg, "type": "providertest_error", "code": nil},
	})
}

// wireRequest is the part of a chat completions body the server reads.
type wireRequest struct {
	Model       string        `json:"model"`
	Temperature *float64      `json:"temperature"`
	TopP        *float64      `json:"top_p"`
	Messages    []wireMessage `json:"messages"`
	Tools       []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int `json:"max_tokens"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
}

// wireMessage is one message of a chat completions body.
type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// text returns the message content, joining the text parts of an array.
func (m wireMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
