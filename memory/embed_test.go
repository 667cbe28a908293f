package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestHashEmbedder(t *testing.T) {
	ctx := context.Background()
	embed := HashEmbedder(0)
	v, _ := embed(ctx, "Use pnpm instead of npm")
	if len(v) != DefaultDims {
		t.Fatalf("dims %d", len(v))
	}
	if n := math.Sqrt(cosine(v, v)); math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm %v", n)
	}
	// The same text gives the same vector in every process: pin a digest.
	h := fnv.New64a()
	fmt.Fprint(h, v)
	if got := fmt.Sprintf("%x", h.Sum64()); got != "6e13558669c5ec6e" {
		t.Errorf("vector digest %s changed: the embedder is not stable, stored memories would no longer match", got)
	}
	tests := []struct {
		a, b     string
		min, max float64
	}{
		{"use pnpm instead of npm", "Use PNPM instead of npm!", 0.999, 1.001},
		{"the API server listens on port 8080", "the API server listens on port 9090", 0.7, 0.95},
		{"run the tests with go test", "how do I run the tests", 0.3, 0.8},
		{"the build uses make", "commit messages are short", -0.2, 0.15},
		{"", "", 0.999, 1.001},
	}
	for _, tt := range tests {
		a, _ := embed(ctx, tt.a)
		b, _ := embed(ctx, tt.b)
		if c := cosine(a, b); c < tt.min || c > tt.max {
			t.Errorf("cos(%q, %q) = %.3f, want %.2f..%.2f", tt.a, tt.b, c, tt.min, tt.max)
		}
	}
	if v, _ := HashEmbedder(64)(ctx, "x"); len(v) != 64 {
		t.Errorf("HashEmbedder(64) gave %d dims", len(v))
	}
}

func TestOpenAIEmbedder(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		switch {
		case r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost:
			http.NotFound(w, r)
		case r.Header.Get("Authorization") != "Bearer k3y":
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided"}}`)
		case req.Model == "broken":
			fmt.Fprint(w, `{"data":[]}`)
		case req.Model == "garbage":
			fmt.Fprint(w, `<html>`)
		case req.Model != "embed-small" || len(req.Input) != 1:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"model %q not found"}}`, req.Model)
		default:
			fmt.Fprintf(w, `{"data":[{"index":0,"embedding":[3,4,%d]}],"model":"embed-small"}`, len(req.Input[0]))
		}
	}))
	defer srv.Close()

	v, err := OpenAIEmbedder(srv.URL+"/v1/", "k3y", "embed-small", srv.Client())(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 3 || math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Fatalf("vector %v, want [0.6 0.8 0] (normalized)", v)
	}
	tests := []struct {
		base, key, model string
		want             []string
	}{
		{srv.URL + "/v1", "wrong", "embed-small", []string{"401", "Incorrect API key", "/v1/embeddings"}},
		{srv.URL + "/v1", "k3y", "nope", []string{"400", `model "nope" not found`}},
		{srv.URL + "/v1", "k3y", "broken", []string{"no vector"}},
		{srv.URL + "/v1", "k3y", "garbage", []string{"bad JSON"}},
		{srv.URL + "/v2", "k3y", "embed-small", []string{"404"}},
		{"http://127.0.0.1:1", "k3y", "embed-small", []string{"127.0.0.1:1/embeddings"}},
	}
	for _, tt := range tests {
		_, err := OpenAIEmbedder(tt.base, tt.key, tt.model, srv.Client())(ctx, "hello")
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s: error %v, want it to mention %q", tt.base, tt.model, err, w)
			}
		}
	}

	// A store over the endpoint works end to end.
	s := mustOpen(t, t.TempDir(), Options{Embedder: OpenAIEmbedder(srv.URL+"/v1", "k3y", "embed-small", nil), EmbedderID: "openai:embed-small"})
	mustAdd(t, s, GlobalScope, "note", "short")
	if hits, err := s.Search(ctx, "a much longer query", nil, 1); err != nil || len(hits) != 1 {
		t.Fatalf("search over the endpoint: %v %v", hits, err)
	}
}

func TestFuncEmbedder(t *testing.T) {
	ctx := context.Background()
	var got []string
	embed := FuncEmbedder(func(_ context.Context, texts []string) ([][]float32, error) {
		got = texts
		if texts[0] == "fail" {
			return nil, errors.New("sidecar: busy")
		}
		if texts[0] == "none" {
			return nil, nil
		}
		return [][]float32{{0, 2}}, nil
	})
	v, err := embed(ctx, "hello")
	if err != nil || len(got) != 1 || got[0] != "hello" || v[1] != 1 {
		t.Fatalf("FuncEmbedder: %v %v (sent %v)", v, err, got)
	}
	if _, err := embed(ctx, "fail"); err == nil || !strings.Contains(err.Error(), "sidecar: busy") {
		t.Fatalf("error not passed on: %v", err)
	}
	if _, err := embed(ctx, "none"); err == nil {
		t.Fatal("no vector accepted")
	}
}
