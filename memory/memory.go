// Package memory is kws's long-term memory: short facts, preferences and
// decisions that outlive a session, kept in chromem-go's file layout, one
// folder per scope (global, and one per project), and searched by words,
// neighbours and meaning (search.go).
//
// The pipeline runs from candidates (the Rules extractor, or the sidecar
// through the Extractor interface) through promotion (a confidence
// threshold, dedupe, and add / update / delete / no-op against similar
// memories, with a pending queue for review) to recall: the most relevant
// memories as a <memory> hint block within a token budget. Memory is a
// hint; tools and the vault are the evidence.
package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/philippgille/chromem-go"

	"github.com/kwsdev/kws/vault"
)

// GlobalScope is the scope of memories that hold in every workspace.
const GlobalScope = "global"

// projectPrefix starts the name of a project scope.
const projectPrefix = "project:"

// DirName is the memory directory inside the data dir.
const DirName = "memory"

// Provenance sources.
const (
	// SourceUser marks a memory taken from what the user wrote.
	SourceUser = "user"
	// SourceTool marks a memory the model saved with memory_save or one
	// taken from tool activity.
	SourceTool = "tool"
	// SourceSidecar marks a memory the sidecar model extracted.
	SourceSidecar = "sidecar"
	// SourceManual marks a memory added by hand (kws memory add, the pane).
	SourceManual = "manual"
)

// Documented errors. Callers test them with errors.Is.
var (
	// ErrNotFound is returned for an unknown memory or pending id.
	ErrNotFound = errors.New("memory: no memory with that id")
	// ErrEmpty is returned when a memory's text is blank.
	ErrEmpty = errors.New("memory: empty text")
	// ErrSensitive is returned for text that looks like it holds a secret;
	// such text is never stored.
	ErrSensitive = errors.New("memory: text looks like it holds a secret; not stored")
	// ErrBadScope is returned for a scope that is neither "global" nor
	// "project:<name>".
	ErrBadScope = errors.New("memory: bad scope (want global or project:<name>)")
	// ErrBadKind is returned for a kind that is not one of Kinds (or
	// KindForget, for a candidate).
	ErrBadKind = errors.New("memory: unknown kind")
	// ErrEmbedder is returned when the embedder makes a vector of another
	// size than its earlier ones, which cannot be compared with them.
	ErrEmbedder = errors.New("memory: the embedder's vectors changed size")
	// ErrNoEmbedderID is returned by Open for Options that give an
	// Embedder without its EmbedderID.
	ErrNoEmbedderID = errors.New("memory: Options.Embedder needs Options.EmbedderID, the name of the embedder")
)

