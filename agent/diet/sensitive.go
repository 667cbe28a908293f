package diet

import (
	"strings"

	"github.com/kwsdev/kws/secrets"
)

// Redacted replaces every secret in summaries and excerpts.
const Redacted = secrets.Redacted

// IsSensitive reports whether text holds a key, token, password, private
// key or .env secret (package secrets decides). Sensitive blocks are never
// auto-restored.
func IsSensitive(text string) bool { return secrets.Contains(text) }

// Redact replaces every secret in text with Redacted.
func Redact(text string) string { return secrets.Redact(text) }

// withheldFirst is the first line a withheld description shows.
const withheldFirst = "[contents of a credentials file, withheld]"

// DescribeWithheld describes text read from a credentials file
// (secrets.SensitivePath): sensitive, whatever the rules find in it, and
// quoting none of it, since a .pgpass or .netrc line holds a password no
// rule recognises. Only its line count shows.
func DescribeWithheld(text string) Description {
	return Description{
		Lines:      strings.Count(strings.TrimRight(text, "\n"), "\n") + 1,
		First:      withheldFirst,
		Sensitive:  true,
		Confidence: 0.05,
		Priority:   "normal",
	}
}

// describeMessage describes m's content, withheld when m was read from a
// credentials file.
func describeMessage(m Message) Description {
	if m.Sensitive {
		return DescribeWithheld(m.Content).withSource(m.Source)
	}
	return Describe(m.kind(), m.Content).withSource(m.Source)
}
