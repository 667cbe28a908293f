package vault

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// segStore is a map of blocks for resolving segments in tests.
type segStore map[string][]byte

func (m segStore) get(id string) ([]byte, error) {
	if b, ok := m[id]; ok {
		return b, nil
	}
	return nil, ErrNotFound
}

func TestSpansFormatAndParse(t *testing.T) {
	src := []byte("Traceback (most recent call last):\n  File \"x.py\", line 3\nValueError: bad\n")
	store := segStore{IDFor(src): src}
	parts := []Span{
		{Lit: []byte("rerun:\n")},
		{ID: IDFor(src), At: 0, N: len(src), Hint: "Traceback (most recent call last):"},
		{Lit: []byte("done <il:seg and <il:lt/> and <b>\n")},
	}
	body := EncodeSpans(parts)
	want := "rerun:\n" + `<il:seg id="` + IDFor(src) + `" at=0 n=` + fmt.Sprint(len(src)) + ` s="Traceback (most recent call last):"/>` +
		"done <il:lt/>il:seg and <il:lt/>il:lt/> and <b>\n"
	if string(body) != want {
		t.Fatalf("body:\n got %q\nwant %q", body, want)
	}
	text := FormatSegmented("ctx:00112233aabb", 99, body)
	id, n, got, ok, err := ParseSegmented(text)
	if !ok || err != nil || id != "ctx:00112233aabb" || n != 99 {
		t.Fatalf("ParseSegmented: %q %d %v %v", id, n, ok, err)
	}
	if !reflect.DeepEqual(got, parts) {
		t.Fatalf("parts:\n got %+v\nwant %+v", got, parts)
	}
	exact, err := ResolveSpans(got, store.get)
	wantExact := "rerun:\n" + string(src) + "done <il:seg and <il:lt/> and <b>\n"
	if err != nil || string(exact) != wantExact {
		t.Fatalf("resolve: %q, %v", exact, err)
	}
}

func TestParseSegmentedNotSegmented(t *testing.T) {
	for _, s := range []string{"", "plain", `<il:spans id="ctx:00112233aabb" n=1>` + "\nx", "<ctx id=\"ctx:00112233aabb\" n=1/>"} {
		if _, _, _, ok, err := ParseSegmented(s); ok || err != nil {
			t.Errorf("ParseSegmented(%q) = ok %v, err %v; want not segmented", s, ok, err)
		}
	}
}

func TestSpansMalformed(t *testing.T) {
	id := `"ctx:00112233aabb"`
	for _, body := range []string{
		`<il:seg id=` + id + ` at=0 n=0/>`,
		`<il:seg id=` + id + ` at=01 n=1/>`,
		`<il:seg id=` + id + ` n=1 at=0/>`,
		`<il:seg id=` + id + ` at=0 n=1>`,
		`<il:seg id=` + id + ` at=0 n=1`,
		`<il:seg id="ctx:zz" at=0 n=1/>`,
		`<il:seg id="CTX:00112233AABB" at=0 n=1/>`,
		`<il:seg id="ctx:00112233aabb at=0 n=1/>`,
		`<il:seg at=0 n=1/>`,
		`<il:seg id=` + id + ` at=-1 n=1/>`,
		`<il:seg id=` + id + ` at=0 n=1234567890123/>`,
		`<il:seg id=` + id + ` at=0 n=1 s=""/>`,
		`<il:seg id=` + id + ` at=0 n=1 s="a<b"/>`,
		`<il:seg id=` + id + ` at=0 n=1 s="a/>`,
		`<il:seg id=` + id + ` at=0 n=1 s="` + "\xff" + `"/>`,
	} {
		parts, err := DecodeSpans([]byte(body))
		if !errors.Is(err, ErrSegMalformed) {
			t.Errorf("DecodeSpans(%q) = %+v, %v; want ErrSegMalformed", body, parts, err)
		}
	}
	for _, text := range []string{
		`<il:spans id="ctx:zz" n=1>` + "\nx\n</il>",
		`<il:spans id="ctx:00112233aabb" n=x>` + "\nx\n</il>",
		`<il:spans id="ctx:00112233aabb" n=1 >` + "\nx\n</il>",
		`<il:spans id="ctx:00112233aabb" n=1>` + "\n<il:seg id=\n</il>",
	} {
		if _, _, _, ok, err := ParseSegmented(text); !ok || !errors.Is(err, ErrSegMalformed) {
			t.Errorf("ParseSegmented(%q) = ok %v, %v; want ErrSegMalformed", text, ok, err)
		}
	}
}

