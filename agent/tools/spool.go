package tools

import (
	"fmt"
	"io"
	"os"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/vault"
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
func (s *spools) tee(i int, buf *HeadTail) io.Writer {
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

// keep vaults stream i when its buffer had to cut it. It returns the note
// for the stream's heading, e.g. " (104857600 bytes, exact in the vault as
// ctx:…; …)", and, once the stream is in the vault, the view the model
// gets instead of the buffer's bytes: the ref, the first and last 40 lines
// and the error, test-summary, URL and heading lines between them
// (diet.Compact). That view is small enough that the diet keeps it as it
// is, so the output is stored once, whole.
func (s *spools) keep(env *Env, i int, name string, buf *HeadTail) (note, view string, kept bool) {
	total := buf.Total()
	if s.files[i] == nil || total <= int64(shellHead+shellTail) {
		return "", "", false
	}
	if s.err[i] != nil {
		return fmt.Sprintf(" (%d bytes; the full output could not be kept: %v)", total, s.err[i]), "", false
	}
	data, err := os.ReadFile(s.files[i].Name())
	if err == nil {
		var id string
		if id, err = env.Keep("tool:shell "+name, data); err == nil {
			ref := vault.Ref{Tag: vault.TagCtx, ID: id, Chars: len(data)}
			return fmt.Sprintf(" (%d bytes, exact in the vault as %s; below: its first and last lines and the notable ones between)", total, id),
				diet.Compact(string(data), ref.String()), true
		}
	}
	return fmt.Sprintf(" (%d bytes; the full output could not be kept: %v)", total, err), "", false
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
