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

// describeNow is the largest block the server describes before it
// answers a put; a larger one is described in the background.
const describeNow = 64 << 10

// KeepLater is Keep for the server, which must answer a put at once: a
// large block is stored with a provisional description (its tokens
// estimated, and sensitive until a scan says otherwise, so nothing serves
// it to a model meanwhile) and described in the background, exactly as
// Keep would; the panes learn of it when it is done.
func (st *Stores) KeepLater(kind string, data []byte) (string, error) {
	if len(data) <= describeNow {
		return Keep(st.vault, kind, "", data)
	}
	text := unsafe.String(&data[0], len(data))
	id, err := st.vault.Put(data, vault.Meta{Kind: kind, MsgIndex: -1, Tokens: tokens.Estimate(text), TokensEstimated: true,
		Sensitive: true, Summary: "(being described)"})
	if err != nil {
		return "", err
	}
	st.bg.Add(1)
	go func() {
		defer st.bg.Done()
		d := diet.Describe(kind, text)
		c := tokens.Default().CountHashed(sha256.Sum256(data), text)
		m := d.Meta(kind, -1, c.Tokens, !c.Exact)
		err := st.vault.Redescribe(id, vault.Described{Tokens: m.Tokens, TokensEstimated: m.TokensEstimated, Files: m.Files,
			Topics: m.Topics, Command: m.Command, Summary: m.Summary, Confidence: m.Confidence, Priority: m.Priority, Sensitive: m.Sensitive})
		if err != nil {
			st.log.Warn("describe a stored block", "id", id, "error", err)
			return
		}
		st.Changed()
	}()
	return id, nil
}
