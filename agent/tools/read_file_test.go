package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// numberedFile returns n lines "line 1\n" … "line n\n".
func numberedFile(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	bigGo := "package big\n\nimport \"fmt\"\n\n// F does it.\nfunc F() { fmt.Println() }\n\n" + strings.Repeat("// filler\n", 900) + "func Last() {}\n"
	env := newEnv(t, map[string]string{
		"small.txt":  "hello\nworld\n",
		"empty.txt":  "",
		"lines.txt":  numberedFile(300),
		"big.go":     bigGo,
		"wide.txt":   strings.Repeat("x", 70<<10) + "\n",
		"bin.dat":    "\x00\x01\x02PNG",
		"crlf.txt":   "a\r\nb\r\n",
		"dir/x.txt":  "x\n",
		"notext.txt": "no outline here\n",
	})
	tests := []struct {
		name    string
		args    string
		isError bool
		want    []string
		absent  []string
	}{
		{"small whole", `{"path":"small.txt"}`, false, []string{"hello\nworld\n"}, []string{"|"}},
		{"empty", `{"path":"empty.txt"}`, false, []string{"(empty file)"}, nil},
		{"range", `{"path":"lines.txt","mode":"range","start_line":10,"end_line":12}`, false,
			[]string{"  10| line 10\n  11| line 11\n  12| line 12\n"}, []string{"line 9\n", "line 13"}},
		{"range implied", `{"path":"lines.txt","start_line":299}`, false,
			[]string{" 299| line 299\n 300| line 300\n[end of lines.txt: 300 lines]"}, nil},
		{"range past end", `{"path":"lines.txt","start_line":400}`, false, []string{"has 300 lines; start_line 400 is past the end"}, nil},
		{"range budget", `{"path":"lines.txt","mode":"range","max_bytes":100}`, false,
			[]string{"   1| line 1\n", "stopped after line", "continue with mode=range start_line="}, []string{"line 20\n"}},
		{"preview", `{"path":"lines.txt","mode":"preview"}`, false, []string{"lines 1-120", " 120| line 120\n"}, []string{"line 121"}},
		{"full", `{"path":"lines.txt","mode":"full"}`, false, []string{"line 1\nline 2\n", "line 300\n"}, []string{"|"}},
		{"full cut", `{"path":"lines.txt","mode":"full","max_bytes":50}`, false,
			[]string{"line 1\n", "continue with mode=range start_line=8"}, []string{"line 8"}},
		{"big file auto", `{"path":"big.go"}`, false,
			[]string{"big.go is large", "OUTLINE:", "L1: package big", "L6: func F()", "L908: func Last()", "FIRST LINES:", "   6| func F() { fmt.Println() }", " 120| // filler"},
			[]string{" 121| "}},
		{"wide file auto", `{"path":"wide.txt"}`, false, []string{"wide.txt is large", "line is 71680 bytes"}, nil},
		{"outline", `{"path":"big.go","mode":"outline"}`, false, []string{"outline of big.go", "L3: imports: 1", "L6: func F()"}, nil},
		{"no outline", `{"path":"notext.txt","mode":"outline"}`, false, []string{"has no outline"}, nil},
		{"binary", `{"path":"bin.dat"}`, false, []string{"bin.dat is a binary file (6 bytes"}, []string{"PNG"}},
		{"crlf range", `{"path":"crlf.txt","mode":"preview"}`, false, []string{"   1| a\n   2| b\n"}, []string{"\r"}},
		{"directory", `{"path":"dir"}`, true, []string{"dir is a directory; use list_files"}, nil},
		{"missing", `{"path":"nope.txt"}`, true, []string{"no such file or directory: nope.txt"}, nil},
		{"no path", `{}`, true, []string{`"path" is required`}, nil},
		{"bad mode", `{"path":"small.txt","mode":"all"}`, true, []string{`unknown mode "all"`}, nil},
		{"lines without range", `{"path":"small.txt","mode":"full","start_line":2}`, true, []string{`only apply to mode "range"`}, nil},
		{"end before start", `{"path":"small.txt","start_line":5,"end_line":2}`, true, []string{"end_line 2 is before start_line 5"}, nil},
		{"max_bytes too big", `{"path":"small.txt","max_bytes":99999999}`, true, []string{`"max_bytes" must be between`}, nil},
		{"wrong type", `{"path":"small.txt","start_line":"3"}`, true, []string{`argument "start_line" must be an integer, not string`}, nil},
	}
	for _, tt := range tests {
		res := call(t, env, "read_file", tt.args)
		if res.IsError != tt.isError {
			t.Errorf("%s: IsError = %v; text:\n%.500s", tt.name, res.IsError, res.Text)
		}
		for _, w := range tt.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("%s: lacks %q; text:\n%.1500s", tt.name, w, res.Text)
			}
		}
		for _, a := range tt.absent {
			if strings.Contains(res.Text, a) {
				t.Errorf("%s: should not contain %q; text:\n%.1500s", tt.name, a, res.Text)
			}
		}
		if len(res.Text) > readMaxBytes+readNoteRoom {
			t.Errorf("%s: result is %d bytes", tt.name, len(res.Text))
		}
	}
}

func TestReadFileHugeRange(t *testing.T) {
	env := newEnv(t, map[string]string{"huge.txt": numberedFile(200_000)})
	res := call(t, env, "read_file", `{"path":"huge.txt","start_line":150000,"end_line":150002}`)
	checkResult(t, res, false, "150000| line 150000\n150001| line 150001\n150002| line 150002\n")
	res = call(t, env, "read_file", `{"path":"huge.txt"}`)
	checkResult(t, res, false, "huge.txt is large", "200000 lines", "no outline for this file type", "FIRST LINES:")
}

func TestReadFileRefusesSpecialFiles(t *testing.T) {
	env := newEnv(t, nil)
	fifo := filepath.Join(env.Workspace, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	checkResult(t, call(t, env, "read_file", `{"path":"pipe"}`), true, "pipe is not a regular file")
	checkResult(t, call(t, env, "write_file", `{"path":"pipe","content":"x"}`), true, "pipe is not a regular file")
	checkResult(t, call(t, env, "edit_file", `{"path":"pipe","old_string":"a","new_string":"b"}`), true, "pipe is not a regular file")
}
