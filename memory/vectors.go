package memory

import (
	"container/heap"
	"math"
)

// vectors are one scope's vectors of the store's embedder, every one
// normalized, in blocks of chunkRows rows: a query is compared with all of
// them in one pass over a few large blocks. chromem-go's collection
// compared a query with each document's own slice, with a plain loop and a
// goroutine per CPU; at 10,000 memories that scan was most of a search
// (BenchmarkSearch). Blocks of fixed size never move once made, so
// loading 10,000 vectors touches each page once instead of copying a
// growing slice again and again.
type vectors struct {
	dims   int
	ids    []string
	chunks [][]float32 // row i is vec(i), in chunks[i/chunkRows]
	row    map[string]int
}

// chunkRows is how many vectors one block holds.
const chunkRows = 256

// vec returns row i.
func (v *vectors) vec(i int) []float32 {
	off := (i % chunkRows) * v.dims
	return v.chunks[i/chunkRows][off : off+v.dims]
}

// put stores vec, normalized, as id's vector, replacing what id had.
// Every vector of one vectors has the same size: the store checks it.
func (v *vectors) put(id string, vec []float32) {
	if v.row == nil {
		v.row, v.dims = map[string]int{}, len(vec)
	}
	vec = normalized(vec)
	i, ok := v.row[id]
	if !ok {
		i = len(v.ids)
		if i/chunkRows == len(v.chunks) {
			v.chunks = append(v.chunks, make([]float32, chunkRows*v.dims))
		}
		v.row[id] = i
		v.ids = append(v.ids, id)
	}
	copy(v.vec(i), vec)
}

// remove forgets id's vector; the last row takes its place.
func (v *vectors) remove(id string) {
	i, ok := v.row[id]
	if !ok {
		return
	}
	last := len(v.ids) - 1
	if i != last {
		v.ids[i] = v.ids[last]
		v.row[v.ids[i]] = i
		copy(v.vec(i), v.vec(last))
	}
	delete(v.row, id)
	v.ids = v.ids[:last]
	// One empty block is kept, so adding and removing at a block's edge
	// does not make and drop a block each time.
	if (last+chunkRows-1)/chunkRows+1 < len(v.chunks) {
		v.chunks = v.chunks[:len(v.chunks)-1]
	}
}

// len is how many vectors v holds.
func (v *vectors) len() int { return len(v.ids) }

// near is a memory and its cosine similarity with a query.
type near struct {
	id  string
	sim float32
}

// nearest returns the n vectors most similar to q (normalized, of v's
// size), most similar first; of equal similarity, the smaller id first.
func (v *vectors) nearest(q []float32, n int) []near {
	n = min(n, len(v.ids))
	if n <= 0 || len(q) != v.dims {
		return nil
	}
	top := make(nearHeap, 0, n)
	for i, id := range v.ids {
		sim := dot32(q, v.vec(i))
		if len(top) < n {
			heap.Push(&top, near{id, sim})
		} else if top.less(top[0], near{id, sim}) {
			top[0] = near{id, sim}
			heap.Fix(&top, 0)
		}
	}
	out := make([]near, len(top))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&top).(near)
	}
	return out
}

// dot32 is the dot product of two vectors of the same length, summed in
// four lanes so the loop does not wait on one running sum.
func dot32(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// nearHeap keeps the best n seen so far with the worst on top.
type nearHeap []near

// less orders worse first: lower similarity, or the larger id of equal ones.
func (h nearHeap) less(a, b near) bool {
	if a.sim != b.sim {
		return a.sim < b.sim
	}
	return a.id > b.id
}

func (h nearHeap) Len() int           { return len(h) }
func (h nearHeap) Less(i, j int) bool { return h.less(h[i], h[j]) }
func (h nearHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nearHeap) Push(x any)        { *h = append(*h, x.(near)) }
func (h *nearHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// normalized returns v scaled to length 1, or v itself when it is zero or
// already so.
func normalized(v []float32) []float32 {
	n := math.Sqrt(float64(dot(v, v)))
	if n == 0 || math.Abs(n-1) < 1e-6 {
		return v
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// dot is the dot product of two vectors of the same length.
func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
