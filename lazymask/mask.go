package lazymask

import (
	"fmt"
	"math"
)

// Lookahead selects how the candidate set of a new decoding depth is
// initialised. The zero value is LookTSL, the paper's default.
//
// In every rule, "reachable" uses the checker's own arithmetic: for TSPTW the
// arrival at j from the current node c is t + D[c,j], where t is the time
// service ends at c, and j is reachable when arrival − l_j ≤ Tol; for TSPDL
// j is reachable when load + d_j − L_j ≤ Tol.
type Lookahead int

const (
	// LookTSL is the two-step look-ahead (the reference's L=2, the default):
	// candidate i is kept iff it is unvisited, reachable, and after serving
	// i every other unvisited node j is still directly reachable from i
	// (TSPTW: max(arr_i, e_i) + s_i + D[i,j] − l_j ≤ Tol; TSPDL:
	// load + d_i + d_j − L_j ≤ Tol).
	LookTSL Lookahead = iota
	// LookSSL is the single-step look-ahead (the reference's L=1): the set
	// is empty when some unvisited node is no longer directly reachable,
	// else it is every unvisited node.
	LookSSL
	// LookNone is plain TSP masking: every unvisited node.
	LookNone
)

// String returns "tsl", "ssl" or "none".
func (l Lookahead) String() string {
	switch l {
	case LookTSL:
		return "tsl"
	case LookSSL:
		return "ssl"
	case LookNone:
		return "none"
	}
	return fmt.Sprintf("lookahead(%d)", int(l))
}

// ParseLookahead parses "none", "ssl" or "tsl".
func ParseLookahead(s string) (Lookahead, error) {
	switch s {
	case "tsl", "TSL":
		return LookTSL, nil
	case "ssl", "SSL":
		return LookSSL, nil
	case "none", "NONE":
		return LookNone, nil
	}
	return 0, fmt.Errorf("unknown lookahead %q (want none, ssl or tsl)", s)
}

// LookaheadMask fills dst[:inst.N] with the look-ahead candidate set of a
// partial tour whose visited nodes are marked in visited (the depot
// included), that stands at node cur with time (TSPTW, service end at cur)
// or load (TSPDL) value, and returns the number of candidates. It allocates a
// small scratch buffer; the decoder uses an allocation-free path.
func LookaheadMask(inst *Instance, look Lookahead, visited []bool, cur int, value float64, dst []bool) int {
	return fillMask(inst, look, visited, cur, value, dst, nil, make([]int, 0, inst.N))
}

// fillMask is the allocation-free mask initialisation. order, when non-nil,
// lists all nodes by ascending due time (TSPTW) so that the tightest
// constraints are tested first; ubuf has capacity for N node indices.
func fillMask(inst *Instance, look Lookahead, visited []bool, cur int, value float64, dst []bool, order, ubuf []int) int {
	n := inst.N
	dst = dst[:n]
	visited = visited[:n]
	switch look {
	case LookNone:
		return fillUnvisited(visited, dst)
	case LookSSL:
		if sslBlocked(inst, visited, cur, value) {
			clear(dst)
			return 0
		}
		return fillUnvisited(visited, dst)
	case LookTSL:
		if inst.Problem == TSPDL {
			return tslLoad(inst, visited, value, dst)
		}
		return tslTime(inst, visited, cur, value, dst, order, ubuf)
	}
	panic(fmt.Sprintf("lazymask: unknown lookahead %d", int(look)))
}

// fillUnvisited sets dst to the unvisited nodes and returns their number.
func fillUnvisited(visited, dst []bool) int {
	c := 0
	for j, v := range visited {
		dst[j] = !v
		if !v {
			c++
		}
	}
	return c
}

// sslBlocked reports whether some unvisited node is already unreachable.
func sslBlocked(inst *Instance, visited []bool, cur int, value float64) bool {
	n := inst.N
	switch inst.Problem {
	case TSPTW:
		row := inst.Matrix()[cur*n : (cur+1)*n]
		late := inst.Late[:n]
		for j, v := range visited {
			if !v && value+row[j]-late[j] > Tol {
				return true
			}
		}
	case TSPDL:
		dem, lim := inst.Demand[:n], inst.Draft[:n]
		for j, v := range visited {
			if !v && value+dem[j]-lim[j] > Tol {
				return true
			}
		}
	}
	return false
}

// tslTime is the TSPTW two-step look-ahead. The unvisited nodes are
// gathered in ascending due-time order (when order is given) so the inner
// test meets the tightest windows first and exits early.
func tslTime(inst *Instance, visited []bool, cur int, t float64, dst []bool, order, ubuf []int) int {
	n := inst.N
	dmat := inst.Matrix()
	row := dmat[cur*n : (cur+1)*n]
	late, early, serv := inst.Late[:n], inst.Early[:n], inst.Service[:n]
	u := ubuf[:0]
	if order != nil {
		for _, j := range order {
			if !visited[j] {
				u = append(u, j)
			}
		}
	} else {
		for j, v := range visited {
			if !v {
				u = append(u, j)
			}
		}
	}
	clear(dst)
	count := 0
	for _, i := range u {
		arr := t + row[i]
		if arr-late[i] > Tol {
			continue
		}
		dep := math.Max(arr, early[i]) + serv[i]
		// Distances are non-negative, so the first other node in u gives a
		// cheap necessary condition (the tightest window when u is sorted).
		first := u[0]
		if first == i && len(u) > 1 {
			first = u[1]
		}
		if first != i && dep-late[first] > Tol {
			continue
		}
		ri := dmat[i*n : (i+1)*n]
		ok := true
		for _, j := range u {
			if j != i && dep+ri[j]-late[j] > Tol {
				ok = false
				break
			}
		}
		if ok {
			dst[i] = true
			count++
		}
	}
	return count
}

// tslLoad is the TSPDL two-step look-ahead. The condition "for all other
// unvisited j: load + d_i + d_j ≤ L_j" only needs the smallest slack
// L_j − d_j among the other unvisited nodes, so it runs in O(N).
func tslLoad(inst *Instance, visited []bool, load float64, dst []bool) int {
	n := inst.N
	dem, lim := inst.Demand[:n], inst.Draft[:n]
	min1, min2 := math.Inf(1), math.Inf(1)
	arg1 := -1
	for j, v := range visited {
		if v {
			continue
		}
		m := lim[j] - dem[j]
		if m < min1 {
			min2 = min1
			min1, arg1 = m, j
		} else if m < min2 {
			min2 = m
		}
	}
	count := 0
	for i, v := range visited {
		dst[i] = false
		if v {
			continue
		}
		li := load + dem[i]
		if li-lim[i] > Tol {
			continue
		}
		other := min1
		if arg1 == i {
			other = min2
		}
		if li-other > Tol {
			continue
		}
		dst[i] = true
		count++
	}
	return count
}
