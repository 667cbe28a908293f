package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

//go:embed read_file.md
var readFileDoc string

const (
	readMaxBytes     = 64 << 10 // default max_bytes, and the auto-mode size limit
	readMaxBytesCap  = 1 << 20
	readAutoMaxLines = 800
	previewLines     = 120
	outlineReadMax   = 8 << 20 // bytes of a file an outline reads
	shownLineMax     = 2000    // numbered lines are clipped here
	readNoteRoom     = 512     // notes may pass max_bytes by this much
)

type readFileTool struct{ spec }

type readFileArgs struct {
	Path      string `json:"path"`
	Mode      string `json:"mode"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	MaxBytes  int    `json:"max_bytes"`
}

func newReadFile() Tool {
	return readFileTool{spec{name: "read_file", doc: readFileDoc, access: ReadOnly, schema: `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "file path relative to the workspace root"},
    "mode": {"type": "string", "enum": ["outline", "preview", "range", "full"], "description": "what to return; omit for the whole file when it is small, else its outline and first 120 lines"},
    "start_line": {"type": "integer", "minimum": 1, "description": "range: first line (default 1)"},
    "end_line": {"type": "integer", "minimum": 1, "description": "range: last line (default: as far as max_bytes allows)"},
    "max_bytes": {"type": "integer", "minimum": 1, "maximum": 1048576, "description": "output limit in bytes (default 65536)"}
  },
  "required": ["path"],
  "additionalProperties": false
}`}}
}

// Run reads one workspace file, or one of a skill's files, in the
// requested mode.
func (t readFileTool) Run(_ context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a readFileArgs
	if err := decodeArgs(raw, &a); err != nil {
		return errResult("read_file: %v", err), nil
	}
	if a.Path == "" {
		return errResult(`read_file: "path" is required`), nil
	}
	maxBytes, err := intArg("max_bytes", a.MaxBytes, readMaxBytes, 1, readMaxBytesCap)
	if err != nil {
		return errResult("read_file: %v", err), nil
	}
	if a.Mode == "" && (a.StartLine > 0 || a.EndLine > 0) {
		a.Mode = "range"
	}
	switch {
	case a.Mode != "" && a.Mode != "outline" && a.Mode != "preview" && a.Mode != "range" && a.Mode != "full":
		return errResult("read_file: unknown mode %q; use outline, preview, range or full", a.Mode), nil
	case a.StartLine < 0 || a.EndLine < 0:
		return errResult(`read_file: "start_line" and "end_line" count from 1`), nil
	case a.EndLine > 0 && a.EndLine < max(a.StartLine, 1):
		return errResult("read_file: end_line %d is before start_line %d", a.EndLine, a.StartLine), nil
	case a.Mode != "range" && (a.StartLine > 0 || a.EndLine > 0):
		return errResult(`read_file: "start_line" and "end_line" only apply to mode "range"`), nil
	}
	abs, rel, err := env.resolveRead(a.Path)
	if err != nil {
		return pathError(a.Path, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return pathError(rel, err)
	case fi.IsDir():
		return errResult("read_file: %s is a directory; use list_files", rel), nil
	case !fi.Mode().IsRegular():
		// Opening a FIFO or a device could block forever.
		return errResult("read_file: %s is not a regular file (%s)", rel, fi.Mode().Type()), nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return pathError(rel, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(sniffLen)
	if isBinary(head) {
		return Result{Text: fmt.Sprintf("%s is a binary file (%d bytes, %s); its bytes are not shown",
			rel, fi.Size(), http.DetectContentType(head))}, nil
	}
	text, err := readMode(br, rel, fi.Size(), a, maxBytes)
	if err != nil {
		return Result{}, fmt.Errorf("read_file %s: %w", rel, err)
	}
	return Result{Text: clipText(text, maxBytes+readNoteRoom)}, nil
}

// readMode renders the file read from r in mode a.Mode.
func readMode(r *bufio.Reader, rel string, size int64, a readFileArgs, maxBytes int) (string, error) {
	switch a.Mode {
	case "range":
		from := max(a.StartLine, 1)
		sp, err := numbered(r, from, a.EndLine, maxBytes)
		if err != nil {
			return "", err
		}
		if sp.last == 0 {
			return fmt.Sprintf("%s has %d lines; start_line %d is past the end", rel, sp.total, from), nil
		}
		return sp.text + sp.note(rel), nil
	case "preview":
		sp, err := numbered(r, 1, previewLines, maxBytes)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s (%d bytes), lines 1-%d:\n", rel, size, sp.last) + sp.text + sp.note(rel), nil
	case "outline":
		src, err := io.ReadAll(io.LimitReader(r, outlineReadMax))
		if err != nil {
			return "", err
		}
		return clipText(outlineText(rel, size, src), maxBytes), nil
	case "full":
		data, err := io.ReadAll(io.LimitReader(r, int64(maxBytes)+1))
		if err != nil {
			return "", err
		}
		return fullText(data, rel, size, maxBytes), nil
	}
	if size <= readMaxBytes {
		data, err := io.ReadAll(io.LimitReader(r, readMaxBytes+1))
		if err != nil {
			return "", err
		}
		if len(data) <= readMaxBytes && bytes.Count(data, []byte("\n")) <= readAutoMaxLines {
			return fullText(data, rel, size, maxBytes), nil
		}
		r = bufio.NewReader(io.MultiReader(bytes.NewReader(data), r))
	}
	return bigView(r, rel, size, maxBytes)
}

// fullText renders the file's text, cut at a line boundary within
// maxBytes with a note saying where to continue.
func fullText(data []byte, rel string, size int64, maxBytes int) string {
	if len(data) <= maxBytes && int64(len(data)) == size {
		return emptyNote(string(data))
	}
	n := min(len(data), maxBytes)
	cut := bytes.LastIndexByte(data[:n], '\n') + 1
	if cut == 0 {
		cut = runeStart(string(data), n)
	}
	shown := bytes.Count(data[:cut], []byte("\n"))
	return string(data[:cut]) + fmt.Sprintf("\n… [%s is %d bytes; shown the first %d (%d lines) within max_bytes; continue with mode=range start_line=%d]\n",
		rel, size, cut, shown, shown+1)
}

// bigView is the default answer for a large file: its outline and first
// lines, with a note on how to read more.
func bigView(r *bufio.Reader, rel string, size int64, maxBytes int) (string, error) {
	src, err := io.ReadAll(io.LimitReader(r, outlineReadMax))
	if err != nil {
		return "", err
	}
	lines := bytes.Count(src, []byte("\n"))
	more := ""
	if int64(len(src)) < size {
		more = "+"
	}
	sp, err := numbered(bytes.NewReader(src), 1, previewLines, maxBytes/2)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s is large (%d bytes, %d%s lines): showing its outline and lines 1-%d. Read more with mode=range start_line/end_line, or mode=full.\n\n",
		rel, size, lines, more, sp.last)
	if o := Outline(rel, src); o != "" {
		b.WriteString("OUTLINE:\n" + clipText(o, maxBytes/2) + "\n")
	} else {
		b.WriteString("(no outline for this file type)\n\n")
	}
	b.WriteString("FIRST LINES:\n" + sp.text)
	return b.String(), nil
}

// outlineText renders mode=outline.
func outlineText(rel string, size int64, src []byte) string {
	o := Outline(rel, src)
	if o == "" {
		return fmt.Sprintf("%s (%d bytes) has no outline (no declarations found, or an unsupported file type); use mode=preview or mode=range", rel, size)
	}
	note := ""
	if int64(len(src)) < size {
		note = fmt.Sprintf(" (outline of the first %d bytes)", len(src))
	}
	return fmt.Sprintf("outline of %s (%d bytes)%s:\n%s", rel, size, note, o)
}

func emptyNote(s string) string {
	if s == "" {
		return "(empty file)"
	}
	return s
}