// Options tune Open. The zero value is usable.
type Options struct {
	// Embedder turns text into vectors; nil means HashEmbedder(512).
	Embedder chromem.EmbeddingFunc
	// QueryEmbedder embeds search queries, for a model trained to embed
	// queries and documents differently (nomic-embed's task prefixes);
	// nil means Embedder. It must make vectors comparable with Embedder's.
	QueryEmbedder chromem.EmbeddingFunc
	// EmbedderID names Embedder, model and all, such as "hash:512" or
	// "openai:text-embedding-3-small@api.openai.com": vectors are only
	// compared with vectors of the same EmbedderID. Each memory records
	// the EmbedderID of its vector; opening a store with another one
	// re-embeds its memories in the background (see Store.Reembedding).
	// Required with Embedder; nil Embedder means HashEmbedderID(512).
	EmbedderID string
	// Migrate are older stores to merge into this one on Open, each once:
	// their memories are copied in (a memory already here, by id or by
	// text in its scope, is not copied twice) and the folder is renamed
	// with MigratedSuffix.
	Migrate []Legacy
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sensitive reports text that holds a secret, which is never stored;
	// nil means IsSensitive.
	Sensitive func(string) bool
	// MinConfidence is the promotion threshold; 0 means 0.6.
	MinConfidence float64
	// Review queues candidates below MinConfidence, from ReviewFloor up,
	// as pending instead of dropping them.
	Review bool
	// ReviewFloor is the least confidence a candidate needs to wait for
	// review; 0 means 0.3. Below it a candidate is dropped.
	ReviewFloor float64
	// DuplicateSimilarity is the similarity from which a candidate counts
	// as a duplicate of a memory; 0 means 0.92.
	DuplicateSimilarity float64
	// UpdateSimilarity is the similarity from which a correction or rename
	// replaces a memory; 0 means 0.6 (tuned for the hashing embedder).
	UpdateSimilarity float64
	// DeleteSimilarity is the similarity from which "forget …" deletes a
	// memory; 0 means 0.5.
	DeleteSimilarity float64
	// RecallMinScore is the least similarity a recalled memory that
	// shares no word with the query needs; 0 means 0.15.
	RecallMinScore float64
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Embedder == nil {
		o.Embedder, o.EmbedderID, o.QueryEmbedder = HashEmbedder(DefaultDims), HashEmbedderID(DefaultDims), nil
	}
	if o.QueryEmbedder == nil {
		o.QueryEmbedder = o.Embedder
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sensitive == nil {
		o.Sensitive = IsSensitive
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.MinConfidence, 0.6)
	def(&o.ReviewFloor, 0.3)
	def(&o.DuplicateSimilarity, 0.92)
	def(&o.UpdateSimilarity, 0.6)
	def(&o.DeleteSimilarity, 0.5)
	def(&o.RecallMinScore, 0.15)
	return o
}

// Provenance says where a memory came from.
type Provenance struct {
	// Session is the agent session the memory came from, if any.
	Session string `json:"session,omitempty"`
	// Turn is the session turn, 0 when unknown.
	Turn int `json:"turn,omitempty"`
	// VaultIDs are the vault blocks that back the memory.
	VaultIDs []string `json:"vault_ids,omitempty"`
	// Source is user, tool, sidecar or manual.
	Source string `json:"source"`
}

// Memory is one remembered fact.
type Memory struct {
	// ID is "mem:" followed by 12 hex digits.
	ID string `json:"id"`
	// Text is the fact in one sentence.
	Text string `json:"text"`
	// Kind is remember, preference, decision, correction, rename, path or
	// note.
	Kind string `json:"kind"`
	// Scope is GlobalScope or a ProjectScope.
	Scope string `json:"scope"`
	// Confidence is between 0 and 1.
	Confidence float64 `json:"confidence"`
	// Created is when the memory was first stored.
	Created time.Time `json:"created"`
	// Updated is when it last changed.
	Updated time.Time `json:"updated"`
	// Provenance says where it came from.
	Provenance Provenance `json:"provenance"`
	// Embedder is the EmbedderID of the embedder that made the memory's
	// vector. The store sets it; a memory whose Embedder is not the
	// store's waits to be re-embedded, and is meanwhile not found by
	// similarity.
	Embedder string `json:"embedder,omitempty"`
}

// Hit is a memory found by Search with its relevance to the query.
type Hit struct {
	Memory
	// Score is the relevance Search ranked by: the weighted reciprocal
	// rank fusion of the memory's rank by words (BM25) and by meaning (the
	// embedder's similarity), scaled so that 1 is first in both, 0.75 first
	// by words alone and 0.25 first by meaning alone.
	Score float64 `json:"score"`
}

// ProjectScope returns the scope of the workspace at path: "project:" and
// the directory's base name, a dash and 8 hex digits of the SHA-256 of the
// cleaned absolute path, so two checkouts named alike stay apart.
func ProjectScope(workspace string) string {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		abs = filepath.Clean(workspace)
	}
	sum := sha256.Sum256([]byte(abs))
	name := strings.Map(func(r rune) rune {
		if r == ':' || r == ',' || r < ' ' {
			return '_'
		}
		return r
	}, filepath.Base(abs))
	return projectPrefix + name + "-" + hex.EncodeToString(sum[:4])
}

// checkScope returns ErrBadScope unless scope is global or a project scope.
func checkScope(scope string) error {
	if scope == GlobalScope || (strings.HasPrefix(scope, projectPrefix) && len(scope) > len(projectPrefix)) {
		return nil
	}
	return fmt.Errorf("%w: %q", ErrBadScope, scope)
}

// Kinds are the kinds a memory may have; a candidate may also be
// KindForget.
var Kinds = []string{"note", "remember", "preference", "decision", KindCorrection, KindRename, "path"}

