package app

import (
	"crypto/sha256"
	"unsafe"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/tokens"
	"github.com/kwsdev/kws/vault"
)

// Keep stores data in the vault with the diet's extractive description
// and an exact token count, as every block the user keeps by hand. data
// must not change until Keep returns: the describer and the counter read
// it in place, since a block can be hundreds of megabytes.
func Keep(v *vault.Vault, kind, agent string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", vault.ErrEmpty
	}
	text := unsafe.String(&data[0], len(data))
	d := diet.Describe(kind, text)
	c := tokens.Default().CountHashed(sha256.Sum256(data), text)
	m := d.Meta(kind, -1, c.Tokens, !c.Exact)
	m.Agent = agent
	return v.Put(data, m)
}
