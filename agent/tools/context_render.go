package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// render writes the context_for_task answer: for the best files a header,
// the outline and the excerpts around the most telling term hits, each
// file taking at most half of what is left so later files still get room;
// then the paths of other candidates, all within budget bytes.
func (r *ranking) render(root string, budget int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "task terms: %s; %d files mention them, best first\n\n", strings.Join(r.terms, ", "), len(r.cands))
	next := 0
	for shown := 0; next < len(r.cands) && shown < ctxTopFiles; next++ {
		remaining := budget - b.Len()
		if remaining < 512 {
			break
		}
		allowance := max(remaining/2, min(remaining, 2048))
		if sec := r.fileSection(root, r.cands[next], allowance); sec != "" {
			b.WriteString(sec)
			shown++
		}
	}
	if next < len(r.cands) {
		line := "other candidates:"
		for _, c := range r.cands[next:] {
			if b.Len()+len(line)+len(c.rel)+16 > budget {
				line += " …"
				break
			}
			line += " " + c.rel
		}
		b.WriteString(line + "\n")
	}
	return clipText(b.String(), budget)
}

// fileSection renders one candidate within allowance bytes; "" when the
// file cannot be read any more.
func (r *ranking) fileSection(root string, c candidate, allowance int) string {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.rel)))
	if err != nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "== %s (score %.1f; %s) ==\n", c.rel, c.score, r.hitSummary(c))
	outline := c.outline
	if outline == "" {
		outline = Outline(c.rel, data)
	}
	if outline != "" {
		b.WriteString("outline:\n" + clipLines(outline, allowance/3))
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	keep := r.pickExcerpts(lines, allowance-b.Len()-len("excerpts:\n"))
	if len(keep) > 0 {
		b.WriteString("excerpts:\n")
	}
	prev := -1
	for _, i := range keep {
		if prev >= 0 && i > prev+1 {
			b.WriteString("   …\n")
		}
		b.WriteString(excerptLine(lines, i))
		prev = i
	}
	b.WriteByte('\n')
	return b.String()
}

// pickExcerpts chooses the lines to show: windows of ctxExcerptRadius
// lines around hit lines, the lines hitting the rarest terms first, as
// many as fit in limit bytes. It returns line indexes in file order.
func (r *ranking) pickExcerpts(lines []string, limit int) []int {
	type hit struct {
		line  int
		score float64
	}
	var hits []hit
	for i, l := range lines {
		low := strings.ToLower(l)
		s := 0.0
		for j, t := range r.terms {
			if strings.Contains(low, t) {
				s += r.idf[j]
			}
		}
		if s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	kept := map[int]bool{}
	used := 0
	for _, h := range hits {
		if kept[h.line] {
			continue
		}
		lo, hi := max(0, h.line-ctxExcerptRadius), min(len(lines)-1, h.line+ctxExcerptRadius)
		cost := 0
		for i := lo; i <= hi; i++ {
			if !kept[i] {
				cost += len(excerptLine(lines, i)) + len("   …\n")
			}
		}
		if used+cost > limit {
			continue
		}
		used += cost
		for i := lo; i <= hi; i++ {
			kept[i] = true
		}
	}
	out := make([]int, 0, len(kept))
	for i := range kept {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// excerptLine renders line i as "  12| text\n", clipped.
func excerptLine(lines []string, i int) string {
	return fmt.Sprintf("%4d| %s\n", i+1, clipLine(strings.TrimRight(lines[i], "\r"), 0, grepLineShown))
}

// hitSummary says which terms a candidate matched and how often.
func (r *ranking) hitSummary(c candidate) string {
	var parts []string
	for i, t := range r.terms {
		switch {
		case c.inPath[i] && c.tf[i] > 0:
			parts = append(parts, fmt.Sprintf("%s×%d+path", t, c.tf[i]))
		case c.inPath[i]:
			parts = append(parts, t+" in path")
		case c.tf[i] > 0:
			parts = append(parts, fmt.Sprintf("%s×%d", t, c.tf[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// clipLines keeps the whole lines of s that fit in limit bytes and says
// how many were left out.
func clipLines(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := strings.LastIndexByte(s[:max(0, limit)], '\n') + 1
	rest := strings.Count(s[cut:], "\n")
	return s[:cut] + fmt.Sprintf("… (%d more lines)\n", rest)
}
