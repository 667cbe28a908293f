package vault

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

const ilSite = "/home/runner/work/orders-api/orders-api/.venv/lib/python3.11/site-packages/"

// ilTraceback returns a realistic chained Django REST framework traceback
// with long site-packages paths.
func ilTraceback() []byte {
	frames := []struct {
		file string
		line int
		fn   string
		code string
	}{
		{"django/core/handlers/exception.py", 55, "inner", "response = get_response(request)"},
		{"django/core/handlers/base.py", 197, "_get_response", "response = wrapped_callback(request, *callback_args, **callback_kwargs)"},
		{"django/views/decorators/csrf.py", 56, "wrapper_view", "return view_func(*args, **kwargs)"},
		{"rest_framework/viewsets.py", 125, "view", "return self.dispatch(request, *args, **kwargs)"},
		{"rest_framework/views.py", 509, "dispatch", "response = self.handle_exception(exc)"},
		{"rest_framework/views.py", 469, "handle_exception", "self.raise_uncaught_exception(exc)"},
		{"rest_framework/views.py", 480, "raise_uncaught_exception", "raise exc"},
		{"rest_framework/views.py", 506, "dispatch", "response = handler(request, *args, **kwargs)"},
		{"/app/src/orders/views.py", 88, "create", "serializer.is_valid(raise_exception=True)"},
		{"rest_framework/serializers.py", 227, "is_valid", "self._validated_data = self.run_validation(self.initial_data)"},
		{"rest_framework/serializers.py", 426, "run_validation", "value = self.to_internal_value(data)"},
		{"/app/src/marshmallow/schema.py", 812, "load", "return self._do_load("},
		{"/app/src/marshmallow/schema.py", 992, "_do_load", "raise exc"},
	}
	var b strings.Builder
	for i, msg := range []string{
		"marshmallow.exceptions.ValidationError: {'email': ['Not a valid email address.']}",
		"rest_framework.exceptions.ValidationError: {'email': [ErrorDetail(string='Enter a valid email.', code='invalid')]}",
	} {
		if i > 0 {
			b.WriteString("\nDuring handling of the above exception, another exception occurred:\n\n")
		}
		b.WriteString("Traceback (most recent call last):\n")
		for _, f := range frames[:len(frames)-2*i] {
			file := f.file
			if !strings.HasPrefix(file, "/") {
				file = ilSite + file
			}
			fmt.Fprintf(&b, "  File %q, line %d, in %s\n    %s\n", file, f.line, f.fn, f.code)
		}
		b.WriteString(msg + "\n")
	}
	return []byte(b.String())
}

var ilOverlapping = []byte(strings.Repeat("/root/.pyenv/versions/3.11/lib/python3.11/site-packages/a/b.py "+
	"/root/.pyenv/versions/3.11/lib/python3.11/site-packages/pluggy/_hooks.py /root/.pyenv/versions/x.py "+
	"/root/.pyenv/versions/3.11/lib/y.py\n", 8))

func ilCases() map[string][]byte {
	rnd := rand.New(rand.NewSource(1))
	bin := make([]byte, 4096)
	rnd.Read(bin)
	return map[string][]byte{
		"nil":            nil,
		"newline":        []byte("\n"),
		"three newlines": []byte("\n\n\n"),
		"crlf":           []byte("a\r\nb\r\n\r\n"),
		"marks":          []byte("« » «1» «+3» «=1»x ««"),
		"def first line": []byte("«=1»/root/somewhere/\nbody"),
		"repeat line":    []byte("x\n«+3»\n«+3»\n«+3»"),
		"digit after «":  []byte("«9»\n«0»\n«+0»\n«+01»"),
		"lone C2 at end": []byte("abc\xc2"),
		"lone C2 before «": []byte("/root/.pyenv/x\xc2«/root/.pyenv/y\xc2\n" +
			"/root/.pyenv/x\xc2«/root/.pyenv/y\xc2\n/root/.pyenv/\xab"),
		"invalid utf8":          []byte("\xff\xfe\xc2\xc2\xab\xab\xc2\xbb\xbb\n\xc2"),
		"binary":                bin,
		"prefix at end of line": []byte(strings.Repeat("cd "+ilSite+"\n", 5) + ilSite),
		"overlapping prefixes":  ilOverlapping,
		"blank run":             bytes.Repeat([]byte("\n"), 5000),
		"repeated run":          []byte("start\n" + strings.Repeat("same line here\n", 400) + "end"),
		"short repeats":         []byte("a\na\nb\nb\nb\n\n\n"),
		"traceback":             ilTraceback(),
		"marks in paths":        []byte(strings.Repeat("/srv/«data»/files/x /srv/«data»/files/y\n", 10)),
	}
}

