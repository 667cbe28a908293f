package agent

import "testing"

func TestIsDirectAnswer(t *testing.T) {
	cases := []struct {
		turn string
		want bool
	}{
		{"What is a goroutine?", true},
		{"Explain the difference between a mutex and a channel.", true},
		{"fix the failing test in auth/token.py", false},
		{"run the tests", false},
		{"why does `make` fail?", false},
		{"what does main.go do?", false},
		{"", false},
	}
	for _, tc := range cases {
		if got := IsDirectAnswer(tc.turn); got != tc.want {
			t.Errorf("IsDirectAnswer(%q) = %v, want %v", tc.turn, got, tc.want)
		}
	}
}
