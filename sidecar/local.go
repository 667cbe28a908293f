package sidecar

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
)

// Local answers the tasks with a loaded GGUF model. Where the model's
// answer cannot be used (a route that is not JSON, an empty summary) it
// falls back to the heuristic engine, so a small or confused model never
// breaks a task; the fallback is named in the result's reason.
type Local struct {
	model Model
	path  string
	tpl   *Template
	h     Heuristic
	tel   *Telemetry
	name  string
}

// NewLocal wraps a loaded model; path is its file, for Info. Each model
// call is recorded in tel (nil records nothing).
func NewLocal(m Model, path string, tel *Telemetry, log *slog.Logger) *Local {
	l := &Local{model: m, path: path, tpl: NewTemplate(m.Metadata(), log), tel: tel}
	l.name = l.Info().Name
	return l
}

// Model returns the loaded model.
func (l *Local) Model() Model { return l.model }

// Template returns the chat template the engine formats prompts with.
func (l *Local) Template() *Template { return l.tpl }

// ask runs one chat exchange greedily for task and returns the answer
// text.
func (l *Local) ask(ctx context.Context, task, system, user string, maxTokens int) (string, error) {
	prompt := l.tpl.Render([]Message{{Role: "system", Content: system}, {Role: "user", Content: user}})
	start := time.Now()
	c, err := l.model.Complete(ctx, prompt, CompleteOptions{MaxTokens: maxTokens, Stop: chatMLStops})
	rec := Record{Time: start, Task: task, Model: l.name, PromptChars: len(prompt), ResponseChars: len(c.Text),
		PromptTokens: c.PromptTokens, CompletionTokens: c.CompletionTokens, LatencyMs: msSince(start)}
	if c.GenSeconds > 0 {
		rec.TokensPerSecond = float64(c.CompletionTokens) / c.GenSeconds
	}
	if err != nil {
		rec.Error = err.Error()
	}
	l.tel.Write(rec)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(c.Text), nil
}

// msSince is the time since start in milliseconds.
func msSince(start time.Time) float64 { return float64(time.Since(start)) / float64(time.Millisecond) }

// Route asks the model for {"direct": bool, "confidence": x}.
func (l *Local) Route(ctx context.Context, turn string) (Route, error) {
	ans, err := l.ask(ctx, "route", `Decide if the user's message can be answered directly (no files, no commands) or needs tool work. Answer only JSON: {"direct": true|false, "confidence": 0..1}.`, turn, 32)
	if err != nil {
		return Route{}, err
	}
	var r Route
	if i, j := strings.Index(ans, "{"), strings.LastIndex(ans, "}"); i >= 0 && j > i && json.Unmarshal([]byte(ans[i:j+1]), &r) == nil && r.Confidence > 0 {
		r.Reason = "model"
		return r, nil
	}
	r, _ = l.h.Route(ctx, turn)
	r.Reason = "heuristic (the model's answer was not JSON): " + r.Reason
	return r, nil
}

// Summarize asks the model for a two-sentence summary.
func (l *Local) Summarize(ctx context.Context, kind, text string) (string, error) {
	ans, err := l.ask(ctx, "summarize", "Summarize this "+kind+" in at most two sentences: what it is, and any error or result.", clipRunes(text, 6000), 96)
	if err != nil || strings.TrimSpace(ans) != "" {
		return ans, err
	}
	return l.h.Summarize(ctx, kind, text)
}

// ExtractMemories asks for lines "kind: text" naming durable facts.
func (l *Local) ExtractMemories(ctx context.Context, text string) ([]Candidate, error) {
	ans, err := l.ask(ctx, "extract", "List durable facts worth remembering from the message, one per line as `kind: text`, kind one of remember, preference, decision, correction, rename, path. Answer `none` if there are none.", clipRunes(text, 4000), 128)
	if err != nil {
		return nil, err
	}
	var out []Candidate
	for _, line := range strings.Split(ans, "\n") {
		kind, body, ok := strings.Cut(strings.TrimSpace(strings.TrimLeft(line, "-* ")), ":")
		kind = strings.ToLower(strings.TrimSpace(kind))
		if !ok || strings.TrimSpace(body) == "" || !validKind[kind] {
			continue
		}
		out = append(out, Candidate{Text: strings.TrimSpace(body), Kind: kind, Confidence: 0.6})
	}
	return out, nil
}

// validKind lists the memory kinds a model may propose.
var validKind = map[string]bool{"remember": true, "preference": true, "decision": true, "correction": true, "rename": true, "path": true}

// Critique asks the model for a one-paragraph risk note, after the
// heuristic's own note so a known risk is never missed.
func (l *Local) Critique(ctx context.Context, tool, preview string) (string, error) {
	base, _ := l.h.Critique(ctx, tool, preview)
	ans, err := l.ask(ctx, "critique", "In one short paragraph, say what could go wrong if this "+tool+" call runs. Say `no notable risk` if none.", clipRunes(preview, 4000), 96)
	if err != nil {
		return base, err
	}
	return strings.TrimSpace(strings.Join([]string{base, ans}, " ")), nil
}

// Embed embeds each text with the model.
func (l *Local) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		start := time.Now()
		v, err := l.model.Embed(ctx, t)
		rec := Record{Time: start, Task: "embed", Model: l.name, PromptChars: len(t), ResponseChars: 4 * len(v), LatencyMs: msSince(start)}
		if err != nil {
			rec.Error = err.Error()
		}
		l.tel.Write(rec)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Info describes the model.
func (l *Local) Info() Info {
	meta := l.model.Metadata()
	name := meta["general.name"]
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(l.path), filepath.Ext(l.path))
	}
	keep := map[string]string{}
	for _, k := range []string{"general.architecture", "general.name", "general.parameter_count", "general.file_type"} {
		if v, ok := meta[k]; ok {
			keep[k] = v
		}
	}
	arch := meta["general.architecture"]
	for _, k := range []string{"context_length", "embedding_length", "block_count", "attention.head_count"} {
		if v, ok := meta[arch+"."+k]; ok {
			keep[arch+"."+k] = v
		}
	}
	if chatML, why := l.tpl.ChatML(); chatML {
		keep["chat_template"] = "ChatML (" + why + ")"
	} else {
		keep["chat_template"] = "from the model"
	}
	dims := 0
	if v, ok := meta[arch+".embedding_length"]; ok {
		_ = json.Unmarshal([]byte(v), &dims)
	}
	return Info{Name: name, Path: l.path, Dims: dims, Meta: keep}
}