func TestResolveSpansOutOfRange(t *testing.T) {
	src := []byte("0123456789")
	store := segStore{IDFor(src): src}
	for _, s := range []Span{{ID: IDFor(src), At: 5, N: 6}, {ID: IDFor(src), At: 11, N: 1}, {ID: "ctx:00112233aabb", At: 0, N: 1}} {
		if _, err := ResolveSpans([]Span{s}, store.get); err == nil {
			t.Errorf("ResolveSpans(%+v) resolved", s)
		}
	}
}

// segRoundTrip splits data into parts, every third one a segment of data
// itself as block, and checks encode, envelope, decode and resolve.
func segRoundTrip(t *testing.T, data []byte, cuts []byte) {
	store := segStore{IDFor(data): data}
	var parts []Span
	p := 0
	for k, c := range cuts {
		if p >= len(data) {
			break
		}
		n := 1 + int(c)%(len(data)-p)
		if k%3 == 2 {
			parts = append(parts, Span{ID: IDFor(data), At: p, N: n, Hint: string(data[p : p+min(n, 12)])})
		} else {
			parts = append(parts, Span{Lit: data[p : p+n]})
		}
		p += n
	}
	parts = append(parts, Span{Lit: data[p:]})
	text := FormatSegmented(IDFor(data), len(data), EncodeSpans(parts))
	id, n, got, ok, err := ParseSegmented(text)
	if !ok || err != nil || id != IDFor(data) || n != len(data) {
		t.Fatalf("ParseSegmented(%q): %q %d %v %v", text, id, n, ok, err)
	}
	exact, err := ResolveSpans(got, store.get)
	if err != nil || !bytes.Equal(exact, data) {
		t.Fatalf("round trip of %q via %q: %q, %v", data, text, exact, err)
	}
	var hints []string
	for i, s := range got {
		if !s.IsSeg() && (len(s.Lit) == 0 || i > 0 && !got[i-1].IsSeg()) {
			t.Fatalf("parts not normalized: %+v", got)
		}
		if s.IsSeg() {
			hints = append(hints, s.Hint)
		}
	}
	var want []string
	for _, s := range parts {
		if s.IsSeg() {
			want = append(want, CleanHint(s.Hint))
		}
	}
	if !reflect.DeepEqual(hints, want) {
		t.Fatalf("hints %q, want %q", hints, want)
	}
}

func segSeeds() [][]byte {
	return [][]byte{{}, []byte("<"), []byte("<il:seg "), []byte("<il:lt/>"), []byte("<il:lt/>0"), []byte("<<il:seg <il:lt/>\n</il>"),
		[]byte("\xff\xfe<il:seg id=\"ctx:00112233aabb\" at=0 n=1/>"), ilTraceback()}
}

func FuzzSpansRoundTrip(f *testing.F) {
	for _, s := range segSeeds() {
		f.Add(s, []byte{3, 1, 4, 1, 5, 9})
	}
	f.Fuzz(segRoundTrip)
}

func FuzzDecodeSpans(f *testing.F) {
	for _, s := range segSeeds() {
		f.Add(s)
		f.Add(EncodeSpans([]Span{{Lit: s}, {ID: "ctx:00112233aabb", At: 1, N: 2}}))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		parts, err := DecodeSpans(body)
		if err != nil {
			if !errors.Is(err, ErrSegMalformed) {
				t.Fatalf("error does not wrap ErrSegMalformed: %v", err)
			}
			return
		}
		again, err := DecodeSpans(EncodeSpans(parts))
		if err != nil || !reflect.DeepEqual(again, parts) {
			t.Fatalf("re-encoding %+v gave %+v, %v", parts, again, err)
		}
		if _, _, _, _, err := ParseSegmented(string(body)); err != nil && !errors.Is(err, ErrSegMalformed) {
			t.Fatalf("ParseSegmented error does not wrap ErrSegMalformed: %v", err)
		}
	})
}
