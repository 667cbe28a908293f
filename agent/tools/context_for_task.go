package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed context_for_task.md
var contextForTaskDoc string

const (
	defaultContextBudget = 24 << 10
	maxContextBudget     = 256 << 10
	minContextBudget     = 1 << 10
	ctxFileMax           = 1 << 20  // larger files are not ranked
	ctxScanFiles         = 20000    // files ranked at most
	ctxScanBytes         = 96 << 20 // bytes read while ranking at most
	ctxPathWeight        = 3.0      // a term in the path counts like this many hits
	ctxTestWeight        = 0.6      // score factor of test files unless the task is about tests
	ctxRefine            = 30       // best files whose outlines are scored
	ctxExcerptRadius     = 3
	ctxTopFiles          = 8
)

type contextForTaskTool struct{ spec }

type contextForTaskArgs struct {
	Task        string   `json:"task"`
	Paths       []string `json:"paths"`
	BudgetBytes int      `json:"budget_bytes"`
}

func newContextForTask() Tool {
	return contextForTaskTool{spec{name: "context_for_task", doc: contextForTaskDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "task": {"type": "string", "description": "the task in your own words, with the identifiers, file names and error text you know"},
    "paths": {"type": "array", "items": {"type": "string"}, "description": "files or directories to look in, relative to the workspace (default: the whole workspace)"},
    "budget_bytes": {"type": "integer", "minimum": 1024, "maximum": 262144, "description": "size of the answer in bytes (default 24576)"}
  },
  "required": ["task"],
  "additionalProperties": false
}`}}
}

// candidate is one ranked file.
type candidate struct {
	rel     string
	score   float64
	tf      []int  // content hits per term
	inPath  []bool // term occurs in the path
	outline string // set for the files refine looked at
}

// ranking is the files that mention a task's terms, best first.
type ranking struct {
	terms   []string
	idf     []float64 // per term: log(1 + files scanned / files mentioning it)
	cands   []candidate
	scanned int
}

// Run ranks workspace files by the task's terms and returns the best
// files' outlines and excerpts within the byte budget.
func (t contextForTaskTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a contextForTaskArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("context_for_task: %v", err), nil
	}
	budget, err := intArg("budget_bytes", a.BudgetBytes, defaultContextBudget, minContextBudget, maxContextBudget)
	if err != nil {
		return errResult("context_for_task: %v", err), nil
	}
	terms := taskTerms(a.Task)
	if len(terms) == 0 {
		return errResult(`context_for_task: "task" has no searchable words; name the identifiers, files or errors involved`), nil
	}
	root, err := env.root()
	if err != nil {
		return Result{}, fmt.Errorf("context_for_task: %w", err)
	}
	starts := []string{root}
	if len(a.Paths) > 0 {
		starts = starts[:0]
		for _, p := range a.Paths {
			abs, _, err := env.resolve(p)
			if err != nil {
				return errResult("context_for_task: paths: %v", err), nil
			}
			if _, err := os.Stat(abs); err != nil {
				return errResult("context_for_task: paths: %v", err), nil
			}
			starts = append(starts, abs)
		}
	}
	r, err := rankFiles(ctx, root, starts, terms, env.hidden())
	if err != nil {
		return Result{}, fmt.Errorf("context_for_task: %w", err)
	}
	if len(r.cands) == 0 {
		return Result{Text: fmt.Sprintf("no files mention the task terms (%s) among %d files scanned", strings.Join(terms, ", "), r.scanned)}, nil
	}
	return Result{Text: r.render(root, budget)}, nil
}

// rankFiles scores every text file under the starts (files or folders
// inside root) by the terms it mentions in its content (1 + ln tf) and its
// path (ctxPathWeight), each weighted by the term's idf, then refines the
// best few.
func rankFiles(ctx context.Context, root string, starts, terms, hidden []string) (*ranking, error) {
	r := &ranking{terms: terms, idf: make([]float64, len(terms))}
	df := make([]int, len(terms))
	read := 0
	seen := map[string]bool{}
	visit := func(rel string, d fs.DirEntry) error {
		if r.scanned >= ctxScanFiles || read >= ctxScanBytes {
			return errStopWalk
		}
		if !d.Type().IsRegular() || seen[rel] {
			return nil
		}
		seen[rel] = true
		if info, err := d.Info(); err != nil || info.Size() > ctxFileMax {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || isBinary(data) {
			return nil
		}
		r.scanned++
		read += len(data)
		low := bytes.ToLower(data)
		lowPath := strings.ToLower(rel)
		c := candidate{rel: rel, tf: make([]int, len(terms)), inPath: make([]bool, len(terms))}
		hit := false
		for i, t := range terms {
			c.tf[i] = bytes.Count(low, []byte(t))
			c.inPath[i] = strings.Contains(lowPath, t)
			if c.tf[i] > 0 || c.inPath[i] {
				df[i]++
				hit = true
			}
		}
		if hit {
			r.cands = append(r.cands, c)
		}
		return nil
	}
	for _, start := range starts {
		if err := walkTree(ctx, root, start, hidden, visit); err != nil {
			return nil, err
		}
	}
	for i := range terms {
		if df[i] > 0 {
			r.idf[i] = math.Log(1 + float64(r.scanned)/float64(df[i]))
		}
	}
	for i := range r.cands {
		c := &r.cands[i]
		for j := range terms {
			w := 0.0
			if c.tf[j] > 0 {
				w += 1 + math.Log(float64(c.tf[j]))
			}
			if c.inPath[j] {
				w += ctxPathWeight
			}
			c.score += w * r.idf[j]
		}
	}
	r.sort()
	r.refine(root)
	return r, nil
}

// refine adds, for the best ctxRefine files, ctxPathWeight per term that
// a declaration in the file's outline names (the file that defines a thing
// beats the files that merely use it), scales test files by ctxTestWeight
// unless the task is about tests, and re-sorts.
func (r *ranking) refine(root string) {
	for i := range r.cands[:min(len(r.cands), ctxRefine)] {
		c := &r.cands[i]
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.rel)))
		if err != nil {
			continue
		}
		c.outline = Outline(c.rel, data)
		low := strings.ToLower(c.outline)
		for j, t := range r.terms {
			if strings.Contains(low, t) {
				c.score += ctxPathWeight * r.idf[j]
			}
		}
	}
	wantTests := false
	for _, t := range r.terms {
		wantTests = wantTests || strings.HasPrefix(t, "test") || strings.HasPrefix(t, "fuzz")
	}
	for i := range r.cands {
		if !wantTests && isTestPath(r.cands[i].rel) {
			r.cands[i].score *= ctxTestWeight
		}
	}
	r.sort()
}

// sort orders the candidates by score, then path.
func (r *ranking) sort() {
	sort.SliceStable(r.cands, func(i, j int) bool {
		if r.cands[i].score != r.cands[j].score {
			return r.cands[i].score > r.cands[j].score
		}
		return r.cands[i].rel < r.cands[j].rel
	})
}
