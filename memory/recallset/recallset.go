// Package recallset generates long multi-session conversations in which
// facts are stated once and asked about later in other words, and scores
// a retriever on them: recall@1/5/10, a hit being an evidence turn among
// the results. It is memory's development benchmark, with plain BM25 as
// the baseline in the same run.
//
// Every conversation has two speakers and about 600 turns over 20
// sessions. Facts come from templates of four kinds: single-hop (one turn
// answers, asked with other words than it used), temporal ("when did …",
// the turn says "last Tuesday"), multi-hop (two turns, stated sessions
// apart, are needed; either counts as a hit) and update (a later turn
// replaces an earlier fact; only the later one is evidence). Some facts
// are the answer to the other speaker's question in the turn before, and
// are asked about later with that question's words; the asking turn is
// not evidence. Small talk
// fills the rest and reuses the facts' words, so word overlap alone
// misleads.
//
// The templates, the small talk and the seeds are split in two: Tune is
// for choosing a retriever's parameters, Measure only for reporting. A
// figure that holds on Tune alone was fitted to its phrasing.
package recallset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Split selects one half of the templates and seeds.
type Split int

// The two splits.
const (
	Tune Split = iota
	Measure
)

// String names the split.
func (s Split) String() string {
	if s == Tune {
		return "tune"
	}
	return "measure"
}

// MarshalText writes the split's name, as in JSON reports.
func (s Split) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a split's name.
func (s *Split) UnmarshalText(b []byte) error {
	v, err := ParseSplit(string(b))
	*s = v
	return err
}

// ParseSplit reads "tune" or "measure".
func ParseSplit(s string) (Split, error) {
	switch s {
	case "tune":
		return Tune, nil
	case "measure":
		return Measure, nil
	}
	return 0, fmt.Errorf("recallset: split %q: want tune or measure", s)
}

// Turn is one message of a conversation.
type Turn struct {
	// ID is the turn's index in its conversation.
	ID int
	// Session counts from 1.
	Session int
	Speaker string
	Text    string
}

// Line is the turn as a memory holds it: "SPEAKER: TEXT".
func (t Turn) Line() string { return t.Speaker + ": " + t.Text }

// Question asks about one conversation.
type Question struct {
	Text string
	// Category is single, temporal, multi or update.
	Category string
	// Evidence are the IDs of the turns that answer it.
	Evidence []int
}

// Conversation is one generated conversation and its questions.
type Conversation struct {
	Name      string
	Speakers  [2]string
	Turns     []Turn
	Questions []Question
}

// Set is the conversations of one split.
type Set struct {
	Split         Split
	Conversations []Conversation
}

// Options size a set; zero values take the defaults.
type Options struct {
	// Conversations per set; 0 means 10.
	Conversations int
	// Sessions per conversation; 0 means 20.
	Sessions int
	// TurnsPerSession; 0 means 30.
	TurnsPerSession int
}

func (o Options) withDefaults() Options {
	if o.Conversations <= 0 {
		o.Conversations = 10
	}
	if o.Sessions <= 0 {
		o.Sessions = 20
	}
	if o.TurnsPerSession <= 0 {
		o.TurnsPerSession = 30
	}
	return o
}

// Generate builds the set of split. The same split and options give the
// same set in every run.
func Generate(split Split, o Options) Set {
	o = o.withDefaults()
	set := Set{Split: split}
	facts := splitOf(factTemplates, split)
	chat := splitOf(smallTalk, split)
	for c := 0; c < o.Conversations; c++ {
		seed := uint64(split)*1000 + uint64(c) + 1
		r := rand.New(rand.NewPCG(seed, 0x6b7773))
		set.Conversations = append(set.Conversations, conversation(r, fmt.Sprintf("%s-%02d", split, c+1), facts, chat, o))
	}
	return set
}

// splitOf returns the items of xs whose index has split's parity.
func splitOf[T any](xs []T, split Split) []T {
	var out []T
	for i, x := range xs {
		if i%2 == int(split) {
			out = append(out, x)
		}
	}
	return out
}

