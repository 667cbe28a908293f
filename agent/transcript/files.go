package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// tempSuffix ends the name of a file being written by writeFileAtomic.
const tempSuffix = ".tmp"

// readJSON decodes the JSON file at path into v, keeping numbers exact.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if err := decodeJSON(data, v); err != nil {
		return fmt.Errorf("transcript: %s: %w", path, err)
	}
	return nil
}

// writeJSONAtomic replaces the file at path with v as indented JSON.
func writeJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("transcript: encode %s: %w", filepath.Base(path), err)
	}
	return writeFileAtomic(path, append(data, '\n'))
}

// writeFileAtomic replaces the file at path with data.
func writeFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic replaces the file at path with what write writes: it writes
// a hidden temp file in the same folder, fsyncs it, renames it over path
// and fsyncs the folder. When any step fails the temp file is removed and
// the old file is left as it was.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, "."+base+".*"+tempSuffix)
	if err != nil {
		return fmt.Errorf("transcript: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("transcript: write %s: %w", path, err)
	}
	if err := write(f); err != nil {
		return fmt.Errorf("transcript: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("transcript: sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("transcript: close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("transcript: replace %s: %w", path, err)
	}
	return syncDir(filepath.Clean(dir))
}

// syncDir fsyncs a folder so that entries created or renamed in it
// survive a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("transcript: open %s: %w", dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("transcript: sync %s: %w", dir, err)
	}
	return nil
}

// removeStaleTemps deletes temp files left by a writeAtomic that a crash
// interrupted. Failing to remove one is harmless, so errors are ignored.
func removeStaleTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && strings.HasSuffix(name, tempSuffix) && !e.IsDir() {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}

// decodeJSON decodes one JSON value from data into v, keeping numbers in
// untyped values exact (json.Number) and rejecting trailing data.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
