package diet

import (
	"regexp"
	"strings"
)

// Redacted replaces every secret in summaries and excerpts.
const Redacted = "[REDACTED]"

// secretPatterns match whole secrets; valuePatterns match name=value pairs
// whose value (submatch 2) is the secret.
var (
	secretPatterns = []*regexp.Regexp{
		regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`),
		regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
		regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}\b`),
		regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{30,}\b`),
		regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}`),
		regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}`),
		regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`),
		regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`),
		regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{16,}`),
	}
	valuePatterns = []*regexp.Regexp{
		// .env style: UPPER_NAME=value
		regexp.MustCompile(`(?m)^\s*(?:export\s+)?([A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*)\s*=\s*(\S{4,})`),
		// password/secret/token/api key assigned a quoted literal
		regexp.MustCompile(`(?i)\b([A-Za-z0-9_\-]*(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key)[A-Za-z0-9_\-]*)["']?\s*[:=]\s*("[^"\n]{6,}"|'[^'\n]{6,}')`),
		// password: value, unquoted
		regexp.MustCompile(`(?i)\b((?:db_|my)?(?:password|passwd|pwd))\s*[:=]\s*([^\s"',;]{6,})`),
		// credentials in URLs: scheme://user:password@host
		regexp.MustCompile(`://([^/\s:@]+):([^/\s:@]{3,})@`),
	}
)

// secretSpans returns the byte ranges of secrets in text.
func secretSpans(text string) [][2]int {
	var spans [][2]int
	for _, re := range secretPatterns {
		for _, m := range re.FindAllStringIndex(text, -1) {
			spans = append(spans, [2]int{m[0], m[1]})
		}
	}
	for _, re := range valuePatterns {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			if m[4] >= 0 {
				spans = append(spans, [2]int{m[4], m[5]})
			}
		}
	}
	return spans
}

// IsSensitive reports whether text holds a key, token, password, private
// key or .env secret. Sensitive blocks are never auto-restored.
func IsSensitive(text string) bool { return len(secretSpans(text)) > 0 }

// Redact replaces every secret in text with Redacted.
func Redact(text string) string {
	spans := secretSpans(text)
	if len(spans) == 0 {
		return text
	}
	// Mark covered bytes, then rebuild with one marker per covered run.
	covered := make([]bool, len(text))
	for _, s := range spans {
		for i := s[0]; i < s[1]; i++ {
			covered[i] = true
		}
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		if !covered[i] {
			b.WriteByte(text[i])
			i++
			continue
		}
		for i < len(text) && covered[i] {
			i++
		}
		b.WriteString(Redacted)
	}
	return b.String()
}