// planned is a turn placed at a slot before the conversation is filled.
type planned struct {
	slot    int
	speaker int
	text    string
	q       int // index of the question it is evidence for, -1 if none
}

// conversation generates one conversation: the facts' turns, each one's
// reply and, for a fact given as an answer, the question before it, at
// random slots (multi-hop and update pairs in order, sessions apart),
// small talk everywhere else.
func conversation(r *rand.Rand, name string, facts []factTemplate, chat []string, o Options) Conversation {
	first := r.IntN(len(firstNames))
	second := (first + 1 + r.IntN(len(firstNames)-1)) % len(firstNames)
	conv := Conversation{Name: name, Speakers: [2]string{firstNames[first], firstNames[second]}}
	total := o.Sessions * o.TurnsPerSession
	taken := make([]bool, total)
	// free takes n free slots in a row, the first in [lo, hi) if it can.
	free := func(lo, hi, n int) int {
		fits := func(s int) bool {
			if s+n > total {
				return false
			}
			for i := s; i < s+n; i++ {
				if taken[i] {
					return false
				}
			}
			for i := s; i < s+n; i++ {
				taken[i] = true
			}
			return true
		}
		for tries := 0; tries < 1000; tries++ {
			if s := lo + r.IntN(max(1, hi-lo)); fits(s) {
				return s
			}
		}
		for s := 0; s < total; s++ {
			if fits(s) {
				return s
			}
		}
		panic("recallset: conversation too short for its facts")
	}
	var plan []planned
	for _, ft := range facts {
		for sp := 0; sp < 2; sp++ {
			f := ft.make(r, slotValues(r))
			qi := len(conv.Questions)
			who, other := conv.Speakers[sp], conv.Speakers[1-sp]
			q := Question{Text: fill(f.question, who, other), Category: ft.category}
			// The first statement lands in the first two thirds so that
			// a multi-hop or update partner can follow sessions later.
			var at int
			if f.ask != "" {
				at = free(0, total*2/3, 3) + 1
				plan = append(plan, planned{at - 1, 1 - sp, fill(f.ask, who, other), -1})
			} else {
				at = free(0, total*2/3, 2)
			}
			plan = append(plan, planned{at, sp, fill(f.says[0], who, other), qi},
				planned{at + 1, 1 - sp, fill(f.reply, who, other), -1})
			if len(f.says) > 1 {
				gap := 2 * o.TurnsPerSession
				at2 := free(min(at+gap, total-2), total-1, 2)
				plan = append(plan, planned{at2, sp, fill(f.says[1], who, other), qi},
					planned{at2 + 1, 1 - sp, fill(replies[r.IntN(len(replies))], who, other), -1})
			}
			conv.Questions = append(conv.Questions, q)
		}
	}
	slices.SortFunc(plan, func(a, b planned) int { return a.slot - b.slot })
	next := 0
	for slot := 0; slot < total; slot++ {
		t := Turn{ID: slot, Session: slot/o.TurnsPerSession + 1}
		if next < len(plan) && plan[next].slot == slot {
			p := plan[next]
			next++
			t.Speaker, t.Text = conv.Speakers[p.speaker], p.text
			if p.q >= 0 {
				q := &conv.Questions[p.q]
				if conv.Questions[p.q].Category == "update" {
					// Only the newer statement answers "now".
					q.Evidence = []int{slot}
				} else {
					q.Evidence = append(q.Evidence, slot)
				}
			}
		} else {
			sp := slot % 2
			t.Speaker = conv.Speakers[sp]
			t.Text = fill(expand(chat[r.IntN(len(chat))], slotValues(r)), conv.Speakers[sp], conv.Speakers[1-sp])
		}
		conv.Turns = append(conv.Turns, t)
	}
	return conv
}

// fill puts the speaker's and the other's names into text ({S}, {O}).
func fill(text, speaker, other string) string {
	return strings.NewReplacer("{S}", speaker, "{O}", other).Replace(text)
}
