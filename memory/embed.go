package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"unicode"

	"github.com/philippgille/chromem-go"
)

// DefaultDims is the size of HashEmbedder's vectors when it is given 0.
const DefaultDims = 512

// Feature weights of the hashing embedder: whole words carry the meaning,
// word pairs the phrasing, character n-grams tolerate inflections and
// near-miss spellings (pnpm and npm, test and tests). Stopwords count for
// little, so two sentences sharing only "the … is in …" stay apart.
const (
	weightWord     = 1.0
	weightStopword = 0.15
	weightBigram   = 0.6
	weightGram     = 0.25
)

// stopwords are frequent English words that say little about a memory.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at by for with from as is are was were be been
		it its this that these those i we you he she they me us my our your do does did not no so if then than
		there here have has had will would should can could shall may might must just also very into over`) {
		stopwords[w] = true
	}
}

// HashEmbedder returns a deterministic, pure-Go embedding function: word
// unigrams and bigrams and the character 3- to 5-grams of each word
// (lowercased, with word boundaries marked) are hashed with FNV-1a into
// dims signed buckets and the vector is L2-normalized. The same text gives
// the same vector in every process. dims 0 means DefaultDims.
func HashEmbedder(dims int) chromem.EmbeddingFunc {
	if dims <= 0 {
		dims = DefaultDims
	}
	return func(_ context.Context, text string) ([]float32, error) {
		return hashEmbed(text, dims), nil
	}
}

// hashEmbed computes HashEmbedder's vector of text.
func hashEmbed(text string, dims int) []float32 {
	vec := make([]float32, dims)
	add := func(w float32, parts ...string) {
		h := fnvOffset
		for i, p := range parts {
			if i > 0 {
				h = fnvByte(h, 0)
			}
			h = fnvString(h, p)
		}
		sign := float32(1)
		if h>>63 == 1 {
			sign = -1
		}
		vec[h%uint64(dims)] += sign * w
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, w := range words {
		if stopwords[w] {
			add(weightStopword, "w", w)
		} else {
			add(weightWord, "w", w)
			grams(w, func(g string) { add(weightGram, "c", g) })
		}
		if i > 0 {
			add(weightBigram, "b", words[i-1], w)
		}
	}
	if len(words) == 0 {
		add(1, "t", text)
	}
	return normalize(vec)
}

// grams calls fn with the character 3- to 5-grams of word framed by
// boundary marks.
func grams(word string, fn func(string)) {
	r := []rune("<" + word + ">")
	for n := 3; n <= 5; n++ {
		for i := 0; i+n <= len(r); i++ {
			fn(string(r[i : i+n]))
		}
	}
}

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime         = 1099511628211
)

// fnvByte folds one byte into an FNV-1a hash.
func fnvByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

// fnvString folds s into an FNV-1a hash.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = fnvByte(h, s[i])
	}
	return h
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// OpenAIEmbedder returns an embedding function that calls an
// OpenAI-compatible POST {baseURL}/embeddings endpoint with model. apiKey
// may be empty (Ollama, llama-server); a nil client means
// http.DefaultClient. Vectors are L2-normalized; a failed request, a non-2xx
// answer or an empty one is an error naming the endpoint and the server's
// message.
func OpenAIEmbedder(baseURL, apiKey, model string, client *http.Client) chromem.EmbeddingFunc {
	if client == nil {
		client = http.DefaultClient
	}
	url := strings.TrimRight(baseURL, "/") + "/embeddings"
	return func(ctx context.Context, text string) ([]float32, error) {
		body, err := json.Marshal(map[string]any{"model": model, "input": []string{text}})
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("memory: embeddings: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		if apiKey != "" {
			req.Header.Set("Authorization", "Bearer "+apiKey)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("memory: embeddings from %s: %w", url, err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return nil, fmt.Errorf("memory: embeddings from %s: %w", url, err)
		}
		var out struct {
			Data []struct {
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		jsonErr := json.Unmarshal(raw, &out)
		if resp.StatusCode/100 != 2 {
			msg := strings.TrimSpace(string(raw))
			if jsonErr == nil && out.Error != nil && out.Error.Message != "" {
				msg = out.Error.Message
			}
			if len(msg) > 300 {
				msg = msg[:300] + "…"
			}
			return nil, fmt.Errorf("memory: embeddings from %s (model %q): %s: %s", url, model, resp.Status, msg)
		}
		if jsonErr != nil {
			return nil, fmt.Errorf("memory: embeddings from %s: bad JSON: %w", url, jsonErr)
		}
		if len(out.Data) == 0 || len(out.Data[0].Embedding) == 0 {
			return nil, fmt.Errorf("memory: embeddings from %s (model %q): the answer holds no vector", url, model)
		}
		return normalize(out.Data[0].Embedding), nil
	}
}

// FuncEmbedder adapts a batch embedding function, such as the sidecar's
// Embed, to chromem's one-text EmbeddingFunc. The vector is L2-normalized.
func FuncEmbedder(embed func(ctx context.Context, texts []string) ([][]float32, error)) chromem.EmbeddingFunc {
	return func(ctx context.Context, text string) ([]float32, error) {
		vecs, err := embed(ctx, []string{text})
		if err != nil {
			return nil, fmt.Errorf("memory: embed: %w", err)
		}
		if len(vecs) != 1 || len(vecs[0]) == 0 {
			return nil, errors.New("memory: embed: the embedder returned no vector")
		}
		return normalize(append([]float32(nil), vecs[0]...)), nil
	}
}
