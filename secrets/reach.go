package secrets

import "regexp/syntax"

// nearLines caps how many lines around a keyword a rule runs on. Most
// rules allow a few whitespace characters (\s, which matches a newline)
// between a name and its value; a match that really spans more lines than
// this around its keyword is rare, and scanning that far around every
// "key" or "token" in source code would cost as much as the whole text.
const nearLines = 1

// reachLines returns how many newlines a match of the regexp src can
// hold, capped at nearLines, or -1 when there is no bound (the rule then
// runs on the whole text).
func reachLines(src string) int {
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return -1
	}
	n, unbounded := newlines(parsed.Simplify())
	if unbounded {
		return -1
	}
	return min(n, nearLines)
}

// newlines returns the most newlines a match of re can hold, and whether
// that number is unbounded.
func newlines(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if r == '\n' {
				n++
			}
		}
		return n, false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return 1, false
			}
		}
		return 0, false
	case syntax.OpAnyChar:
		return 1, false
	case syntax.OpCapture, syntax.OpQuest:
		return newlines(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		n, inf := newlines(re.Sub[0])
		return 0, inf || n > 0
	case syntax.OpRepeat:
		n, inf := newlines(re.Sub[0])
		if inf || (n > 0 && re.Max < 0) {
			return 0, true
		}
		return n * max(re.Max, 0), false
	case syntax.OpConcat:
		total := 0
		for _, sub := range re.Sub {
			n, inf := newlines(sub)
			if inf {
				return 0, true
			}
			total += n
		}
		return total, false
	case syntax.OpAlternate:
		most := 0
		for _, sub := range re.Sub {
			n, inf := newlines(sub)
			if inf {
				return 0, true
			}
			most = max(most, n)
		}
		return most, false
	}
	return 0, false
}
