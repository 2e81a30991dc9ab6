package lazymask

import "math"

// mix64 is the SplitMix64 output function, a bijective bit mixer.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// streamSeed derives the random stream of trajectory t from the decode seed.
func streamSeed(seed, t uint64) uint64 {
	return mix64(seed+0x9e3779b97f4a7c15) ^ mix64(t*0xd1b54a32d192ed03+0x632be59bd9b4e019)
}

// uniform advances a SplitMix64 stream and returns a float64 in [0, 1).
func uniform(state *uint64) float64 {
	*state += 0x9e3779b97f4a7c15
	return float64(mix64(*state)>>11) * (1.0 / (1 << 53))
}

// pickGreedy returns the allowed node with the highest score; ties go to the
// lowest index and NaN counts as −∞. It returns −1 if nothing is allowed.
func pickGreedy(scores []float32, mask []bool) int {
	best := -1
	var bv float32
	for j, ok := range mask {
		if !ok {
			continue
		}
		v := scores[j]
		if v != v {
			v = float32(math.Inf(-1))
		}
		if best < 0 || v > bv {
			best, bv = j, v
		}
	}
	return best
}

// pickSample draws an allowed node from the softmax of its scores using the
// stream in state; w is scratch of length ≥ len(mask). When every allowed
// score is −∞ or NaN it draws uniformly among the allowed nodes. It returns
// −1 if nothing is allowed.
func pickSample(scores []float32, mask []bool, state *uint64, w []float64) int {
	mx := math.Inf(-1)
	count, last := 0, -1
	for j, ok := range mask {
		if !ok {
			continue
		}
		count++
		last = j
		if v := float64(scores[j]); v > mx {
			mx = v
		}
	}
	if count == 0 {
		return -1
	}
	u := uniform(state)
	if math.IsInf(mx, -1) {
		k := int(u * float64(count))
		for j, ok := range mask {
			if ok {
				if k == 0 {
					return j
				}
				k--
			}
		}
		return last
	}
	sum := 0.0
	for j, ok := range mask {
		x := 0.0
		if ok {
			if v := float64(scores[j]); v == v {
				x = math.Exp(v - mx)
			}
		}
		w[j] = x
		sum += x
	}
	target := u * sum
	acc := 0.0
	for j, ok := range mask {
		if !ok || w[j] == 0 {
			continue
		}
		acc += w[j]
		if acc > target {
			return j
		}
	}
	// Rounding left target at the very end: take the last positive weight.
	for j := len(mask) - 1; j >= 0; j-- {
		if mask[j] && w[j] > 0 {
			return j
		}
	}
	return last
}
