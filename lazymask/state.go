package lazymask

import (
	"fmt"
	"math"
	"slices"
)

// Unlimited is the backtrack budget that never runs out (R = ∞).
const Unlimited = -1

// Semantics selects what happens when the backtrack budget R is spent.
type Semantics int

const (
	// Test is the evaluation semantics (the reference's phase "test"): the
	// pop that brings the backtrack count to R ends the trajectory as
	// failed, and an exhausted depot mask is a failure too.
	Test Semantics = iota
	// Train is the training semantics: once the budget is reached, a newly
	// computed empty mask is replaced by all unvisited nodes so the tour
	// completes (and is penalised by its violations); popping continues
	// while a stored mask is empty. An exhausted depot mask also marks the
	// budget reached and is relaxed to all unvisited nodes, so every Train
	// trajectory completes (the reference marks that rare case invalid).
	Train
)

// String returns "test" or "train".
func (s Semantics) String() string {
	switch s {
	case Test:
		return "test"
	case Train:
		return "train"
	}
	return fmt.Sprintf("semantics(%d)", int(s))
}

// Status is the lifecycle state of one trajectory.
type Status int

const (
	// Running: the tour is still being built.
	Running Status = iota
	// Complete: all N nodes are placed (the tour may still be infeasible
	// under Train semantics or LookNone; only Check decides).
	Complete
	// Failed: the trajectory ended without a complete tour (budget spent
	// under Test semantics, or the depot's candidate set exhausted).
	Failed
)

