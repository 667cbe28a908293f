package secrets

import "unicode"

// kwsRules are the detectors kws adds to gitleaks' set. gitleaks scans
// repositories, where a commit that says "the password is hunter2" or pastes
// AWS's documented example key is rare and mostly noise; a conversation or a
// memory holding them is exactly what must not leave the vault. Each rule
// has keywords, so clean text costs one prefilter pass. gitleaks' global
// allowlist (placeholders such as ${VAR}) does not apply to them: each
// rule's own shape and value check keep identifiers out.
func kwsRules() []rule {
	specs := []struct {
		id, re   string
		group    int
		keywords []string
		valid    func(secret string) bool
	}{
		// gitleaks wants 64 characters of body; an excerpt holds less.
		{id: "kws-private-key", re: `-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`,
			keywords: []string{"private key-----"}},
		// gitleaks allowlists keys ending in EXAMPLE, AWS's documented
		// AKIAIOSFODNN7EXAMPLE among them; kws keeps them out too.
		{id: "kws-aws-access-key", re: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
			keywords: []string{"akia", "asia"}},
		{id: "kws-github-token", re: `\bgh[pousr]_[A-Za-z0-9]{30,}\b`,
			keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}},
		{id: "kws-github-fine-grained-token", re: `\bgithub_pat_[A-Za-z0-9_]{30,}\b`,
			keywords: []string{"github_pat_"}},
		// OpenAI and Anthropic keys of any length and project prefix.
		{id: "kws-sk-key", re: `\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}`,
			keywords: []string{"sk-"}},
		{id: "kws-slack-token", re: `\bxox[abprs]-[A-Za-z0-9\-]{10,}`,
			keywords: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"}},
		{id: "kws-google-api-key", re: `\bAIza[0-9A-Za-z_\-]{35}\b`,
			keywords: []string{"aiza"}},
		{id: "kws-jwt", re: `\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`,
			keywords: []string{"eyj"}},
		{id: "kws-bearer", re: `(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=\-]{16,})`,
			keywords: []string{"bearer"}},
		// .env style: UPPER_NAME=value.
		{id: "kws-env-assignment", group: 2,
			re:       `(?m)^[ \t]*(?:export[ \t]+)?([A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*)[ \t]*=[ \t]*(\S{4,})`,
			keywords: []string{"secret", "token", "passw", "api_key", "apikey", "access_key", "private_key", "credential"}},
		// A password, secret, token or key assigned a quoted literal.
		{id: "kws-quoted-assignment", group: 1,
			re:       `(?i)(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key)[A-Za-z0-9_\-]*["']?[ \t]*[:=][ \t]*("[^"\n]{6,}"|'[^'\n]{6,}')`,
			keywords: []string{"passw", "secret", "token", "key"}},
		// password: value, unquoted.
		{id: "kws-password-assignment", group: 2,
			re:       `(?i)\b((?:db_|my)?(?:password|passwd|pwd))[ \t]*[:=][ \t]*([^\s"',;]{6,})`,
			keywords: []string{"passw", "pwd"}},
		// "the password is hunter2": prose, as people write it to a model.
		{id: "kws-password-prose", group: 1,
			re:       `(?i)\b(?:password|passwd|passphrase|pwd|secret|token|api[ _\-]?key)[ \t]+(?:is|was)[ \t]+["'\x60]?([^\s"'\x60,;]{3,}[^\s"'\x60,;.!?:)])`,
			keywords: []string{"passw", "pwd", "secret", "token", "api"},
			valid:    notAWord},
		// INI and credentials files, any case: aws_secret_access_key = value.
		{id: "kws-key-assignment", group: 1,
			re:       `(?im)(?:secret|token|passw(?:or)?d|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?|auth)[a-z0-9_.\-]*[ \t]*[:=][ \t]*([A-Za-z0-9+/=_\-.~]{12,})(?:[\s"';,]|$)`,
			keywords: []string{"secret", "passw", "_key", "-key", "apikey", "accesskey", "_token", "-token", "credential"},
			valid:    looksRandom},
		// Credentials in URLs: scheme://user:password@host.
		{id: "kws-url-credentials", group: 2,
			re:       `://([^/\s:@]+):([^/\s:@]{3,})@`,
			keywords: []string{"://"}},
	}
	rules := make([]rule, len(specs))
	for i, r := range specs {
		rules[i] = rule{id: r.id, re: lazyRegexp(r.re), group: r.group, keywords: r.keywords, valid: r.valid, lines: reachLines(r.re)}
	}
	return rules
}

// notAWord reports whether a value said to be a password is not a plain
// lowercase word ("the password is required" names no password): it holds
// a digit, a symbol or an uppercase letter after the first character.
func notAWord(s string) bool {
	for i, c := range s {
		if !unicode.IsLetter(c) || (i > 0 && unicode.IsUpper(c)) {
			return true
		}
	}
	return false
}

// looksRandom reports whether an unquoted assigned value looks like a
// generated credential rather than an identifier: lower case, upper case
// and digits together, or at least 16 characters with a digit and high
// entropy (hex and base64 keys).
func looksRandom(s string) bool {
	var lower, upper, digit bool
	for _, c := range s {
		switch {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	if lower && upper && digit {
		return true
	}
	return digit && len(s) >= 16 && entropy(s) >= 3.5
}