func ilRoundTrip(t testing.TB, data []byte) []byte {
	t.Helper()
	enc := EncodeIL(data)
	dec, err := DecodeIL(enc)
	if err != nil {
		t.Fatalf("DecodeIL(EncodeIL(%.60q)) error: %v\nbody: %.200q", data, err, enc)
	}
	if !bytes.Equal(dec, data) {
		t.Fatalf("round trip mismatch for %.60q\nbody: %.200q\ngot:  %.200q", data, enc, dec)
	}
	return enc
}

func TestILRoundTrip(t *testing.T) {
	for name, data := range ilCases() {
		t.Run(name, func(t *testing.T) {
			enc := ilRoundTrip(t, data)
			if !bytes.Equal(EncodeIL(data), enc) {
				t.Fatal("EncodeIL is not deterministic")
			}
		})
	}
}

func TestILExactBodies(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"\n", "\n"},
		{"\n\n\n", "\n\n\n"},
		{"a«b", "a««b"},
		{"«=1»/root/somewhere/\nx", "««=1»/root/somewhere/\nx"},
		{"«+3»", "««+3»"},
		{"«1»", "««1»"},
		{"a\na", "a\na"},
		{"hello\nhello\nhello\nhello", "hello\n«+3»"},
		{"\n\n\n\n\n\n\n\n\n\n", "\n«+10»"},
	}
	for _, c := range cases {
		if got := string(EncodeIL([]byte(c.in))); got != c.want {
			t.Errorf("EncodeIL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestILCompression(t *testing.T) {
	tb := ilTraceback()
	enc := ilRoundTrip(t, tb)
	if float64(len(enc)) > 0.7*float64(len(tb)) {
		t.Errorf("traceback %d -> %d bytes, want at least 30%% smaller", len(tb), len(enc))
	}
	if !bytes.HasPrefix(enc, []byte("«=1»")) {
		t.Errorf("traceback body has no dictionary: %.120q", enc)
	}
	rep := []byte("start\n" + strings.Repeat("same line here\n", 400) + "end")
	if enc := ilRoundTrip(t, rep); len(enc) > 40 {
		t.Errorf("repeated lines %d -> %d bytes: %q", len(rep), len(enc), enc)
	}
	if enc := ilRoundTrip(t, bytes.Repeat([]byte("\n"), 5000)); len(enc) > 12 {
		t.Errorf("blank run encodes to %q", enc)
	}
	if enc := ilRoundTrip(t, ilOverlapping); !bytes.Contains(enc, []byte("\n«=2»")) {
		t.Errorf("overlapping prefixes use fewer than two definitions: %.300q", enc)
	}
	if enc := ilRoundTrip(t, ilCases()["prefix at end of line"]); !bytes.HasSuffix(enc, []byte("\n«1»")) {
		t.Errorf("prefix at end of line not replaced: %.300q", enc)
	}
	short := []byte("tiny/path/ok.go\nother")
	if enc := ilRoundTrip(t, short); !bytes.Equal(enc, short) {
		t.Errorf("no-gain input changed: %q", enc)
	}
}

func TestILCapFallback(t *testing.T) {
	// Inputs compressing beyond the decoder's 64x cap must still round-trip.
	for _, data := range [][]byte{
		bytes.Repeat([]byte("\n"), 3<<20),
		bytes.Repeat(append(bytes.Repeat([]byte("z"), 999), '\n'), 3000),
	} {
		enc := ilRoundTrip(t, data)
		if int64(len(data)) > ilLimit(len(enc)) {
			t.Fatalf("body of %d bytes exceeds cap for %d decoded bytes", len(enc), len(data))
		}
	}
}

func TestILLargeInputs(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	var log bytes.Buffer
	for log.Len() < 1<<20 {
		switch rnd.Intn(4) {
		case 0:
			fmt.Fprintf(&log, "  File \"%spkg%d/mod%d.py\", line %d\n", ilSite, rnd.Intn(20), rnd.Intn(50), rnd.Intn(999))
		case 1:
			fmt.Fprintf(&log, "src/app/module%d/file%d.go:%d: error «%d»\n", rnd.Intn(30), rnd.Intn(9), rnd.Intn(500), rnd.Intn(10))
		case 2:
			log.WriteString(strings.Repeat("=", rnd.Intn(80)) + "\n")
		default:
			b := make([]byte, rnd.Intn(100))
			rnd.Read(b)
			log.Write(b)
		}
	}
	inputs := map[string][]byte{
		"log":           log.Bytes(),
		"slashes":       bytes.Repeat([]byte("/"), 1<<20),
		"deep path":     bytes.Repeat([]byte("ab/"), 1<<18),
		"marks":         bytes.Repeat([]byte("«"), 1<<19),
		"distinct dirs": []byte(strings.Repeat("/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/ ", 1<<15)),
	}
	for name, data := range inputs {
		start := time.Now()
		enc := ilRoundTrip(t, data)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: %d bytes took %v", name, len(data), d)
		}
		if name == "log" && len(enc) >= len(data) {
			t.Errorf("log did not shrink: %d -> %d", len(data), len(enc))
		}
	}
}

func TestILMalformed(t *testing.T) {
	big := strings.Repeat("x", 1000)
	cases := []string{
		"«", "a«", "«x", "«0»", "«1»", "«1", "«««", "«»", "a«+", "a\n«+1»x",
		"«=1»/abcdefgh/\n«2»",
		"«+1»", "«=1»/abcdefgh/\n«+1»",
		"a\n«+0»", "a\n«+01»", "a\n«+»", "a\n«+1x»", "a\n«+-1»", "a\n«+ 1»",
		"a\n«+99999999999»", "a\n«+9999999999999999999»", "«=1»" + big + "\n«1»\n«+999999999999999999»",
		"«=2»/abcdefgh/\nx", "«=1»/a/\n«=1»/b/\nx", "«=1»\nx", "«=1»", "«=1»/a/\n«=2»/b/",
		"«=0»/abcdefgh/\nx", "«=a»/abcdefgh/\nx", "«=1/abcdefgh/\nx", "«=\nx", "«=1»/a«b/\nx", "«=1»/a»b/\nx",
		"«=1»a\n«=2»b\n«=3»c\n«=4»d\n«=5»e\n«=6»f\n«=7»g\n«=8»h\n«=9»i\n«=:»j\nx",
		"a\n«=1»/abcdefgh/", "x\xc2«", "«\xc2»",
		"«=1»" + big + "\n" + strings.Repeat("«1»", 3000),
	}
	for _, c := range cases {
		out, err := DecodeIL([]byte(c))
		if !errors.Is(err, ErrILMalformed) {
			t.Errorf("DecodeIL(%.40q) = %.40q, %v; want ErrILMalformed", c, out, err)
		}
	}
}

func ilSeeds() [][]byte {
	seeds := [][]byte{[]byte("«"), []byte("«1»"), []byte("a\n«+2»"), []byte("«=1»/abcdefgh/\n«1»x")}
	for _, c := range ilCases() {
		if len(c) <= 8192 {
			seeds = append(seeds, c)
		}
	}
	return seeds
}

func FuzzILRoundTrip(f *testing.F) {
	for _, s := range ilSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { ilRoundTrip(t, data) })
}

func FuzzILDecode(f *testing.F) {
	for _, s := range ilSeeds() {
		f.Add(s)
		f.Add(EncodeIL(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		dec, err := DecodeIL(body)
		if err != nil {
			if !errors.Is(err, ErrILMalformed) {
				t.Fatalf("error does not wrap ErrILMalformed: %v", err)
			}
			return
		}
		ilRoundTrip(t, dec)
	})
}

func BenchmarkEncodeIL(b *testing.B) {
	data := bytes.Repeat(ilTraceback(), 400)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		EncodeIL(data)
	}
}
