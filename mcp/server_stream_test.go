package mcp

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestServeStreamAnswersBadLines: over the stdio transport, after
// initialize, a line that is not JSON gets a parse error (-32700) and one
// that is JSON but no JSON-RPC message an invalid request error (-32600),
// both with id null, and the requests after each are still answered.
func TestServeStreamAnswersBadLines(t *testing.T) {
	f := newFixture(t)
	inW, outR, served := serveOverPipes(f)
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, MaxMessage)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	next := func() answer {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("the server's output ended: %v", lines.Err())
		}
		var a answer
		if err := json.Unmarshal(lines.Bytes(), &a); err != nil {
			t.Fatalf("answer %q: %v", lines.Text(), err)
		}
		return a
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if a := next(); string(a.ID) != "1" || a.Error != nil {
		t.Fatalf("initialize: %+v", a)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range []struct {
		line string
		code int
	}{
		{"garbage", -32700},
		{`{"jsonrpc":"2.0","id":`, -32700},
		{`{"hello":"world"}`, -32600},
		{`42`, -32600},
	} {
		send(c.line)
		a := next()
		if a.Error == nil || a.Error.Code != c.code || string(a.ID) != "null" {
			t.Fatalf("%q: answer %+v, want error %d with id null", c.line, a, c.code)
		}
		id := json.RawMessage(strings.Repeat("9", i+2))
		send(`{"jsonrpc":"2.0","id":` + string(id) + `,"method":"tools/list"}`)
		a = next()
		if string(a.ID) != string(id) || a.Error != nil || !strings.Contains(string(a.Result), "vault_put") {
			t.Fatalf("tools/list after %q: %+v", c.line, a)
		}
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("ServeStream at the end of its input: %v", err)
	}
}