// String returns "running", "complete" or "failed".
func (s Status) String() string {
	switch s {
	case Running:
		return "running"
	case Complete:
		return "complete"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Move is what State.Next did or asks for.
type Move int

const (
	// Forward: the current candidate set is non-empty; call Step with one of
	// its nodes.
	Forward Move = iota
	// Backtracked: the candidate set was empty and the last node was
	// popped; call Next again.
	Backtracked
	// Finished: the trajectory is Complete or Failed.
	Finished
)

// State is the LazyMask decoding state of one trajectory: stacks of nodes,
// times or loads, candidate masks and refinement counts indexed by depth
// (depth d means d customers placed; the depot sits at depth 0).
//
// Observations: Current, Value (time when service at the current node ends,
// or load after it), Refine, BudgetReached, Mask. Constraints: the
// look-ahead rule of the chosen Lookahead. Finish: Status becomes Complete
// when all N nodes are placed, or Failed. The cost and feasibility of the
// result come from Check only.
//
// All buffers are allocated by NewState (or grown by Reset for a larger N);
// Next and Step do not allocate. The mask stack takes N² bytes.
type State struct {
	inst   *Instance
	n      int
	look   Lookahead
	budget int
	sem    Semantics

	depth      int
	backtracks int
	reached    bool
	status     Status

	nodes    []int     // node at each depth
	values   []float64 // time or load after each depth
	masks    []bool    // N×N: candidate set in force at each depth
	counts   []int     // candidates left at each depth
	refine   []int     // refinement count of each depth
	budgetAt []bool    // budget flag when the last forward step left each depth
	visited  []bool
	order    []int // nodes by ascending due time (TSPTW, TSL)
	ubuf     []int // scratch for the look-ahead
}

// NewState returns a State with buffers for instances of n nodes.
func NewState(n int) *State {
	s := &State{}
	s.grow(n)
	return s
}

func (s *State) grow(n int) {
	s.n = n
	if cap(s.nodes) >= n {
		s.nodes, s.values, s.counts = s.nodes[:n], s.values[:n], s.counts[:n]
		s.refine, s.budgetAt, s.visited = s.refine[:n], s.budgetAt[:n], s.visited[:n]
		s.order, s.ubuf, s.masks = s.order[:n], s.ubuf[:0], s.masks[:n*n]
		return
	}
	s.nodes = make([]int, n)
	s.values = make([]float64, n)
	s.masks = make([]bool, n*n)
	s.counts = make([]int, n)
	s.refine = make([]int, n)
	s.budgetAt = make([]bool, n)
	s.visited = make([]bool, n)
	s.order = make([]int, n)
	s.ubuf = make([]int, 0, n)
}

// Reset starts a new trajectory on inst at the depot with the given
// look-ahead, backtrack budget (Unlimited, or R ≥ 0; 0 means no
// backtracking) and semantics, and initialises the depot's candidate set.
// The instance should have passed Validate.
func (s *State) Reset(inst *Instance, look Lookahead, budget int, sem Semantics) error {
	if look != LookTSL && look != LookSSL && look != LookNone {
		return fmt.Errorf("unknown lookahead %d", int(look))
	}
	if sem != Test && sem != Train {
		return fmt.Errorf("unknown semantics %d", int(sem))
	}
	if budget < Unlimited {
		return fmt.Errorf("backtrack budget %d: want %d (unlimited) or a count ≥ 0", budget, Unlimited)
	}
	if inst.N < 2 {
		return fmt.Errorf("instance %q has %d nodes, need at least 2", inst.Name, inst.N)
	}
	s.grow(inst.N)
	inst.Matrix()
	s.inst, s.look, s.budget, s.sem = inst, look, budget, sem
	clear(s.visited)
	s.visited[0] = true
	s.depth, s.backtracks, s.status = 0, 0, Running
	s.reached = budget == 0
	s.nodes[0], s.values[0], s.refine[0] = 0, 0, 0
	if inst.Problem == TSPTW && look == LookTSL {
		for i := range s.order {
			s.order[i] = i
		}
		late := inst.Late
		slices.SortStableFunc(s.order, func(a, b int) int {
			switch {
			case late[a] < late[b]:
				return -1
			case late[a] > late[b]:
				return 1
			}
			return 0
		})
	}
	s.initMask(0)
	return nil
}

// initMask computes the look-ahead candidate set of depth d (relaxed to all
// unvisited nodes when Train semantics has spent its budget).
func (s *State) initMask(d int) {
	n := s.n
	var order []int
	if s.inst.Problem == TSPTW && s.look == LookTSL {
		order = s.order
	}
	m := s.masks[d*n : (d+1)*n]
	c := fillMask(s.inst, s.look, s.visited, s.nodes[d], s.values[d], m, order, s.ubuf)
	if c == 0 && s.sem == Train && s.reached {
		c = fillUnvisited(s.visited, m)
	}
	s.counts[d] = c
}

// Next inspects the current candidate set. A non-empty set returns Forward.
// An empty set at depth > 0 pops the last node (one backtrack: the node
// leaves the parent's stored set and the parent's refinement count goes up)
// and returns Backtracked, or ends the trajectory as Failed under Test
// semantics when the budget is spent. An empty set at the depot fails
// (Test) or is relaxed (Train). Finished trajectories return Finished.
func (s *State) Next() Move {
	if s.status != Running {
		return Finished
	}
	d := s.depth
	if s.counts[d] > 0 {
		return Forward
	}
	if d == 0 {
		if s.sem == Train {
			s.reached = true
			s.counts[0] = fillUnvisited(s.visited, s.masks[:s.n])
			if s.counts[0] > 0 {
				return Forward
			}
		}
		s.status = Failed
		return Finished
	}
	if s.sem == Test && s.reached {
		// Only reachable with budget 0: no backtracking at all.
		s.status = Failed
		return Finished
	}
	s.pop()
	if s.sem == Test && s.reached {
		s.status = Failed
		return Finished
	}
	return Backtracked
}

// pop removes the node at the current depth and refines the parent's set.
func (s *State) pop() {
	d := s.depth
	del := s.nodes[d]
	s.visited[del] = false
	s.backtracks++
	s.reached = s.budget >= 0 && s.backtracks >= s.budget
	d--
	s.depth = d
	if m := s.masks[d*s.n : (d+1)*s.n]; m[del] {
		m[del] = false
		s.counts[d]--
	}
	s.refine[d]++
}

// Step appends node (which must be in the current candidate set) to the
// tour, updates time or load, and initialises the new depth's candidate
// set. Placing the last node makes the trajectory Complete.
func (s *State) Step(node int) error {
	if s.status != Running {
		return fmt.Errorf("step to node %d: trajectory is %s", node, s.status)
	}
	n, d := s.n, s.depth
	if node < 0 || node >= n || !s.masks[d*n+node] {
		return fmt.Errorf("step to node %d at depth %d: node is not a candidate", node, d)
	}
	in := s.inst
	cur := s.nodes[d]
	var v float64
	switch in.Problem {
	case TSPTW:
		arr := s.values[d] + in.Matrix()[cur*n+node]
		v = math.Max(arr, in.Early[node]) + in.Service[node]
	default:
		v = s.values[d] + in.Demand[node]
	}
	s.budgetAt[d] = s.reached
	d++
	s.depth = d
	s.nodes[d], s.values[d], s.refine[d] = node, v, 0
	s.visited[node] = true
	if d == n-1 {
		s.counts[d] = 0
		s.status = Complete
		return nil
	}
	s.initMask(d)
	return nil
}

// Follow steps a freshly Reset trajectory through prefix (depot first),
// as far as each node is in the current candidate set (Depth then says how
// far it came). It never backtracks: at the first node that is
// not a candidate (or an empty candidate set) it stops, and the decode
// goes on from the part it placed. A prefix that does not start at the
// depot or names a node outside 0..N−1 is an error.
func (s *State) Follow(prefix []int) error {
	if len(prefix) == 0 {
		return nil
	}
	if prefix[0] != 0 {
		return fmt.Errorf("follow: prefix starts at node %d, want the depot 0", prefix[0])
	}
	if s.depth != 0 || s.status != Running {
		return fmt.Errorf("follow: trajectory is at depth %d (%s), want a fresh one", s.depth, s.status)
	}
	for _, node := range prefix[1:] {
		if node < 0 || node >= s.n {
			return fmt.Errorf("follow: prefix names node %d, want 0..%d", node, s.n-1)
		}
		if s.status != Running || s.counts[s.depth] == 0 || !s.masks[s.depth*s.n+node] {
			return nil
		}
		if err := s.Step(node); err != nil {
			return err
		}
	}
	return nil
}

// Instance returns the instance being decoded.
func (s *State) Instance() *Instance { return s.inst }

// Depth is the number of customers placed.
func (s *State) Depth() int { return s.depth }

// Current is the node at the current depth.
func (s *State) Current() int { return s.nodes[s.depth] }

// Value is the time at which service at the current node ends (TSPTW) or the
// load after it (TSPDL).
func (s *State) Value() float64 { return s.values[s.depth] }

// Refine is the refinement count of the current depth: how many of its
// children were removed by backtracking.
func (s *State) Refine() int { return s.refine[s.depth] }

// BudgetReached reports whether the backtrack budget is spent.
func (s *State) BudgetReached() bool { return s.reached }

// Backtracks is the number of pops so far.
func (s *State) Backtracks() int { return s.backtracks }

// Status is the trajectory's lifecycle state.
func (s *State) Status() Status { return s.status }

// Mask returns the current candidate set (length N; a view into the stack,
// valid until the next Next or Step).
func (s *State) Mask() []bool { return s.masks[s.depth*s.n : (s.depth+1)*s.n] }

// MaskCount is the number of candidates in the current set.
func (s *State) MaskCount() int { return s.counts[s.depth] }

// Prefix returns the kept nodes, depot first (a view, valid until the next
// Next or Step). It has N entries once the trajectory is Complete.
func (s *State) Prefix() []int { return s.nodes[:s.depth+1] }

// Visited returns the visited flags (a view; must not be modified).
func (s *State) Visited() []bool { return s.visited }

// PaperBudget returns the paper's evaluation backtrack budget R for a
// test set: TSPTW with up to 50 nodes 100 / 100 / 200 (easy / medium /
// hard), larger TSPTW 150 / 200 / 300, TSPDL 150. ok is false where the
// paper fixes none (a TSPTW set of no known hardness, such as a benchmark).
func PaperBudget(p Problem, n int, hardness string) (r int, ok bool) {
	if p == TSPDL {
		return 150, true
	}
	big := n > 50
	switch hardness {
	case "easy":
		if big {
			return 150, true
		}
		return 100, true
	case "medium":
		if big {
			return 200, true
		}
		return 100, true
	case "hard":
		if big {
			return 300, true
		}
		return 200, true
	}
	return 0, false
}
