package tools

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// outlineLineMax bounds one outline entry.
const outlineLineMax = 200

// Outline returns the structure of a source file, one "L<n>: <signature>"
// line per declaration: for Go (parsed with go/parser) the package, the
// import count, types, and functions and methods with their signatures;
// for Python, JavaScript/TypeScript, Rust, Java, Ruby and Markdown the
// lines that declare classes, functions, methods and the like, found by
// patterns and keeping their indentation. It returns "" for other files
// and for files with no declarations.
func Outline(path string, src []byte) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".go" {
		if out, ok := outlineGo(src); ok {
			return out
		}
	}
	pats, ok := outlinePatterns[ext]
	if !ok {
		return ""
	}
	markdown := ext == ".md" || ext == ".markdown"
	inFence := false
	var b strings.Builder
	n := 0
	for line := range bytes.Lines(src) {
		n++
		line = bytes.TrimRight(line, " \t\r\n")
		if markdown && (bytes.HasPrefix(line, []byte("```")) || bytes.HasPrefix(line, []byte("~~~"))) {
			inFence = !inFence
		}
		if len(line) == 0 || inFence {
			continue
		}
		for _, p := range pats {
			if p.MatchString(string(line)) && !controlLine(line) {
				writeOutlineLine(&b, n, string(line))
				break
			}
		}
	}
	return b.String()
}

// writeOutlineLine appends one "L<n>: text" entry, clipped.
func writeOutlineLine(b *strings.Builder, n int, text string) {
	text = strings.ToValidUTF8(text, "\uFFFD")
	if len(text) > outlineLineMax {
		text = text[:runeStart(text, outlineLineMax)] + " …"
	}
	fmt.Fprintf(b, "L%d: %s\n", n, text)
}

// outlineGo outlines Go source with go/parser; a file with syntax errors
// is outlined as far as it parsed. ok is false when nothing parsed.
func outlineGo(src []byte) (string, bool) {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if f == nil || f.Name == nil {
		return "", false
	}
	var b strings.Builder
	line := func(p token.Pos) int { return fset.Position(p).Line }
	writeOutlineLine(&b, line(f.Package), "package "+f.Name.Name)
	if len(f.Imports) > 0 {
		at := f.Imports[0].Pos()
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				at = g.Pos()
				break
			}
		}
		writeOutlineLine(&b, line(at), "imports: "+strconv.Itoa(len(f.Imports)))
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			sig := *d
			sig.Doc, sig.Body = nil, nil
			writeOutlineLine(&b, line(d.Pos()), goNode(fset, &sig))
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					writeOutlineLine(&b, line(s.Pos()), "type "+goTypeSpec(fset, s))
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							writeOutlineLine(&b, line(n.Pos()), d.Tok.String()+" "+n.Name)
						}
					}
				}
			}
		}
	}
	return b.String(), true
}

// goTypeSpec prints a type spec with struct and interface bodies elided:
// "Foo struct", "Reader interface", "ID string", "Alias = other.T".
func goTypeSpec(fset *token.FileSet, s *ast.TypeSpec) string {
	c := *s
	c.Doc, c.Comment = nil, nil
	switch c.Type.(type) {
	case *ast.StructType:
		c.Type = ast.NewIdent("struct")
	case *ast.InterfaceType:
		c.Type = ast.NewIdent("interface")
	}
	return goNode(fset, &c)
}

// goNode prints node on one line.
func goNode(fset *token.FileSet, node any) string {
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, fset, node); err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(buf.String()), " ")
}

// controlKeywords start statements that method patterns would otherwise
// take for declarations ("if (x) {", "return foo(y);").
var controlKeywords = []string{"if", "for", "while", "switch", "catch", "return", "else",
	"new", "throw", "await", "yield", "do", "try", "case", "typeof", "delete"}

func controlLine(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	for _, k := range controlKeywords {
		if bytes.HasPrefix(t, []byte(k)) && (len(t) == len(k) || !isIdentByte(t[len(k)])) {
			return true
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

var (
	pyPatterns = compileAll(
		`^\s*(async\s+)?def\s+\w+`,
		`^\s*class\s+\w+`,
	)
	jsPatterns = compileAll(
		`^\s*(export\s+)?(default\s+)?(async\s+)?function\s*\*?\s*\w+\s*[(<]`,
		`^\s*(export\s+)?(default\s+)?(abstract\s+)?class\s+\w+`,
		`^\s*(export\s+)?(declare\s+)?(interface|enum|type)\s+\w+`,
		`^\s*(export\s+)?(const|let|var)\s+\w+\s*(:[^=]+)?=\s*(async\s+)?(function\b|(\([^)]*\)|\w+)\s*(:\s*[^=]+)?=>)`,
		`^\s+((public|private|protected|static|async|readonly|override|get|set)\s+)*\*?\w+\s*(<[^>]*>)?\([^)]*\)\s*(:\s*[^{;=]+)?\{\s*$`,
	)
	rustPatterns = compileAll(
		`^\s*(pub(\([^)]*\))?\s+)?((async|const|unsafe|default)\s+)*(extern\s+"[^"]*"\s+)?fn\s+\w+`,
		`^\s*(pub(\([^)]*\))?\s+)?(struct|enum|union|trait|mod|type)\s+\w+`,
		`^\s*(unsafe\s+)?impl\b`,
		`^\s*macro_rules!\s*\w+`,
	)
	javaPatterns = compileAll(
		`^\s*(@\w+\s+)*((public|private|protected|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(class|interface|enum|record|@interface)\s+\w+`,
		`^\s*(@\w+\s+)*((public|private|protected|static|final|abstract|synchronized|native|default|strictfp)\s+)*(<[^>]+>\s+)?[\w.$]+(<[^=;()]*>)?(\[\])*\s+\w+\s*\([^=;]*(\)\s*(throws\s+[\w.,\s]+)?\s*[{;]?\s*)?$`,
	)
	rubyPatterns = compileAll(
		`^\s*(class|module)\s+[A-Z]\w*`,
		`^\s*def\s+(self\.)?[\w?!=<>\[\]+\-*/%]+`,
	)
	markdownPatterns = compileAll(`^#{1,6}\s+\S`)
)

// outlinePatterns maps a file extension to its declaration patterns.
var outlinePatterns = map[string][]*regexp.Regexp{
	".py": pyPatterns, ".pyi": pyPatterns,
	".js": jsPatterns, ".jsx": jsPatterns, ".mjs": jsPatterns, ".cjs": jsPatterns,
	".ts": jsPatterns, ".tsx": jsPatterns, ".mts": jsPatterns, ".cts": jsPatterns,
	".rs":   rustPatterns,
	".java": javaPatterns,
	".rb":   rubyPatterns, ".rake": rubyPatterns,
	".md": markdownPatterns, ".markdown": markdownPatterns,
}

func compileAll(exprs ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		out[i] = regexp.MustCompile(e)
	}
	return out
}
