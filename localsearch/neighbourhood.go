package localsearch

// move is one neighbour of the current tour, in positions of that tour.
//
//	TwoOpt:   reverse positions i..j (1 ≤ i < j ≤ n−1).
//	OrOpt, Relocate: take the k nodes at positions i..i+k−1 and put them
//	          after position j (j outside i−1..i+k−1), reversed if rev.
//	Swap:     exchange the nodes at positions i < j.
type move struct {
	kind MoveKind
	i, j int
	k    int
	rev  bool
}

// pieces describes the tour after m as pieces of the current tour of n
// nodes, written into buf.
func (m move) pieces(n int, buf *[maxPieces]piece) []piece {
	ps := buf[:0]
	add := func(from, to int, rev bool) {
		if from <= to {
			ps = append(ps, piece{from, to, rev})
		}
	}
	i, j := m.i, m.j
	switch m.kind {
	case TwoOpt:
		add(0, i-1, false)
		add(i, j, true)
		add(j+1, n-1, false)
	case OrOpt, Relocate:
		end := i + m.k - 1
		if j < i {
			add(0, j, false)
			add(i, end, m.rev)
			add(j+1, i-1, false)
			add(end+1, n-1, false)
		} else {
			add(0, i-1, false)
			add(end+1, j, false)
			add(i, end, m.rev)
			add(j+1, n-1, false)
		}
	case Swap:
		add(0, i-1, false)
		add(j, j, false)
		add(i+1, j-1, false)
		add(i, i, false)
		add(j+1, n-1, false)
	}
	return ps
}

// scanner enumerates the moves of the enabled neighbourhoods.
type scanner struct {
	n      int
	maxSeg int
	// prune, when set, reports that reversing positions i..j is
	// infeasible in any context; since that property is inherited by
	// longer runs, the 2-opt scan of i then stops.
	prune func(i, j int) bool
}

// each calls f for every move of kind, starting the outer position loop at
// offset (rotated), until f returns true; it reports whether f stopped it.
func (sc *scanner) each(kind MoveKind, offset int, f func(move) bool) bool {
	return sc.scan([]MoveKind{kind}, offset, nil, nil, f)
}

// scan calls f for every move of the kinds, grouped by the position i the
// move starts at (rotated by offset), until f returns true; it reports
// whether f stopped it. Positions for which skip returns true are passed
// over; done is called for each position whose moves were all visited.
func (sc *scanner) scan(kinds []MoveKind, offset int, skip func(i int) bool, done func(i int), f func(move) bool) bool {
	n := sc.n
	if n < 3 {
		return false
	}
	span := n - 1 // positions 1..n−1
	for a := 0; a < span; a++ {
		i := 1 + (a+offset)%span
		if skip != nil && skip(i) {
			continue
		}
		for _, kind := range kinds {
			if sc.one(kind, i, f) {
				return true
			}
		}
		if done != nil {
			done(i)
		}
	}
	return false
}

// one calls f for every move of kind that starts at position i.
func (sc *scanner) one(kind MoveKind, i int, f func(move) bool) bool {
	n := sc.n
	switch kind {
	case TwoOpt:
		for j := i + 1; j < n; j++ {
			if sc.prune != nil && sc.prune(i, j) {
				break
			}
			if f(move{kind: TwoOpt, i: i, j: j}) {
				return true
			}
		}
	case Swap:
		for j := i + 1; j < n; j++ {
			if f(move{kind: Swap, i: i, j: j}) {
				return true
			}
		}
	case Relocate:
		return sc.segment(Relocate, i, 1, false, f)
	case OrOpt:
		for k := 2; k <= sc.maxSeg && i+k-1 <= n-1; k++ {
			if sc.segment(OrOpt, i, k, false, f) || sc.segment(OrOpt, i, k, true, f) {
				return true
			}
		}
	}
	return false
}

// segment enumerates the insertion points of the segment at i..i+k−1.
func (sc *scanner) segment(kind MoveKind, i, k int, rev bool, f func(move) bool) bool {
	end := i + k - 1
	for j := 0; j < sc.n; j++ {
		if j >= i-1 && j <= end {
			continue
		}
		if f(move{kind: kind, i: i, j: j, k: k, rev: rev}) {
			return true
		}
	}
	return false
}
