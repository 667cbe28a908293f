package pty

import (
	"strings"
	"testing"
)

// rectData is eight rows of eight letters, written from the top left.
const rectData = "abcdefgh\r\nijklmnop\r\nqrstuvwx\r\nyz012345\r\nABCDEFGH\r\nIJKLMNOP\r\nQRSTUVWX\r\nYZ6789!@"

// rectRows is rectData with rows changed: row number (from 1) to text.
func rectRows(changed map[int]string) string {
	rows := strings.Split(strings.ReplaceAll(rectData, "\r\n", "\n"), "\n")
	for n, s := range changed {
		for len(rows) < n {
			rows = append(rows, "")
		}
		rows[n-1] = s
	}
	return strings.Join(rows, "\n")
}

// TestFastEmulatorRectangles checks the rectangular area operations on a
// 10×10 screen holding rectData: DECFRA, DECERA, DECSERA, DECCRA, as xterm
// does them. None moves the cursor.
func TestFastEmulatorRectangles(t *testing.T) {
	const (
		origin  = "\x1b[?69h\x1b[2;9s\x1b[2;9r\x1b[?6h" // margins from row and column 2, origin mode
		margins = "\x1b[?69h\x1b[3;6s\x1b[3;6r"
		home    = "\x1b[?6l\x1b[?69l\x1b[r" // margins and origin mode off
	)
	unchanged := rectRows(nil)
	cases := []struct {
		// setup runs first; the cursor must be where it left it after op.
		name, setup, op, want string
	}{
		{"DECFRA", "", "\x1b[37;5;5;7;7$x", rectRows(map[int]string{5: "ABCD%%%H", 6: "IJKL%%%P", 7: "QRST%%%X"})},
		{"DECFRA with an empty rectangle", "", "\x1b[37;5;5;4;4$x", unchanged},
		{"DECFRA of a control character", "", "\x1b[10;5;5;7;7$x", unchanged},
		{"DECFRA counts from the margins in origin mode", origin, "\x1b[37;1;1;3;3$x",
			rectRows(map[int]string{2: "i%%%mnop", 3: "q%%%uvwx", 4: "y%%%2345"})},
		{"DECFRA ignores the margins outside origin mode", margins, "\x1b[37;5;5;7;7$x",
			rectRows(map[int]string{5: "ABCD%%%H", 6: "IJKL%%%P", 7: "QRST%%%X"})},
		{"DECFRA right of the screen", "", "\x1b[37;1;11;2;20$x", unchanged},
		{"DECFRA is clipped to the screen", "", "\x1b[37;8;8;20;20$x",
			rectRows(map[int]string{8: "YZ6789!%%%", 9: "       %%%", 10: "       %%%"})},
		{"DECERA", "", "\x1b[5;5;7;7$z", rectRows(map[int]string{5: "ABCD   H", 6: "IJKL   P", 7: "QRST   X"})},
		{"DECERA with defaults erases the screen", "", "\x1b[$z", ""},
		{"DECERA erases protected cells", "\x1b[1;1H\x1b[1\"qXY\x1b[0\"q", "\x1b[1;1;1;1$z", rectRows(map[int]string{1: " Ycdefgh"})},
		{"DECSERA leaves protected cells", "\x1b[5;1H\x1b[1\"qABCDEFGH\x1b[0\"q", "\x1b[5;5;7;7${",
			rectRows(map[int]string{6: "IJKL   P", 7: "QRST   X"})},
		{"DECCRA", "", "\x1b[2;2;4;4;1;5;5;1$v", rectRows(map[int]string{5: "ABCDjklH", 6: "IJKLrstP", 7: "QRSTz01X"})},
		{"DECCRA onto itself copies what was there", "", "\x1b[2;2;4;4;1;3;3;1$v",
			rectRows(map[int]string{3: "qrjklvwx", 4: "yzrst345", 5: "ABz01FGH"})},
		{"DECCRA source defaults to the top left", "", "\x1b[;;2;2;;5;5;1$v", rectRows(map[int]string{5: "ABCDabGH", 6: "IJKLijOP"})},
		{"DECCRA destination defaults to the top left", "", "\x1b[2;2;4;4;1$v",
			rectRows(map[int]string{1: "jkldefgh", 2: "rstlmnop", 3: "z01tuvwx"})},
		{"DECCRA is cut at the screen's edge", "", "\x1b[2;2;4;4;1;9;9;1$v",
			rectRows(map[int]string{9: "        jk", 10: "        rs"})},
		{"DECCRA with an empty source", "", "\x1b[2;2;1;1;1;5;5;1$v", unchanged},
		{"DECCRA counts from the margins in origin mode", origin, "\x1b[1;1;3;3;1;4;4;1$v",
			rectRows(map[int]string{5: "ABCDjklH", 6: "IJKLrstP", 7: "QRSTz01X"})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, 10, 10, rectData+"\x1b[4;3H"+tc.setup)
			before := e.Cursor()
			_, _ = e.Write([]byte(tc.op))
			if after := e.Cursor(); after != before {
				t.Errorf("the cursor moved from %+v to %+v", before, after)
			}
			_, _ = e.Write([]byte(home))
			if got := screenText(e); got != tc.want {
				t.Errorf("screen\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestFastEmulatorRectangleAttrs checks DECCARA and DECRARA on a 10×4
// screen of letters, over the text between two corners (the default) and
// over a rectangle (DECSACE 2), and DECFRA's use of the rendition.
func TestFastEmulatorRectangleAttrs(t *testing.T) {
	const fill = "abcdefghij\r\nklmnopqrst\r\nuvwxyzABCD\r\nEFGHIJKLMN"
	bold := func(e *testEmu) string {
		var b strings.Builder
		for y := range 4 {
			for x := range 10 {
				c := e.Cell(x, y)
				switch {
				case c.Attrs&AttrBold != 0 && c.Attrs&AttrReverse != 0:
					b.WriteByte('*')
				case c.Attrs&AttrBold != 0:
					b.WriteByte('b')
				case c.Attrs&AttrReverse != 0:
					b.WriteByte('r')
				default:
					b.WriteByte('.')
				}
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	cases := []struct {
		name, input, want string
	}{
		{"DECCARA over the text between the corners", "\x1b[1;8;2;3;1$r", ".......bbb\nbbb.......\n..........\n..........\n"},
		{"DECCARA over a rectangle", "\x1b[2*x\x1b[1;8;2;9;1$r", ".......bb.\n.......bb.\n..........\n..........\n"},
		{"DECCARA turns attributes off", "\x1b[2*x\x1b[1;1;4;10;1;7$r\x1b[2;2;3;3;22$r",
			"**********\n*rr*******\n*rr*******\n**********\n"},
		{"DECCARA 0 turns all off", "\x1b[2*x\x1b[1;1;4;10;1;7$r\x1b[2;2;3;3;0$r",
			"**********\n*..*******\n*..*******\n**********\n"},
		{"DECRARA flips", "\x1b[2*x\x1b[1;1;2;2;1$r\x1b[1;1;1;4;1;7$t", "rr**......\nbb........\n..........\n..........\n"},
		{"DECCARA over text starting right of the screen", "\x1b[1;11;2;2;1$r", "..........\nbb........\n..........\n..........\n"},
		{"DECSACE 0 goes back to the text", "\x1b[2*x\x1b[0*x\x1b[1;9;2;1;1$r", "........bb\nb.........\n..........\n..........\n"},
		{"RIS goes back to the text", "\x1b[2*x\x1bc" + fill + "\x1b[1;9;2;1;1$r", "........bb\nb.........\n..........\n..........\n"},
		{"DECFRA fills in the rendition", "\x1b[1m\x1b[88;1;1;1;2$x\x1b[m", "bb........\n..........\n..........\n..........\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := fastEmu(t, 10, 4, fill+tc.input)
			if got := bold(e); got != tc.want {
				t.Errorf("attributes (b bold, r reverse, * both)\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	// A fill across half of a wide character blanks its other half.
	e := fastEmu(t, 10, 4, "ab界cd\x1b[88;1;3;1;3$x")
	if got := screenText(e); got != "abX cd" {
		t.Errorf("DECFRA over half of a wide character: %q", got)
	}
}
