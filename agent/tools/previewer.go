package tools

import "errors"

// Previewer is implemented by tools whose effect can be shown before the
// user approves it (a unified diff for write_file and edit_file, the
// command for shell). Preview must not change anything.
type Previewer interface {
	Preview(env *Env, args []byte) (string, error)
}

// Permissioned is implemented by tools some of whose calls need a
// permission of their own, granted apart from the tool's: a shell command
// that asks for the network is checked as "shell.network".
type Permissioned interface {
	Permission(args []byte) string
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
