package pty

import (
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// seqLines is the size of the throughput workload: the output of
// `seq 1 200000`.
const seqLines = 200000

// seqOutput returns what `seq 1 n` prints through a pty: one number per
// line, with the CR LF line ends the terminal driver produces.
func seqOutput(n int) []byte {
	var out []byte
	for i := 1; i <= n; i++ {
		out = strconv.AppendInt(out, int64(i), 10)
		out = append(out, '\r', '\n')
	}
	return out
}

// feed writes data to w in the 32 KiB pieces the session's reader uses.
func feed(w io.Writer, data []byte) {
	for off := 0; off < len(data); off += 32 * 1024 {
		_, _ = w.Write(data[off:min(off+32*1024, len(data))])
	}
}

// BenchmarkThroughput measures how fast terminal output is absorbed: the
// output of `seq 1 200000` fed to the emulator in process (kws's x/vt
// wrapper, the FastEmulator, and raw x/vt with the same scrollback for
// comparison), and the real command run by bash on a pty with either
// emulator, timed until its last line is on the screen. The MB/s column
// is the figure to compare.
func BenchmarkThroughput(b *testing.B) {
	data := seqOutput(seqLines)

	for _, size := range []struct{ cols, rows int }{{80, 24}, {200, 50}} {
		for _, k := range []struct{ prefix, kind string }{{"xvt-emulator", "vt"}, {"fast-emulator", "fast"}} {
			b.Run(fmt.Sprintf("%s-%dx%d", k.prefix, size.cols, size.rows), func(b *testing.B) {
				e := emuKindNamed(k.kind).start(b, size.cols, size.rows, DefaultScrollback)
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					feed(e, data)
				}
			})
		}
	}

	b.Run("raw-x-vt-80x24", func(b *testing.B) {
		e := vt.NewEmulator(80, 24)
		e.SetScrollbackSize(DefaultScrollback)
		go func() { _, _ = io.Copy(io.Discard, e) }()
		b.Cleanup(func() { _ = e.Close() })
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			feed(e, data)
		}
	})

	for _, k := range []struct {
		name string
		opts Options
	}{{"pty-bash-seq-xvt-80x24", vtOptions(Options{})}, {"pty-bash-seq-fast-80x24", Options{}}} {
		b.Run(k.name, func(b *testing.B) {
			needBinary(b, "seq")
			s := startShell(b, k.opts)
			b.SetBytes(int64(len(data)))
			n := 0
			for b.Loop() {
				n++
				marker := fmt.Sprintf("done-%d", n)
				run(b, s, fmt.Sprintf("seq 1 %d; echo done-$((%d+1))", seqLines, n-1))
				waitLine(b, s, marker)
			}
		})
	}
}
