package mcp

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// conformanceScenarios are the official conformance suite's server
// scenarios that apply to kws's server. The others call the suite's own
// test tools, prompts and resources (tools-call-*, prompts-*,
// resources-*, completion, elicitation), which kws does not have.
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "logging-set-level", "server-sse-multiple-streams", "server-sse-polling"}

// TestConformanceSuite runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, installed in mcp/npm by make setup)
// against the server over streamable HTTP: every check of every scenario
// that applies passes. server-sse-polling has no check that can pass or
// fail here, only SHOULD warnings about SSE priming events and retry
// fields for resuming a broken stream, which the Go SDK sends only with an
// event store; kws keeps none (with one, this release of the suite warns
// about resuming too).
func TestConformanceSuite(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: make setup installs it")
	}
	suite, _ := filepath.Abs(filepath.Join("npm", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("the MCP conformance suite is not installed (make setup installs it): %v", err)
	}
	ln, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The suite sends no token: it checks the protocol of the handler
	// ServeHTTP guards (TestServeHTTPGuard checks the guard).
	hs := &http.Server{Handler: HTTPHandler(NewServer(newFixture(t).cfg))}
	go hs.Serve(ln)
	defer hs.Close()
	results := regexp.MustCompile(`Passed: (\d+)/(\d+), (\d+) failed`)
	for _, sc := range conformanceScenarios {
		out, err := exec.Command(node, suite, "server", "--url", "http://"+ln.Addr().String()+"/", "--scenario", sc).CombinedOutput()
		m := results.FindSubmatch(out)
		if err != nil || m == nil || string(m[1]) != string(m[2]) || string(m[3]) != "0" {
			t.Fatalf("conformance scenario %s: %v\n%s", sc, err, out)
		}
		t.Logf("conformance %s: passed %s/%s", sc, m[1], m[2])
	}
}
