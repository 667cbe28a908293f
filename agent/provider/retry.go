package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kwsdev/kws/termsafe"
)

// failure is a classified attempt error: what to tell the caller and
// whether to try again.
type failure struct {
	err      error
	retry    bool
	after    time.Duration
	hasAfter bool
}

// serverError is an HTTP or in-stream error from the server, its message
// made safe to print (see clean).
type serverError struct {
	status int
	msg    string
	cause  error
}

// Error reports the status and the redacted message.
func (e *serverError) Error() string {
	if e.status == 0 {
		return "server error: " + e.msg
	}
	return fmt.Sprintf("HTTP %d: %s", e.status, e.msg)
}

// Unwrap returns go-openai's original error.
func (e *serverError) Unwrap() error { return e.cause }

// overflowPhrases are how OpenAI, vLLM, llama-server, Ollama and the
// gateways in front of other vendors say that the prompt is too long.
var overflowPhrases = []string{
	"context_length_exceeded",
	"maximum context length",
	"context window",
	"too many tokens",
	"context length",
	"context size",
	"exceed_context_size",
	"prompt is too long",
	"input is too long",
}

// classify turns the raw error of one attempt into the caller's error and
// a retry decision.
func (c *OpenAI) classify(ae *attemptError, model string) failure {
	if ae.local {
		return failure{err: fmt.Errorf("provider: cannot send the request for model %q: %w", model, ae.err)}
	}
	if ae.timedOut {
		return failure{retry: true, err: fmt.Errorf(
			"provider: %s went %s without sending anything (raise the timeout for model %q): %w: %w",
			c.baseURL, c.cfg.Timeout, model, context.DeadlineExceeded, ae.err)}
	}
	status, msg, ok := serverStatus(ae.err)
	if !ok {
		if isUnreachable(ae.err) {
			return failure{err: fmt.Errorf(
				"%w: cannot connect to %s (%v); start the server or fix KWS_BASE_URL",
				ErrUnreachable, c.baseURL, ae.err)}
		}
		return failure{retry: true, err: fmt.Errorf("provider: request to %s failed: %w", c.baseURL, ae.err)}
	}
	msg = c.clean(msg)
	se := &serverError{status: status, msg: msg, cause: ae.err}
	lower := strings.ToLower(msg)
	switch {
	case status != http.StatusTooManyRequests && containsAny(lower, overflowPhrases):
		return failure{err: fmt.Errorf(
			"%w (%v); shorten the conversation or choose a model with a larger window",
			ErrContextOverflow, se)}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		hint := "set KWS_API_KEY or OPENAI_API_KEY to a valid key"
		if c.cfg.APIKey == "" {
			hint = "no API key is set: set KWS_API_KEY or OPENAI_API_KEY"
		}
		return failure{err: fmt.Errorf("%w by %s (%v); %s", ErrUnauthorized, c.baseURL, se, hint)}
	case status == http.StatusNotFound || (status < 500 && isModelMissing(lower)):
		return failure{err: fmt.Errorf(
			"%w: %s does not serve model %q (%v); check KWS_MODEL and KWS_BASE_URL (GET %s/models lists the served models)",
			ErrModelNotFound, c.baseURL, model, se, c.baseURL)}
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500 || status == 0:
		after, has := retryAfter(ae.header, time.Now())
		return failure{retry: true, after: after, hasAfter: has,
			err: fmt.Errorf("provider: %s answered %w", c.baseURL, se)}
	default:
		return failure{err: fmt.Errorf("provider: %s rejected the request (%w); the request is not retried", c.baseURL, se)}
	}
}

// serverStatus extracts the HTTP status and message of an error the server
// sent. ok is false for transport errors; an error inside a stream has
// status 0.
func serverStatus(err error) (status int, msg string, ok bool) {
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode, bodyMessage(reqErr.Body, reqErr.HTTPStatus), true
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if code, ok := apiErr.Code.(string); ok && code != "" && !strings.Contains(msg, code) {
			msg += " [" + code + "]"
		}
		if apiErr.Type != "" && !strings.Contains(msg, apiErr.Type) {
			msg += " [" + apiErr.Type + "]"
		}
		return apiErr.HTTPStatusCode, msg, true
	}
	return 0, "", false
}

// bodyMessage is the readable message of an error body that is not in
// OpenAI's shape, such as Ollama's {"error":"…"} or plain text.
func bodyMessage(body []byte, status string) string {
	var shaped struct {
		Error   any    `json:"error"`
		Message string `json:"message"`
		Detail  any    `json:"detail"`
	}
	if json.Unmarshal(body, &shaped) == nil {
		for _, v := range []any{shaped.Error, shaped.Message, shaped.Detail} {
			switch v := v.(type) {
			case string:
				if v != "" {
					return v
				}
			case map[string]any:
				if m, ok := v["message"].(string); ok && m != "" {
					return m
				}
			}
		}
	}
	if s := strings.TrimSpace(string(body)); s != "" {
		return s
	}
	return status
}

// isUnreachable reports connection refused, DNS failures and other dial
// errors, which retrying soon will not fix.
func isUnreachable(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// isModelMissing reports an error message about an unknown model.
func isModelMissing(lower string) bool {
	if strings.Contains(lower, "model_not_found") {
		return true
	}
	return strings.Contains(lower, "model") &&
		(strings.Contains(lower, "not found") || strings.Contains(lower, "does not exist"))
}

// maxMessageRunes bounds the server message kept in an error.
const maxMessageRunes = 500

// clean makes a server message safe to print on a terminal and to log: one
// line without escape sequences or control characters (a hostile server
// cannot retitle the window, clear the screen or write the clipboard), the
// API key removed, at most maxMessageRunes runes. Escapes are stripped
// before the key is looked for, so a key split by an escape sequence is
// still found. A key shorter than minKeyLiteral (a placeholder such as
// "x" for a local server) is not looked for: it would cut words apart.
func (c *OpenAI) clean(msg string) string {
	msg = strings.TrimSpace(termsafe.OneLine(msg))
	if len(c.cfg.APIKey) >= minKeyLiteral {
		msg = strings.ReplaceAll(msg, c.cfg.APIKey, "[redacted]")
	}
	if r := []rune(msg); len(r) > maxMessageRunes {
		msg = string(r[:maxMessageRunes-1]) + "…"
	}
	return msg
}

// minKeyLiteral is the shortest API key clean removes as a literal.
const minKeyLiteral = 8

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Retry timing.
const (
	backoffBase   = 500 * time.Millisecond
	backoffCap    = 20 * time.Second
	retryAfterCap = 60 * time.Second
)

// backoff is the wait after the given failed attempt (1-based): a uniformly
// random duration below base·2^(attempt-1), capped ("full jitter").
func backoff(attempt int) time.Duration {
	ceiling := backoffCap
	if attempt < 16 {
		ceiling = min(backoffCap, backoffBase<<(attempt-1))
	}
	return rand.N(ceiling)
}

// retryAfter reads the server's requested wait from Retry-After (seconds or
// an HTTP date) or OpenAI's retry-after-ms, capped at a minute. ok is false
// when the server asked for nothing usable.
func retryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			if ms > float64(retryAfterCap.Milliseconds()) {
				return retryAfterCap, true
			}
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > retryAfterCap.Seconds() {
			return retryAfterCap, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return capWait(t.Sub(now)), true
	}
	return 0, false
}

// capWait clamps d to [0, retryAfterCap].
func capWait(d time.Duration) time.Duration {
	return max(0, min(d, retryAfterCap))
}
