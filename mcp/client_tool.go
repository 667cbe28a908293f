package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tools"
	"github.com/kwsdev/kws/vault"
)

// resultLimit bounds the text of a result the model gets whole; a longer
// one goes to the vault and the model gets its first and last bytes.
const resultLimit = 32 << 10

// descLimit bounds a tool's description as the model sees it.
const descLimit = 2 << 10

// mcpTool is one MCP server tool as an agent tool.
type mcpTool struct {
	c      *conn
	name   string // the server's name for it
	desc   string
	schema []byte
}

// Name is mcp__SERVER__TOOL.
func (t *mcpTool) Name() string { return toolName(t.c.name, t.name) }

// Description is the server's description, bounded, naming the server.
func (t *mcpTool) Description() string {
	d := strings.TrimSpace(t.desc)
	if len(d) > descLimit {
		d = strings.ToValidUTF8(d[:descLimit], "") + "…"
	}
	if d == "" {
		d = t.name
	}
	return d + "\n\n(Tool " + t.name + " of the MCP server " + t.c.name + ".)"
}

// Schema is the server's input schema.
func (t *mcpTool) Schema() json.RawMessage { return t.schema }

// Access is Network: a server's tool may do anything, so it asks unless
// the config allows it, and no shell prefix allows it.
func (t *mcpTool) Access() tools.Access { return tools.Network }

// Run calls the tool; a failure of the server is a result the model
// reads, so that it can go on without it.
func (t *mcpTool) Run(ctx context.Context, env *tools.Env, args json.RawMessage) (tools.Result, error) {
	if len(args) > 0 && string(args) != "null" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(args, &obj); err != nil {
			return tools.Result{Text: t.Name() + ": the arguments are not a JSON object: " + err.Error(), IsError: true}, nil
		}
	}
	res, notice, err := t.c.call(ctx, t.name, args)
	if ce, ok := err.(callError); ok {
		return tools.Result{Text: ce.msg, IsError: true}, nil
	}
	if err != nil {
		return tools.Result{}, err
	}
	text := resultText(res)
	if notice != "" {
		text = "[kws: " + notice + "]\n" + text
	}
	return tools.Result{Text: bound(env, t.Name(), text), IsError: res.IsError}, nil
}

// resultText renders a result as text: text as it is, images, audio and
// binary resources as a line with their type and size (never their
// base64), text resources with their URI.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %s]", mimeOr(c.MIMEType), size(len(c.Data))))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s]", mimeOr(c.MIMEType), size(len(c.Data))))
		case *sdk.ResourceLink:
			line := fmt.Sprintf("[resource link: %s", c.URI)
			if c.Name != "" {
				line += " (" + c.Name + ")"
			}
			if c.MIMEType != "" {
				line += ", " + c.MIMEType
			}
			if c.Size != nil {
				line += ", " + size(int(*c.Size))
			}
			parts = append(parts, line+"]")
		case *sdk.EmbeddedResource:
			r := c.Resource
			if r == nil {
				continue
			}
			if r.Blob != nil {
				parts = append(parts, fmt.Sprintf("[resource %s: %s, %s]", r.URI, mimeOr(r.MIMEType), size(len(r.Blob))))
			} else {
				parts = append(parts, fmt.Sprintf("[resource %s, %s]\n%s", r.URI, mimeOr(r.MIMEType), r.Text))
			}
		default:
			parts = append(parts, fmt.Sprintf("[content of type %T]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 {
		return "(no content)"
	}
	return strings.Join(parts, "\n")
}

func mimeOr(m string) string {
	if m == "" {
		return "unknown type"
	}
	return m
}

// size is n bytes in a short human form.
func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB (%d bytes)", float64(n)/(1<<10), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// bound returns text whole when it is short; else the whole text goes to
// the vault and the model gets a note with its id, then its first and last
// lines and the notable ones between (diet.Compact), as shell output.
func bound(env *tools.Env, name, text string) string {
	if len(text) <= resultLimit {
		return text
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	if env == nil || env.Keep == nil {
		return fmt.Sprintf("[kws: the result is %d bytes; the whole could not be kept, here are its first %d]\n%s",
			len(text), resultLimit, cutUTF8(text, resultLimit))
	}
	id, err := env.Keep("tool:"+name, []byte(text))
	if err != nil {
		return fmt.Sprintf("[kws: the result is %d bytes; the whole could not be kept (%v), here are its first %d]\n%s",
			len(text), err, resultLimit, cutUTF8(text, resultLimit))
	}
	return fmt.Sprintf("[kws: the result is %d bytes, exact in the vault as %s; below: its first and last lines and the notable ones between]\n%s",
		len(text), id, diet.Compact(text, vault.Ref{Tag: vault.TagCtx, ID: id, Chars: len(text)}.String()))
}

// cutUTF8 is s cut to at most n bytes on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// checkTool checks that a server's tool can be offered to a model: its
// name makes a valid function name and its input schema is a valid JSON
// Schema for an object. It returns the schema as JSON.
func checkTool(server string, t *sdk.Tool) ([]byte, error) {
	full := toolName(server, t.Name)
	if t.Name == "" || len(full) > 64 || strings.IndexFunc(t.Name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		return nil, fmt.Errorf("the name %q cannot be a function name (%s: at most 64 letters, digits, _ or -)", t.Name, full)
	}
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("inputSchema is not a JSON object: %s", clip(string(raw)))
	}
	if obj["type"] != "object" {
		return nil, fmt.Errorf(`inputSchema's type is %v, not "object"`, obj["type"])
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("inputSchema is not a valid JSON Schema: %v", err)
	}
	// The draft a server names does not matter to the model; the
	// resolver only knows 2020-12.
	s.Schema = ""
	if _, err := s.Resolve(nil); err != nil {
		return nil, fmt.Errorf("inputSchema is not a valid JSON Schema: %v", err)
	}
	// The model needs no draft marker, and some providers refuse one.
	delete(obj, "$schema")
	return json.Marshal(obj)
}

// clip bounds a quoted value in an error.
func clip(s string) string {
	if len(s) > 120 {
		return cutUTF8(s, 120) + "…"
	}
	return s
}
