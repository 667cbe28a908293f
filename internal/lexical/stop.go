package lexical

import "strings"

// stopwords are English function words: frequent in chat and questions
// alike, they would match nearly every memory. Question words (when,
// where, who) are among them: an answer rarely repeats them. The
// tokenizer splits contractions at the apostrophe ("didn't": didn), so
// their parts are listed.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all am an and any are aren as at be
	because been before being below between both but by can cannot could couldn did didn do does doesn doing
	don down during each few for from further had hadn has hasn have haven having he her here hers herself him
	himself his how if in into is isn it its itself just let me more most mustn my myself no nor not now of off
	on once only or other ought our ours ourselves out over own same shan she should shouldn so some such than
	that the their theirs them themselves then there these they this those through to too under until up very
	was wasn we were weren what when where which while who whom why will with won would wouldn you your yours
	yourself yourselves ll ve re also yes yeah oh ok okay im ive dont didnt doesnt thats youre`) {
		stopwords[w] = true
	}
}
