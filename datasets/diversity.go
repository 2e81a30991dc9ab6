package datasets

// TourDiversity measures how alike the tours of one instance are, as starts
// for a local search: distinct is the number of different tours, and
// edgeShare the mean, over ordered pairs of tours, of the share of one
// tour's directed edges (the closing edge included) that the other lacks:
// 0 when all tours are the same, 1 when no two share an edge. Each tour must
// be a permutation of 0..n−1 of one length n; fewer than two tours give 0.
func TourDiversity(tours [][]int) (distinct int, edgeShare float64) {
	if len(tours) == 0 {
		return 0, 0
	}
	next := make([][]int, len(tours))
	for t, tour := range tours {
		nx := make([]int, len(tour))
		for k, v := range tour {
			nx[v] = tour[(k+1)%len(tour)]
		}
		next[t] = nx
	}
	var sum float64
	for a := range next {
		same := false
		for b := range next {
			if a == b {
				continue
			}
			diff := 0
			for u, v := range next[a] {
				if next[b][u] != v {
					diff++
				}
			}
			sum += float64(diff) / float64(len(next[a]))
			same = same || (b < a && diff == 0)
		}
		if !same {
			distinct++
		}
	}
	if len(tours) < 2 {
		return distinct, 0
	}
	return distinct, sum / float64(len(tours)*(len(tours)-1))
}

// Diversity says how alike each instance's feasible tours are
// (EvaluateDiversity). It is kept apart from Metrics, which streamed and
// merged files also produce.
type Diversity struct {
	// Instances counts the instances with two or more feasible tours;
	// DistinctTours and EdgeShare are the means of TourDiversity over them.
	Instances                int
	DistinctTours, EdgeShare float64
}

// JSONFields returns m's JSON fields (Metrics.JSONFields) and, where d
// counts instances, d's: diversity_instances, distinct_tours and
// edge_diversity.
func (d Diversity) JSONFields(m Metrics) map[string]any {
	fields := m.JSONFields()
	if d.Instances > 0 {
		fields["diversity_instances"], fields["distinct_tours"], fields["edge_diversity"] = d.Instances, d.DistinctTours, d.EdgeShare
	}
	return fields
}

// add counts one instance's feasible tours (nothing with fewer than two,
// or on a nil d).
func (d *Diversity) add(tours [][]int) {
	if d == nil || len(tours) < 2 {
		return
	}
	k, e := TourDiversity(tours)
	d.Instances++
	d.DistinctTours += float64(k)
	d.EdgeShare += e
}

// finish turns the sums of add into means.
func (d *Diversity) finish() {
	if d != nil && d.Instances > 0 {
		d.DistinctTours /= float64(d.Instances)
		d.EdgeShare /= float64(d.Instances)
	}
}
