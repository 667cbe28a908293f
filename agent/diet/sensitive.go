package diet

import (
	"regexp"
	"strings"
)

// Redacted replaces every secret in summaries and excerpts.
const Redacted = "[REDACTED]"

// secretPattern is one secret detector. Its regexp runs only on text
// whose ASCII-lowercased form contains one of its hints, so clean text
// costs a few substring scans instead of a dozen regexp passes.
type secretPattern struct {
	re    *regexp.Regexp
	hints []string
	group int // 0: the whole match is secret; 2: submatch 2 (the value)
}

var secretPatterns = []secretPattern{
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`), []string{"private key-----"}, 0},
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), []string{"akia", "asia"}, 0},
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}\b`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, 0},
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{30,}\b`), []string{"github_pat_"}, 0},
	{regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}`), []string{"sk-"}, 0},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}`), []string{"xox"}, 0},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`), []string{"aiza"}, 0},
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`), []string{"eyj"}, 0},
	{regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{16,}`), []string{"bearer"}, 0},
	// .env style: UPPER_NAME=value
	{regexp.MustCompile(`(?m)^\s*(?:export\s+)?([A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*)\s*=\s*(\S{4,})`),
		[]string{"secret", "token", "passw", "api_key", "apikey", "access_key", "private_key", "credential"}, 2},
	// password/secret/token/api key assigned a quoted literal
	{regexp.MustCompile(`(?i)\b([A-Za-z0-9_\-]*(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key)[A-Za-z0-9_\-]*)["']?\s*[:=]\s*("[^"\n]{6,}"|'[^'\n]{6,}')`),
		[]string{"passw", "secret", "token", "key"}, 2},
	// password: value, unquoted
	{regexp.MustCompile(`(?i)\b((?:db_|my)?(?:password|passwd|pwd))\s*[:=]\s*([^\s"',;]{6,})`), []string{"passw", "pwd"}, 2},
	// credentials in URLs: scheme://user:password@host
	{regexp.MustCompile(`://([^/\s:@]+):([^/\s:@]{3,})@`), []string{"://"}, 2},
}

// secretSpans returns the byte ranges of secrets in text.
func secretSpans(text string) [][2]int {
	var spans [][2]int
	lower := asciiLower(text)
	for _, p := range secretPatterns {
		hinted := false
		for _, h := range p.hints {
			if strings.Contains(lower, h) {
				hinted = true
				break
			}
		}
		if !hinted {
			continue
		}
		for _, m := range p.re.FindAllStringSubmatchIndex(text, -1) {
			if lo, hi := m[2*p.group], m[2*p.group+1]; lo >= 0 {
				spans = append(spans, [2]int{lo, hi})
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
