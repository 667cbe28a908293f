package tools

import "errors"

// Previewer is implemented by tools whose effect can be shown before the
// user approves it (a unified diff for write_file and edit_file, the
// command for shell). Preview must not change anything.
type Previewer interface {
	Preview(env *Env, args []byte) (string, error)
}

// previewOf turns a planned file change into its unified-diff preview; a
// model mistake in the arguments becomes the error.
func previewOf[P interface{ diff() string }](p P, bad *Result, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if bad != nil {
		return "", errors.New(bad.Text)
	}
	return p.diff(), nil
}