// checkKind returns ErrBadKind, naming the valid kinds, unless kind is
// one of Kinds, or KindForget when forget is set.
func checkKind(kind string, forget bool) error {
	if slices.Contains(Kinds, kind) || forget && kind == KindForget {
		return nil
	}
	valid := strings.Join(Kinds, ", ")
	if forget {
		valid += ", " + KindForget
	}
	return fmt.Errorf("%w %q (want %s)", ErrBadKind, kind, valid)
}

// IsProject reports whether scope is a project scope.
func IsProject(scope string) bool { return strings.HasPrefix(scope, projectPrefix) }

// ScopeLabel names a scope as listings and tools show it: "project" or
// "global".
func ScopeLabel(scope string) string {
	if IsProject(scope) {
		return "project"
	}
	return "global"
}

// Metadata keys of a stored document.
const (
	keyKind       = "kind"
	keyScope      = "scope"
	keyConfidence = "confidence"
	keyCreated    = "created"
	keyUpdated    = "updated"
	keySession    = "session"
	keyTurn       = "turn"
	keyVaultIDs   = "vault_ids"
	keySource     = "source"
	keyEmbedder   = "embedder"
)

// metadata encodes m's fields (all but ID and Text) for chromem, whose
// metadata is a string map; vault ids are joined with commas.
func (m Memory) metadata() map[string]string {
	md := map[string]string{
		keyKind:       m.Kind,
		keyScope:      m.Scope,
		keyConfidence: strconv.FormatFloat(m.Confidence, 'g', -1, 64),
		keyCreated:    m.Created.UTC().Format(time.RFC3339Nano),
		keyUpdated:    m.Updated.UTC().Format(time.RFC3339Nano),
		keySource:     m.Provenance.Source,
	}
	if m.Provenance.Session != "" {
		md[keySession] = m.Provenance.Session
	}
	if m.Provenance.Turn != 0 {
		md[keyTurn] = strconv.Itoa(m.Provenance.Turn)
	}
	if len(m.Provenance.VaultIDs) > 0 {
		md[keyVaultIDs] = strings.Join(m.Provenance.VaultIDs, ",")
	}
	if m.Embedder != "" {
		md[keyEmbedder] = m.Embedder
	}
	return md
}

// decode rebuilds a Memory from a stored document.
func decode(id, text string, md map[string]string) Memory {
	m := Memory{ID: id, Text: text, Kind: md[keyKind], Scope: md[keyScope]}
	m.Confidence, _ = strconv.ParseFloat(md[keyConfidence], 64)
	m.Created, _ = time.Parse(time.RFC3339Nano, md[keyCreated])
	m.Updated, _ = time.Parse(time.RFC3339Nano, md[keyUpdated])
	m.Provenance.Session = md[keySession]
	m.Provenance.Turn, _ = strconv.Atoi(md[keyTurn])
	if v := md[keyVaultIDs]; v != "" {
		m.Provenance.VaultIDs = strings.Split(v, ",")
	}
	m.Provenance.Source = md[keySource]
	m.Embedder = md[keyEmbedder]
	return m
}

// clean checks and normalizes m before it is stored: the text is trimmed
// and its whitespace collapsed, the scope checked, vault ids normalized,
// and blank kind, source and confidence get defaults.
func (m *Memory) clean(sensitive func(string) bool) error {
	m.Text = strings.Join(strings.Fields(m.Text), " ")
	if m.Text == "" {
		return ErrEmpty
	}
	if sensitive(m.Text) {
		return ErrSensitive
	}
	if err := checkScope(m.Scope); err != nil {
		return err
	}
	ids := make([]string, len(m.Provenance.VaultIDs))
	for i, id := range m.Provenance.VaultIDs {
		n, err := vault.NormalizeID(id)
		if err != nil {
			return fmt.Errorf("memory: provenance: %w", err)
		}
		ids[i] = n
	}
	if len(ids) > 0 {
		m.Provenance.VaultIDs = ids
	}
	if m.Kind == "" {
		m.Kind = "note"
	}
	if err := checkKind(m.Kind, false); err != nil {
		return err
	}
	if m.Provenance.Source == "" {
		m.Provenance.Source = SourceManual
	}
	if m.Confidence <= 0 || m.Confidence > 1 {
		m.Confidence = 1
	}
	return nil
}
