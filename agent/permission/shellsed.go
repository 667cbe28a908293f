package permission

import (
	"fmt"
	"strings"
)

// sedArgs returns why sed's arguments may make it write, read or run
// something besides printing its input, or "". GNU sed takes its script
// from -e (--expression) options or else from the first operand, and -f
// (--file) reads one from a file, which the repository may have written;
// every script is parsed by sedScript. Options after a file operand are
// refused because without GNU argument permutation (POSIXLY_CORRECT) they
// would be operands and the operand a script.
func sedArgs(args []string) string {
	var scripts, operands []string
	hasE, optAfterOperand := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			optAfterOperand = optAfterOperand || len(operands) > 0
			name, v, hasV := strings.Cut(a, "=")
			switch {
			case len(name) >= 3 && strings.HasPrefix("--expression", name):
				hasE = true
				if !hasV {
					if i+1 >= len(args) {
						return "sed --expression without a script"
					}
					i++
					v = args[i]
				}
				scripts = append(scripts, v)
			case len(name) >= 3 && (strings.HasPrefix("--file", name) || strings.HasPrefix("--in-place", name)):
				return fmt.Sprintf("sed %s reads its script from a file or edits files", a)
			case name == "--line-length" && !hasV:
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			optAfterOperand = optAfterOperand || len(operands) > 0
		letters:
			for j := 1; j < len(a); j++ {
				switch c := a[j]; {
				case strings.IndexByte("nrsuzEb", c) >= 0:
				case c == 'e' || c == 'l':
					v := a[j+1:]
					if v == "" {
						if i+1 >= len(args) {
							return fmt.Sprintf("sed -%c without a value", c)
						}
						i++
						v = args[i]
					}
					if c == 'e' {
						hasE = true
						scripts = append(scripts, v)
					}
					break letters
				default:
					return fmt.Sprintf("sed option -%c (in %s) can edit files, read a script from a file or is unknown", c, a)
				}
			}
		default:
			operands = append(operands, a)
		}
	}
	if optAfterOperand {
		return "sed options after a file operand"
	}
	if !hasE {
		if len(operands) == 0 {
			return ""
		}
		scripts = append(scripts, operands[0])
	}
	for _, sc := range scripts {
		if why := sedScript(sc); why != "" {
			return why
		}
	}
	return ""
}

// sedScript returns why a one-line sed script may do more than print
// its input, or "". It accepts addresses and the commands that only edit
// the pattern and hold spaces or print: s and y (s without the e and w
// flags), a, i and c (their text runs to the end of the line), and
// = d D g G h H l n N p P q Q x z F { } #. Branches and labels, r, R, w,
// W, e and anything unknown are refused. A regular expression is read
// with and without treating [...] as a bracket expression that may hold
// the delimiter, and with a backslash in brackets literal or escaping;
// the script must be safe read every way, so no reading sed may prefer
// hides a command.
func sedScript(script string) string {
	for _, mode := range []int{0, 1, 2} {
		if why := sedScriptMode(script, mode); why != "" {
			return why
		}
	}
	return ""
}

// sedScriptMode parses script with bracket mode 0 (brackets are plain),
// 1 (brackets hold the delimiter, backslash literal in them) or 2
// (brackets hold the delimiter, backslash escapes in them).
func sedScriptMode(s string, mode int) string {
	i := 0
	// regex reads up to the unescaped delimiter d from s[i:] and returns
	// the index after it, or -1.
	regex := func(i int, d byte, brackets bool) int {
		for i < len(s) {
			c := s[i]
			switch {
			case c == '\\':
				i += 2
				continue
			case c == d:
				return i + 1
			case c == '[' && brackets && mode > 0:
				j := i + 1
				if j < len(s) && s[j] == '^' {
					j++
				}
				if j < len(s) && s[j] == ']' {
					j++
				}
				for j < len(s) && s[j] != ']' {
					if s[j] == '\\' && mode == 2 {
						j++
					} else if s[j] == '[' && j+1 < len(s) && strings.IndexByte(":.=", s[j+1]) >= 0 {
						end := strings.Index(s[j+2:], string(s[j+1])+"]")
						if end < 0 {
							return -1
						}
						j += 2 + end + 1
					}
					j++
				}
				if j >= len(s) {
					return -1
				}
				i = j + 1
				continue
			}
			i++
		}
		return -1
	}
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	digits := func() {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	// address reads one address if there is one.
	address := func() bool {
		switch {
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			digits()
			if i < len(s) && s[i] == '~' {
				i++
				digits()
			}
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && (s[i] == '/' || s[i] == '\\'):
			d := byte('/')
			if s[i] == '\\' {
				if i+1 >= len(s) {
					return false
				}
				i++
				d = s[i]
			}
			if i = regex(i+1, d, true); i < 0 {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ';') {
			i++
		}
		if i >= len(s) {
			return ""
		}
		start := i
		if !address() {
			return "sed address that does not end"
		}
		if i > start && i < len(s) && s[i] == ',' {
			i++
			skip()
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
				digits()
			} else if !address() {
				return "sed address that does not end"
			}
		}
		skip()
		for i < len(s) && (s[i] == '!' || s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return "sed address without a command"
		}
		c := s[i]
		i++
		switch {
		case c == '#' || c == 'a' || c == 'i' || c == 'c':
			return ""
		case c == '{' || c == '}':
			continue
		case strings.IndexByte("=dDgGhHnNpPxzF", c) >= 0:
		case c == 'l' || c == 'q' || c == 'Q':
			skip()
			digits()
		case c == 's' || c == 'y':
			if i >= len(s) || s[i] == '\\' {
				return fmt.Sprintf("sed %c command without a delimiter", c)
			}
			d := s[i]
			if i = regex(i+1, d, c == 's'); i < 0 {
				return fmt.Sprintf("sed %c command that does not end", c)
			}
			if i = regex(i, d, false); i < 0 {
				return fmt.Sprintf("sed %c command that does not end", c)
			}
			if c == 's' {
				for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
					i++
				}
			}
		default:
			return fmt.Sprintf("sed command %q can read or write files, run programs or branch", c)
		}
		skip()
		if i < len(s) && s[i] != ';' && s[i] != '}' {
			return fmt.Sprintf("sed command %q followed by %q", c, s[i])
		}
	}
}
