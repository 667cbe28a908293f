package tools

import (
	"strings"
	"testing"
)

func TestOutline(t *testing.T) {
	tests := []struct {
		path, src, want string
	}{
		{"x.go", `package x

import (
	"fmt"
	"os"
)

// T is a type.
type T struct{ A int }

type (
	Reader interface{ Read() }
	ID     string
	Alias  = fmt.Stringer
	List[E any] struct{ items []E }
)

var ErrX, errY = os.ErrExist, 1

const Max = 3

func New(a int,
	b string) (*T, error) {
	return nil, nil
}

func (t *T) Method(ctx any) error { return nil }
`, `L1: package x
L3: imports: 2
L9: type T struct
L12: type Reader interface
L13: type ID string
L14: type Alias = fmt.Stringer
L15: type List[E any] struct
L18: var ErrX
L20: const Max
L22: func New(a int, b string) (*T, error)
L27: func (t *T) Method(ctx any) error
`},
		{"broken.go", "package b\n\nfunc Good() {}\n\nfunc Bad( {\n", "L1: package b\nL3: func Good()\nL5: func Bad()\n"},
		{"m.py", "import os\n\nclass A(Base):\n    def f(self, x):\n        if x:\n            pass\n\n    async def g(self):\n        pass\n\ndef top():\n    pass\n",
			"L3: class A(Base):\nL4:     def f(self, x):\nL8:     async def g(self):\nL11: def top():\n"},
		{"a.ts", `export function parse(s: string): Node {
  return null;
}
export default class Parser extends Base {
  private async run(x: number): Promise<void> {
    if (x) {
      call(x);
    }
  }
}
export const handler = async (req, res) => {
};
const plain = 5;
export interface Opts {
}
type Alias = string;
`, "L1: export function parse(s: string): Node {\nL4: export default class Parser extends Base {\nL5:   private async run(x: number): Promise<void> {\nL11: export const handler = async (req, res) => {\nL14: export interface Opts {\nL16: type Alias = string;\n"},
		{"lib.rs", "use std::io;\n\npub struct S {\n    a: i32,\n}\n\nimpl S {\n    pub fn new() -> Self {\n        S { a: 1 }\n    }\n    async fn go(&self) {}\n}\n\npub(crate) enum E { A }\ntrait T {}\nmod m;\n",
			"L3: pub struct S {\nL7: impl S {\nL8:     pub fn new() -> Self {\nL11:     async fn go(&self) {}\nL14: pub(crate) enum E { A }\nL15: trait T {}\nL16: mod m;\n"},
		{"A.java", `package p;

public class A extends B implements C {
    private int x = 0;

    public A(int x) {
        this.x = x;
    }

    @Override
    public List<String> names(int n) throws IOException {
        if (n > 0) {
            return foo(n);
        }
        String s = compute(n);
        return null;
    }
}

interface I {
    void run();
}
`, "L3: public class A extends B implements C {\nL6:     public A(int x) {\nL11:     public List<String> names(int n) throws IOException {\nL20: interface I {\nL21:     void run();\n"},
		{"r.rb", "module M\n  class K < Base\n    def initialize(a)\n    end\n    def self.build\n    end\n  end\nend\n",
			"L1: module M\nL2:   class K < Base\nL3:     def initialize(a)\nL5:     def self.build\n"},
		{"doc.md", "# Title\n\ntext\n\n```sh\n# not a heading\n```\n\n## Part\n", "L1: # Title\nL9: ## Part\n"},
		{"data.csv", "a,b\n", ""},
	}
	for _, tt := range tests {
		if got := Outline(tt.path, []byte(tt.src)); got != tt.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tt.path, got, tt.want)
		}
	}
}

func TestOutlineClipsLongLines(t *testing.T) {
	src := "def f(" + strings.Repeat("a, ", 200) + "z):\n    pass\n"
	got := Outline("x.py", []byte(src))
	if len(got) > outlineLineMax+20 || !strings.HasSuffix(got, " …\n") {
		t.Errorf("outline line not clipped: %q", got)
	}
}
