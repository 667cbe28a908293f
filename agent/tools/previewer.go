package tools

// Previewer is implemented by tools whose effect can be shown before the
// user approves it (a unified diff for write_file and edit_file, the
// command for shell). Preview must not change anything.
type Previewer interface {
	Preview(env *Env, args []byte) (string, error)
}
