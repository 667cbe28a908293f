package lexical

import "testing"

// Pairs from Porter's paper and his reference vocabulary.
func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "operator": "oper",
		"generalizations": "gener", "oscillators": "oscil", "connection": "connect", "connected": "connect",
		"connecting": "connect", "connections": "connect", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electrical": "electr", "hopeful": "hope", "goodness": "good",
		"revival": "reviv", "allowance": "allow", "inference": "infer", "airliner": "airlin",
		"adjustable": "adjust", "defensible": "defens", "irritant": "irrit", "replacement": "replac",
		"adjustment": "adjust", "dependent": "depend", "adoption": "adopt", "homologou": "homolog",
		"communism": "commun", "activate": "activ", "angulariti": "angular", "homologous": "homolog",
		"effective": "effect", "bowdlerize": "bowdler", "probate": "probat", "rate": "rate",
		"cease": "ceas", "controll": "control", "roll": "roll", "generously": "gener",
		"meetings": "meet", "painting": "paint", "went": "went", "go": "go",
		"x86": "x86", "naïve": "naïve",
	} {
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}
