package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// sampling returns the request body fields the configuration sets:
// temperature and top_p, each only when configured.
func (c *OpenAI) sampling() map[string]float64 {
	out := map[string]float64{}
	if c.cfg.Temperature != nil {
		out["temperature"] = *c.cfg.Temperature
	}
	if c.cfg.TopP != nil {
		out["top_p"] = *c.cfg.TopP
	}
	return out
}

// withSampling writes fields into req's JSON body. go-openai leaves a zero
// temperature out of the body (its field is omitempty), which would turn a
// configured greedy temperature 0 into the server's default, so the
// fields are set here on the encoded body instead.
func withSampling(req *http.Request, fields map[string]float64) error {
	if len(fields) == 0 || req.Body == nil || req.Method != http.MethodPost {
		return nil
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return fmt.Errorf("provider: read request body: %w", err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(data, &body); err != nil {
		return fmt.Errorf("provider: request body: %w", err)
	}
	for k, v := range fields {
		if body[k], err = json.Marshal(v); err != nil {
			return fmt.Errorf("provider: %s: %w", k, err)
		}
	}
	if data, err = json.Marshal(body); err != nil {
		return fmt.Errorf("provider: request body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	req.ContentLength = int64(len(data))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return nil
}
