package vault

import (
	"regexp"
	"strconv"
	"strings"
)

// Query is one search request. Text is what the user or the model typed:
// words, file names, identifiers, a quoted command (`python x.py`), "line
// 1200 of FILE", and recency ("13 messages ago", "the last run of X").
type Query struct {
	Text string
	// K bounds the hits returned; zero means 10.
	K int
	// Agent and Session name the asker's conversation and Now its length
	// in messages; recency counts back from there. Left empty, recency
	// counts back from the end of the conversation of the newest block.
	Agent, Session string
	Now            int
}

// plan is a parsed query.
type plan struct {
	terms   []string // ranked with BM25
	cmd     []string // terms of a quoted command
	cmdText string   // the quoted command, normalized
	ago     int      // "N messages ago", or 0
	last    bool     // "the last run of", "latest"
	line    int      // "line L", or 0
	file    string   // base name of the file the query names
}

var (
	reQuoted  = regexp.MustCompile("`([^`]+)`|\"([^\"]+)\"")
	reAgo     = regexp.MustCompile(`(?i)\b(\d{1,7})\s+(?:messages?|msgs?)\s+(?:ago|back|earlier|before)\b`)
	reLast    = regexp.MustCompile(`(?i)\b(?:last|latest|most recent|newest|final)\b`)
	reLineNo  = regexp.MustCompile(`(?i)\blines?\s+(\d{1,7})\b`)
	rePathArg = regexp.MustCompile(`[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]\.[A-Za-z0-9]{1,8}\b|[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-/]+`)
)

// questionWords are the words of a question's frame ("what did … print
// … ago"): dropped from the ranked terms when other words remain.
var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`what which did does do print printed prints output show shown showed say said
	the of in at on was were is are exactly line lines editor window messages message msgs ago back earlier
	before last latest recent most newest final run runs ran time when how see saw give gave me an
	result results return returned command file content contents there that this it its from`) {
		questionWords[w] = true
	}
}

// parseQuery splits text into ranked terms and structure.
func parseQuery(text string) plan {
	var p plan
	rest := text
	if m := reQuoted.FindStringSubmatch(rest); m != nil {
		p.cmdText = normCommand(m[1] + m[2])
		p.cmd = Terms(p.cmdText)
	}
	if m := reAgo.FindStringSubmatch(rest); m != nil {
		p.ago, _ = strconv.Atoi(m[1])
		rest = strings.Replace(rest, m[0], " ", 1)
	} else {
		p.last = reLast.MatchString(rest)
	}
	if m := reLineNo.FindStringSubmatch(rest); m != nil {
		p.line, _ = strconv.Atoi(m[1])
		rest = strings.Replace(rest, m[0], " ", 1)
		for _, f := range rePathArg.FindAllString(reQuoted.ReplaceAllString(rest, " "), -1) {
			if strings.ContainsAny(f, "./") {
				p.file = strings.ToLower(baseName(strings.Trim(f, "./-")))
			}
		}
	}
	all := Terms(rest)
	for _, t := range all {
		if !questionWords[t] {
			p.terms = append(p.terms, t)
		}
	}
	if len(p.terms) == 0 {
		p.terms = all
	}
	return p
}

// normCommand lowercases a command and collapses its spaces.
func normCommand(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// recency reports whether the plan counts messages back from the asker.
func (p plan) recency() bool { return p.ago > 0 || p.last }
