package secrets

import (
	"path"
	"strings"
)

// sensitiveNames are file names that hold credentials wherever they are.
var sensitiveNames = map[string]bool{
	".env": true, ".envrc": true, ".netrc": true, "_netrc": true, ".npmrc": true,
	".pypirc": true, ".pgpass": true, ".git-credentials": true, ".htpasswd": true,
	".vault-token": true, ".boto": true, ".s3cfg": true, ".dockercfg": true,
	"credentials": true, "credentials.json": true, "credentials.yml": true, "credentials.yaml": true,
	"credentials.toml": true, "credentials.xml": true, "client_secret.json": true,
	"secrets.json": true, "secrets.yml": true, "secrets.yaml": true, "secrets.toml": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "id_ecdsa_sk": true, "id_ed25519_sk": true,
	"terraform.tfstate": true, "terraform.tfstate.backup": true,
	"master.key": true, "wp-config.php": true,
}

// sensitiveExts are extensions of key stores and private keys.
var sensitiveExts = map[string]bool{
	".key": true, ".pem": true, ".p12": true, ".pfx": true, ".jks": true, ".keystore": true,
	".ppk": true, ".kdbx": true, ".asc": true, ".gpg": true, ".tfvars": true, ".ovpn": true,
}

// sensitiveDirs are directories whose every file is a credential store
// (.aws/credentials and .aws/config, .docker/config.json, .kube/config).
var sensitiveDirs = []string{".aws", ".docker", ".kube", ".gnupg", ".ssh", ".password-store"}

// exampleSuffixes mark templates that ship with placeholders.
var exampleSuffixes = []string{".example", ".sample", ".template", ".dist", ".tmpl", ".pub"}

// SensitivePath reports whether the file at p (absolute, relative, or
// with ~) is a credentials file whose contents must be treated as secret
// even where no rule recognises a value: .env files, ~/.aws/credentials,
// SSH private keys, .npmrc, .netrc, .pgpass, key stores and the like.
// Templates (.env.example, id_rsa.pub) are not.
func SensitivePath(p string) bool {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if p == "" {
		return false
	}
	base := strings.ToLower(path.Base(p))
	for _, s := range exampleSuffixes {
		if strings.HasSuffix(base, s) {
			return false
		}
	}
	if sensitiveNames[base] || sensitiveExts[path.Ext(base)] {
		return true
	}
	// .env.local, .env.production; credentials.prod.json.
	if strings.HasPrefix(base, ".env.") || strings.HasPrefix(base, "credentials.") {
		return true
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		for _, s := range sensitiveDirs {
			if dir == s {
				return true
			}
		}
	}
	return false
}
