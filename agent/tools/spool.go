package tools

import (
	"fmt"
	"io"
	"os"
)

// spools copy a command's stdout and stderr to temporary files while the
// bounded head/tail buffers keep what the model sees, so output too big to
// return whole can still go to the vault exactly.
type spools struct {
	files [2]*os.File
	err   [2]error
}

// newSpools creates the two spool files, or none when enabled is false.
func newSpools(enabled bool) (*spools, error) {
	s := &spools{}
	if !enabled {
		return s, nil
	}
	for i := range s.files {
		f, err := os.CreateTemp("", "kws-shell-*.out")
		if err != nil {
			s.remove()
			return nil, fmt.Errorf("spool output: %w", err)
		}
		s.files[i] = f
	}
	return s, nil
}

// tee returns the writer for stream i: the bounded buffer and, when
// spooling, the spool file. A failing spool stops spooling, never the
// command.
func (s *spools) tee(i int, buf *headTail) io.Writer {
	if s.files[i] == nil {
		return buf
	}
	return writerFunc(func(p []byte) (int, error) {
		buf.Write(p)
		if s.err[i] == nil {
			_, s.err[i] = s.files[i].Write(p)
		}
		return len(p), nil
	})
}

// keep vaults stream i when its buffer had to cut it and returns the note
// for the stream's heading, e.g. " (104857600 bytes, exact in the vault as
// ctx:…: ctx_get it, or grep a file you write it to)".
func (s *spools) keep(env *Env, i int, name string, buf *headTail) string {
	total := buf.Total()
	if s.files[i] == nil || total <= int64(shellHead+shellTail) {
		return ""
	}
	if s.err[i] != nil {
		return fmt.Sprintf(" (%d bytes; the full output could not be kept: %v)", total, s.err[i])
	}
	data, err := os.ReadFile(s.files[i].Name())
	if err == nil {
		var id string
		if id, err = env.Keep("tool:shell "+name, data); err == nil {
			return fmt.Sprintf(" (%d bytes, exact in the vault as %s; below are its first and last bytes)", total, id)
		}
	}
	return fmt.Sprintf(" (%d bytes; the full output could not be kept: %v)", total, err)
}

// remove deletes the spool files.
func (s *spools) remove() {
	for _, f := range s.files {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
