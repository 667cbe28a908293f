package diet

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kwsdev/kws/vault"
	"github.com/kwsdev/kws/vault/vaulttest"
)

func TestAnswerFaults(t *testing.T) {
	v := vaulttest.MustOpen(t)
	data := "FAILED tests/test_auth.py::test_refresh - AssertionError\n"
	id, err := v.Put([]byte(data), vault.Meta{Kind: "tool:shell", Summary: "err=AssertionError"})
	if err != nil {
		t.Fatal(err)
	}
	faults, errs := ParseFaults(".ctx_get id=" + id + " reason=need it\n.ctx_search query=test_refresh assertion reason=find\n.ctx_get id=ctx:000000000000 reason=x")
	if len(errs) != 0 || len(faults) != 3 {
		t.Fatalf("faults %+v errs %v", faults, errs)
	}
	got := Answer(v, v, faults[0])
	if got != FormatExact(id, []byte(data)) || !strings.Contains(got, "original_chars=57") {
		t.Fatalf("get answer %q", got)
	}
	search := Answer(v, v, faults[1])
	if !strings.Contains(search, id) || strings.Contains(search, "FAILED tests") {
		t.Fatalf("search answer must list refs, not text: %q", search)
	}
	if miss := Answer(v, v, faults[2]); !strings.HasPrefix(miss, "<ctx_error") {
		t.Fatalf("unknown id answer %q", miss)
	}
}

func TestFormatExactEscapesInvalidUTF8(t *testing.T) {
	got := FormatExact("ctx:001122334455", []byte("ok \\ \xff\xfe end"))
	if !strings.Contains(got, `escaped="true"`) || !strings.Contains(got, `ok \\ \xff\xfe end`) || !utf8.ValidString(got) {
		t.Fatalf("escaped exact block: %q", got)
	}
	if plain := FormatExact("ctx:001122334455", []byte("a\\b")); strings.Contains(plain, "escaped") || !strings.Contains(plain, "a\\b") {
		t.Fatalf("valid UTF-8 must be sent as is: %q", plain)
	}
}

func TestAnswerOfDamagedBlockNeverServesIt(t *testing.T) {
	v := vaulttest.MustOpen(t)
	data := "DB_HOST=db.internal\nline two of a config the model asked for\n"
	id, err := v.Put([]byte(data), vault.Meta{Kind: "tool:shell"})
	if err != nil {
		t.Fatal(err)
	}
	v = vaulttest.DamageBlock(t, v, []byte(data))
	got := Answer(v, v, Fault{Op: "get", ID: id})
	if !strings.HasPrefix(got, `<ctx_error id="`+id+`" damaged="true">`) || !strings.Contains(got, "is damaged") {
		t.Fatalf("damaged block answer %q", got)
	}
	if strings.Contains(got, "db.internal") || strings.Contains(got, "line two") {
		t.Fatalf("the damaged block's bytes were served: %q", got)
	}
}
