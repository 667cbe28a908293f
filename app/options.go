package app

import (
	"fmt"
	"path/filepath"
)

// ResolveWorkspace is dir as an absolute path with its symbolic links
// resolved, the form every session and run records its workspace in.
func ResolveWorkspace(dir string) (string, error) {
	ws, err := filepath.Abs(dir)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	return ws, nil
}
