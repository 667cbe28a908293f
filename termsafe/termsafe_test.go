package termsafe

import "testing"

func TestStrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain\ttext\n", "plain\ttext\n"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b]0;pwned title\x07after", "after"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"a\x1b[2Jb\x1b[Hc", "abc"},
		{"bell\x07 back\x08space\r", "bell backspace"},
		{"\xff\xfeok", "\uFFFDok"},
		{"\u009b31mcsi8", "csi8"},
		{"trailing \x1b", "trailing "},
		{"[red]tags stay literal[-]", "[red]tags stay literal[-]"},
	}
	for _, tc := range cases {
		if got := Strip(tc.in); got != tc.want {
			t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine("a\tb\nc\x1b[31md\r"); got != "a b cd" {
		t.Fatalf("OneLine = %q", got)
	}
}
