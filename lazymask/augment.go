package lazymask

// NumAugment is the number of dihedral transforms used at test time.
const NumAugment = 8

// Augment returns the k-th dihedral transform (k in [0,8)) of the instance's
// coordinates, in the reference's order: (x,y), (1−x,y), (x,1−y), (1−x,1−y),
// (y,x), (1−y,x), (y,1−x), (1−y,1−x). k = 0 returns the instance itself.
// Only coordinates change; an explicit travel-time matrix is kept, and
// Euclidean distances are invariant, so a tour decoded on an augmented copy
// is scored on the original instance.
func Augment(inst *Instance, k int) *Instance {
	if k == 0 {
		return inst
	}
	c := *inst
	c.dist = inst.dist // distances are invariant under the transform
	c.X = make([]float64, inst.N)
	c.Y = make([]float64, inst.N)
	for i := 0; i < inst.N; i++ {
		x, y := inst.X[i], inst.Y[i]
		if k >= 4 {
			x, y = y, x
		}
		if k&1 != 0 {
			x = 1 - x
		}
		if k&2 != 0 {
			y = 1 - y
		}
		c.X[i], c.Y[i] = x, y
	}
	return &c
}
