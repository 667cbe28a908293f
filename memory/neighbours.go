package memory

import (
	"slices"
	"sort"
	"time"

	"github.com/kwsdev/kws/internal/lexical"
)

// nearGap is how far apart in creation time two memories saved one after
// another may be and still be each other's context: a conversation's
// turns, or notes taken in one sitting, split a fact between them (one
// speaker asks what the other has been researching, the other answers
// "adoption agencies"), and a question about it uses words of both.
const nearGap = 30 * time.Minute

// lexEntry is a memory's place in its scope's creation order.
type lexEntry struct {
	created time.Time
	id      string
}

// before orders entries by creation time, then id.
func (a lexEntry) before(b lexEntry) bool {
	if !a.created.Equal(b.created) {
		return a.created.Before(b.created)
	}
	return a.id < b.id
}

// near reports whether a and b were created within nearGap of each other.
func (a lexEntry) near(b lexEntry) bool {
	d := a.created.Sub(b.created)
	return d <= nearGap && d >= -nearGap
}

// lexMemory is what the lexicon keeps of a memory: when it was created
// and its own terms, which its neighbours' context documents hold too.
type lexMemory struct {
	created time.Time
	terms   lexical.Vector
}

// find returns where e is, or would be, in the order of scope.
func (l *lexicon) find(scope string, e lexEntry) int {
	o := l.order[scope]
	return sort.Search(len(o), func(i int) bool { return !o[i].before(e) })
}

// sortScope sorts the order of scope and indexes every one of its
// memories' context documents; lexBuild calls it once per scope.
func (l *lexicon) sortScope(scope string) {
	slices.SortFunc(l.order[scope], func(a, b lexEntry) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	for i := range l.order[scope] {
		l.relink(scope, i)
	}
}

// put indexes memory e of scope with its own terms v, replacing what it
// held before, and renews the context documents of it and of its old
// and new neighbours.
func (l *lexicon) put(scope string, e lexEntry, v, surf lexical.Vector) {
	l.remove(scope, e.id)
	key := lexKey(scope, e.id)
	l.mems[key] = lexMemory{e.created, v}
	l.words.Add(key, v)
	l.surf.Add(key, surf)
	i := l.find(scope, e)
	l.order[scope] = slices.Insert(l.order[scope], i, e)
	for j := i - 1; j <= i+1; j++ {
		l.relink(scope, j)
	}
}

// remove drops memory id of scope and renews the context documents of
// the memories that were its neighbours, now each other's.
func (l *lexicon) remove(scope, id string) {
	key := lexKey(scope, id)
	m, ok := l.mems[key]
	if !ok {
		return
	}
	l.words.Remove(key)
	l.near.Remove(key)
	l.surf.Remove(key)
	delete(l.mems, key)
	i := l.find(scope, lexEntry{m.created, id})
	l.order[scope] = slices.Delete(l.order[scope], i, i+1)
	if len(l.order[scope]) == 0 {
		delete(l.order, scope)
		return
	}
	l.relink(scope, i-1)
	l.relink(scope, i)
}

// relink indexes the context document of the i-th memory of scope (none
// when i is out of range): its own terms and those of the memories just
// before and after it, when created within nearGap of it.
func (l *lexicon) relink(scope string, i int) {
	o := l.order[scope]
	if i < 0 || i >= len(o) {
		return
	}
	var c lexical.Counter
	add := func(e lexEntry) {
		for _, t := range l.mems[lexKey(scope, e.id)].terms.Terms {
			c.Add(t.Term, t.TF)
		}
	}
	add(o[i])
	if i > 0 && o[i-1].near(o[i]) {
		add(o[i-1])
	}
	if i+1 < len(o) && o[i+1].near(o[i]) {
		add(o[i+1])
	}
	l.near.Add(lexKey(scope, o[i].id), c.Vector(0))
}
