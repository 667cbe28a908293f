package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kwsdev/kws/config"
)

// TestClientStreamableHTTP reaches a streamable HTTP server (the SDK's
// own handler) with the configured headers on every request.
func TestClientStreamableHTTP(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "http", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "shout", Description: "upper-cases text"}, func(_ context.Context, _ *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(a.Text)}}}, nil, nil
	})
	var unauthorized atomic.Int32
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			unauthorized.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	m, _ := start(t, map[string]config.MCPServer{
		"web":   {URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer t0ken"}},
		"nokey": {URL: srv.URL},
		"query": {URL: "http://127.0.0.1:1/mcp?key=s3cret"},
	})
	if res := runTool(t, tool(t, m, "mcp__web__shout"), nil, `{"text":"quiet"}`); res.IsError || res.Text != "QUIET" {
		t.Fatalf("shout: %+v", res)
	}
	if st := statusOf(m, "nokey"); st.State != StateFailed || !strings.Contains(st.Error, "initialize failed") || unauthorized.Load() == 0 {
		t.Fatalf("without the header: %+v", st)
	}
	if strings.Contains(m.StatusText(), "t0ken") {
		t.Fatal("ls shows a header")
	}
	// A token in the URL's query is not shown either, even in the error
	// that quotes the request.
	if st := statusOf(m, "query"); st.State != StateFailed || strings.Contains(st.Error+st.Transport, "s3cret") {
		t.Fatalf("a URL's query: %+v", st)
	}
}
