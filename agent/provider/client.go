package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Default client settings.
const (
	// DefaultTimeout is the default idle limit of one attempt: the longest
	// wait for the response to start and between two streamed chunks.
	DefaultTimeout = 120 * time.Second
	// DefaultMaxRetries is how many times a failed attempt is retried.
	DefaultMaxRetries = 4
)

// Config configures an OpenAI-compatible client.
type Config struct {
	// BaseURL is the API root, such as https://api.openai.com/v1 or
	// http://localhost:11434/v1.
	BaseURL string
	// APIKey is sent as a bearer token when set. It is never logged.
	APIKey string
	// Model is used when a Request names none.
	Model string
	// Timeout is the idle limit of each attempt (first byte, and between
	// chunks); 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt is retried; 0 means
	// DefaultMaxRetries and a negative value disables retries.
	MaxRetries int
	// NativeTools sends tools as the API's tools parameter. When false the
	// tools are described in the system message and calls are parsed from
	// fenced blocks in the answer (see ToolProtocolPrompt).
	NativeTools bool
	// Temperature and TopP, when set, are sent as the request's
	// temperature and top_p (zero included); nil leaves them out, so the
	// server uses its own defaults.
	Temperature, TopP *float64
	// HTTPClient sends the requests; nil means a plain http.Client.
	HTTPClient *http.Client
	// Sleep waits between attempts; nil means a timer that stops when the
	// context ends. Tests set it to record the waits.
	Sleep func(time.Duration)
}

// String describes the configuration without the API key.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("provider.Config{BaseURL: %q, Model: %q, APIKey: %s, NativeTools: %t}",
		c.BaseURL, c.Model, key, c.NativeTools)
}

// GoString is String, so that %#v does not print the API key either.
func (c Config) GoString() string {
	return c.String()
}

// OpenAI is a Client for any OpenAI-compatible chat completions API. It is
// safe for concurrent use.
type OpenAI struct {
	cfg     Config
	baseURL string
	http    *http.Client
}

var _ Client = (*OpenAI)(nil)

// New checks cfg, fills in the defaults and returns a client.
func New(cfg Config) (*OpenAI, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		return nil, errors.New("provider: no base URL configured: set KWS_BASE_URL (for example https://api.openai.com/v1 or http://localhost:11434/v1)")
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("provider: base URL %q is not a URL: %w", base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("provider: base URL %q must start with http:// or https:// and name a host", base)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &OpenAI{cfg: cfg, baseURL: base, http: hc}, nil
}

// Chat streams one completion, retrying transient failures. In text-protocol
// mode (Config.NativeTools false) the deltas carry the model's raw text,
// fenced tool blocks included, while Response.Content has them removed and
// Response.ToolCalls holds the parsed calls.
func (c *OpenAI) Chat(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return Response{}, errors.New("provider: no model given: set KWS_MODEL or Request.Model")
	}
	creq, err := c.buildRequest(req, model)
	if err != nil {
		return Response{}, err
	}
	streamed := false
	emit := func(s string) {
		streamed = true
		if onDelta != nil {
			onDelta(Delta{Text: s})
		}
	}
	maxAttempts := c.cfg.MaxRetries + 1
	for attempt := 1; ; attempt++ {
		if streamed {
			streamed = false
			if onDelta != nil {
				onDelta(Delta{Restart: true})
			}
		}
		res, aerr := c.attempt(ctx, creq, emit)
		if aerr == nil {
			res.Attempts = attempt
			if !c.cfg.NativeTools && len(req.Tools) > 0 {
				res = withTextToolCalls(res)
			}
			return res, nil
		}
		if ctx.Err() != nil {
			return Response{Attempts: attempt}, fmt.Errorf("provider: chat with %s stopped: %w", model, ctx.Err())
		}
		f := c.classify(aerr, model)
		if !f.retry {
			return Response{Attempts: attempt}, f.err
		}
		if attempt >= maxAttempts {
			return Response{Attempts: attempt}, fmt.Errorf("provider: giving up after %d attempts: %w", attempt, f.err)
		}
		wait := f.after
		if !f.hasAfter {
			wait = backoff(attempt)
		}
		if onDelta != nil {
			onDelta(Delta{Retry: &Retry{Attempt: attempt + 1, Max: maxAttempts, Wait: wait, Reason: f.err.Error()}})
		}
		if err := c.sleep(ctx, wait); err != nil {
			return Response{Attempts: attempt}, fmt.Errorf("provider: chat with %s stopped while waiting to retry: %w", model, err)
		}
	}
}

// withTextToolCalls moves fenced tool blocks from the content into
// ToolCalls.
func withTextToolCalls(res Response) Response {
	calls, rest := ParseTextToolCalls(res.Content)
	if len(calls) == 0 {
		return res
	}
	res.Content = rest
	res.ToolCalls = append(res.ToolCalls, calls...)
	res.FinishReason = "tool_calls"
	return res
}

// sleep waits d, or until ctx ends.
func (c *OpenAI) sleep(ctx context.Context, d time.Duration) error {
	if c.cfg.Sleep != nil {
		c.cfg.Sleep(d)
		return ctx.Err()
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
