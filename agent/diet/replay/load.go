// Package replay runs recorded conversations through the context diet: a
// model call before every assistant message and one after the last, each
// prompt dieted, with per-file figures.
package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kwsdev/kws/agent/diet"
)

// Conversation is one loaded transcript.
type Conversation struct {
	Name     string
	Messages []diet.Message
}

// rawMessage covers SWE-agent history entries and OpenAI chat messages.
type rawMessage struct {
	Role        string          `json:"role"`
	Content     json.RawMessage `json:"content"`
	MessageType string          `json:"message_type"`
	IsDemo      bool            `json:"is_demo"`
	ToolCalls   json.RawMessage `json:"tool_calls"`
	ToolCallID  string          `json:"tool_call_id"`
	Action      string          `json:"action"`
}

// MaxFileBytes bounds a replay file; SWE-agent trajectories are a few MB.
const MaxFileBytes = 256 << 20

// Load reads a SWE-agent .traj file (its "history"), an OpenAI chat JSON
// file (an object with "messages", or an array of messages) or JSONL (one
// message, or one object with "messages", per line), of at most
// MaxFileBytes.
func Load(path string) (Conversation, error) {
	data, err := readBounded(path, MaxFileBytes)
	if err != nil {
		return Conversation{}, fmt.Errorf("replay: %w", err)
	}
	conv := Conversation{Name: filepath.Base(path)}
	raws, err := decodeMessages(data)
	if err != nil {
		return conv, fmt.Errorf("replay: %s: %w", path, err)
	}
	if len(raws) == 0 {
		return conv, fmt.Errorf("replay: %s: no messages (want a .traj \"history\", a \"messages\" array or JSONL messages)", path)
	}
	sawHuman := false
	var src sources
	for i, r := range raws {
		m, err := convert(r, &sawHuman)
		if err != nil {
			return conv, fmt.Errorf("replay: %s: message %d: %w", path, i, err)
		}
		m.Source = src.next(r, m)
		conv.Messages = append(conv.Messages, m)
	}
	return conv, nil
}

// readBounded reads the file at path, of at most limit bytes. A regular
// file that is larger fails before it is read; any other file (a device,
// a pipe) fails as soon as its first non-blank byte cannot start JSON or
// once more than limit bytes came, so /dev/zero is never read without end.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	tooBig := fmt.Errorf("%s: larger than %d MiB, the most a replay file may hold", path, limit>>20)
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder; give the transcript files", path)
	case fi.Mode().IsRegular() && fi.Size() > limit:
		return nil, tooBig
	}
	r := bufio.NewReaderSize(io.LimitReader(f, limit+1), 64<<10)
	blank := int64(0)
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if c == '{' || c == '[' {
			_ = r.UnreadByte()
			break
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return nil, fmt.Errorf("%s: not JSON: starts with byte %q (want a .traj, a chat JSON file or JSONL)", path, c)
		}
		blank++
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if blank+int64(len(data)) > limit {
		return nil, tooBig
	}
	return data, nil
}

func decodeMessages(data []byte) ([]rawMessage, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("empty file")
	}
	if trimmed[0] == '[' {
		var raws []rawMessage
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, fmt.Errorf("not a JSON array of messages: %w", err)
		}
		return raws, nil
	}
	var doc struct {
		History  []rawMessage `json:"history"`
		Messages []rawMessage `json:"messages"`
		Role     string       `json:"role"`
	}
	if err := json.Unmarshal(trimmed, &doc); err == nil && doc.Role == "" {
		if len(doc.History) > 0 {
			return doc.History, nil
		}
		return doc.Messages, nil
	}
	// JSONL: one message, or one {"messages": [...]}, per line.
	var out []rawMessage
	sc := bufio.NewScanner(bytes.NewReader(trimmed))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var one struct {
			rawMessage
			Messages []rawMessage `json:"messages"`
		}
		if err := json.Unmarshal(line, &one); err != nil {
			return nil, fmt.Errorf("line %d: not JSON: %w", n, err)
		}
		if len(one.Messages) > 0 {
			out = append(out, one.Messages...)
		} else if one.Role != "" {
			out = append(out, one.rawMessage)
		} else {
			return nil, fmt.Errorf("line %d: neither a message nor an object with \"messages\"", n)
		}
	}
	return out, sc.Err()
}

// convert turns a raw message into a diet message. The first non-demo user
// message is the human turn; later user messages in a SWE-agent history
// are observations of the environment.
func convert(r rawMessage, sawHuman *bool) (diet.Message, error) {
	if r.Role == "" {
		return diet.Message{}, fmt.Errorf("missing role")
	}
	text, err := contentText(r.Content)
	if err != nil {
		return diet.Message{}, err
	}
	if len(r.ToolCalls) > 0 && string(r.ToolCalls) != "null" && string(r.ToolCalls) != "[]" {
		var compact bytes.Buffer
		if json.Compact(&compact, r.ToolCalls) == nil {
			if text != "" {
				text += "\n"
			}
			text += compact.String()
		}
	}
	m := diet.Message{Role: r.Role, Content: text}
	switch {
	case r.IsDemo || r.MessageType == "demonstration":
		m.Kind = "demo"
	case r.MessageType == "observation" || r.Role == "user" && *sawHuman:
		m.Kind = "observation"
	case r.Role == "user":
		m.Kind = "user"
		*sawHuman = true
	}
	return m, nil
}

// contentText accepts a string, null, or an array of parts with "text".
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor an array of text parts")
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// Concat joins conversations into one long session named name. Only the
// first message of the result can be the pinned system prompt.
func Concat(name string, convs []Conversation) Conversation {
	out := Conversation{Name: name}
	for _, c := range convs {
		out.Messages = append(out.Messages, c.Messages...)
	}
	return out
}
