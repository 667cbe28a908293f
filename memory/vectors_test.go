package memory

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestVectorsNearestMatchesAFullSort checks nearest against sorting every
// similarity, through puts, replacements and removals, with ties.
func TestVectorsNearestMatchesAFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var v vectors
	want := map[string][]float32{}
	randVec := func() []float32 {
		x := make([]float32, 13) // not a multiple of four: dot32's tail runs
		for i := range x {
			x[i] = float32(r.IntN(5) - 2) // small integers: many exact ties
		}
		x[0] += 0.5 // never zero
		return x
	}
	for step := 0; step < 3000; step++ {
		id := string(rune('a' + r.IntN(26)))
		id += string(rune('a' + r.IntN(26)))
		switch r.IntN(4) {
		case 0:
			v.remove(id)
			delete(want, id)
		default:
			x := randVec()
			v.put(id, x)
			want[id] = normalized(x)
		}
		if step%100 != 0 {
			continue
		}
		q := normalized(randVec())
		var all []near
		for id, x := range want {
			all = append(all, near{id, dot32(q, x)})
		}
		sort.Slice(all, func(i, j int) bool {
			if all[i].sim != all[j].sim {
				return all[i].sim > all[j].sim
			}
			return all[i].id < all[j].id
		})
		for _, n := range []int{1, 10, len(all) + 5} {
			got := v.nearest(q, n)
			if !slices.Equal(got, all[:min(n, len(all))]) {
				t.Fatalf("step %d, n %d: nearest %v, want %v", step, n, got, all[:min(n, len(all))])
			}
		}
		if blocks := (len(want) + chunkRows - 1) / chunkRows; v.len() != len(want) || len(v.chunks) < blocks || len(v.chunks) > blocks+1 {
			t.Fatalf("step %d: %d ids and %d blocks for %d vectors", step, v.len(), len(v.chunks), len(want))
		}
	}
	if got := v.nearest(make([]float32, 4), 3); got != nil {
		t.Fatalf("a query of another size found %v", got)
	}
}
