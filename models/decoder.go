package models

import (
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/lmask/lmask/models/features"
)

// query projects the decoder context [..., d] ⊕ step features to the
// pointer query [..., d]: the context is the current node's embedding
// followed by column 0 of stepFeat, or all 8 columns when cfg.RIE is set.
func query(scope *model.Scope, cfg features.Config, hCur, stepFeat *Node) *Node {
	width := 1
	if cfg.RIE {
		width = features.StepFeatures
	}
	axes := make([]SliceAxisSpec, stepFeat.Rank())
	for i := range axes {
		axes[i] = AxisRange()
	}
	axes[len(axes)-1] = AxisRange(0, width)
	ctx := Concatenate([]*Node{hCur, Slice(stepFeat, axes...)}, -1)
	return linear(scopeAt(scope, "dec/query"), ctx, cfg.DModel, true)
}

// pointer computes the log-probabilities [X,M,N] of M queries q [X,M,d]
// per group X over the N nodes of that group's caches gk, gv, lk [X,N,d];
// mask [X,M,N] is true where a node may be chosen. It applies masked
// multi-head attention (the glimpse), project_out, the scaled pointer
// logits, TanhClip·tanh, the mask and a log-softmax. Format 2 adds, where
// the config asks: cand [X,M,N,K] candidate features through a ReLU layer
// φ into the glimpse keys and values and the logit keys (keys), or as a
// logit bias (bias), and the ReLD block g = g + q; g = g + FFN(g). The
// feature terms are contracted with q and g first, so no [X,M,N,d] tensor
// is formed.
func pointer(scope *model.Scope, cfg features.Config, q, gk, gv, lk, mask, cand *Node) *Node {
	g := q.Graph()
	dims := q.Shape().Dimensions
	x, m, d := dims[0], dims[1], dims[2]
	n := gk.Shape().Dim(1)
	h := cfg.Heads
	dh := d / h
	var phi *Node // [X,M,N,CandHidden]
	keys := cfg.Cand == features.CandKeys || cfg.Cand == features.CandBoth
	bias := cfg.Cand == features.CandBias || cfg.Cand == features.CandBoth
	cs := scopeAt(scope, "dec/cand")
	if cfg.CandWidth() > 0 {
		w1 := param(cs, g, "w1", cfg.CandWidth(), features.CandHidden)
		phi = addLast(matmul2D(cand, w1), param(cs, g, "b1", features.CandHidden))
		phi = relu(phi)
	}
	// Every product below is a rank-2 product or has its batch axes
	// leading and two trailing axes per operand: the backend runs each, and
	// its gradients, as one MatMul.
	qh, kh, vh := headsFirst(q, h), headsFirst(gk, h), headsFirst(gv, h)
	scores := batchedProduct(qh, kh, true) // [X,H,M,N]
	if keys {
		wk := TransposeAllDims(Reshape(param(cs, g, "gk", features.CandHidden, d), features.CandHidden, h, dh), 1, 2, 0) // [H,dh,K]
		qk := headsOuter(batchedProduct(headsInner(q, h), wk, false), x, m)                                              // [X,M,H,K]
		scores = Add(scores, TransposeAllDims(batchedProduct(qk, phi, true), 0, 2, 1, 3))
	}
	scores = MulScalar(scores, 1/math.Sqrt(float64(dh)))
	// The mask enters as an additive [X,1,M,N] term, 0 or MaskedLogit,
	// broadcast over the heads: a masked score becomes MaskedLogit plus a
	// score, whose exponential after the softmax's shift underflows to 0
	// as that of MaskedLogit does, so the attention and its gradient are
	// those of replacing the score, without a Where over [X,H,M,N] in
	// either pass. (In a row with no allowed node the glimpse differs, but
	// such a row's logits are all MaskedLogit below.)
	negative := Scalar(g, dtypes.Float32, MaskedLogit)
	maskBias := Where(InsertAxes(mask, 1), BroadcastToDims(ScalarZero(g, dtypes.Float32), x, 1, m, n), BroadcastToDims(negative, x, 1, m, n))
	scores = Add(scores, maskBias)
	attn := softmax(scores)
	glimpse := TransposeAllDims(batchedProduct(attn, vh, false), 0, 2, 1, 3) // [X,M,H,dh]
	if keys {
		wv := TransposeAllDims(Reshape(param(cs, g, "gv", features.CandHidden, d), features.CandHidden, h, dh), 1, 0, 2) // [H,K,dh]
		ap := batchedProduct(TransposeAllDims(attn, 0, 2, 1, 3), phi, false)                                             // [X,M,H,K]
		apH := TransposeAllDims(Reshape(ap, x*m, h, features.CandHidden), 1, 0, 2)                                       // [H,X·M,K]
		glimpse = Add(glimpse, headsOuter(batchedProduct(apH, wv, false), x, m))
	}
	glimpse = linear(scopeAt(scope, "dec/project_out"), Reshape(glimpse, x, m, d), d, false)
	if cfg.ReLD {
		glimpse = Add(glimpse, q)
		glimpse = Add(glimpse, feedForward(scopeAt(scope, "dec/reld"), glimpse, cfg.FFN))
	}
	logits := batchedProduct(glimpse, lk, true) // [X,M,N]
	if keys {
		gl := matmul2D(glimpse, Transpose(param(cs, g, "lk", features.CandHidden, d), 0, 1)) // [X,M,K]
		logits = Add(logits, Reshape(batchedProduct(InsertAxes(gl, 2), phi, true), x, m, n))
	}
	logits = MulScalar(logits, 1/math.Sqrt(float64(d)))
	if bias {
		bw := param(cs, g, "bw", features.CandHidden, 1)
		logits = Add(logits, Reshape(matmul2D(phi, bw), x, m, n))
		logits = Add(logits, ExpandLeftToRank(param(cs, g, "bb", 1), 3))
	}
	logits = MulScalar(Tanh(logits), features.TanhClip)
	logits = Where(mask, logits, BroadcastToDims(negative, x, m, n))
	return LogSoftmax(logits, -1)
}

// batchedProduct multiplies a [..., m, k] by b [..., k, n] (or, with
// transposeB, b [..., n, k]) over their equal leading (batch) axes.
func batchedProduct(a, b *Node, transposeB bool) *Node {
	nb := a.Rank() - 2
	batch := make([]int, nb)
	for i := range batch {
		batch[i] = i
	}
	bContract := nb
	if transposeB {
		bContract = nb + 1
	}
	return Dot(a, b).General([]int{nb + 1}, batch, []int{bContract}, batch)
}

// headsInner splits q [X,M,d] into heads, heads leading: [H,X·M,d/H].
func headsInner(q *Node, heads int) *Node {
	dims := q.Shape().Dimensions
	return TransposeAllDims(Reshape(q, dims[0]*dims[1], heads, dims[2]/heads), 1, 0, 2)
}

// headsOuter is the inverse layout change of headsInner for y [H,X·M,c]:
// it returns [X,M,H,c].
func headsOuter(y *Node, x, m int) *Node {
	dims := y.Shape().Dimensions
	return Reshape(TransposeAllDims(y, 1, 0, 2), x, m, dims[0], dims[2])
}

// DecoderStep computes one decoding step for R rows over encoder caches of
// B instances: emb, glimpseK, glimpseV, logitK [B,N,d]; rowInstance and
// current [R] int64; stepFeat [R,8] float32; mask [R,N] bool (true =
// allowed); cand [R,N,K] (nil without candidate features). It returns
// log_probs [R,N]; masked entries are about −1e9.
func DecoderStep(scope *model.Scope, cfg features.Config, emb, glimpseK, glimpseV, logitK, rowInstance, current, stepFeat, mask, cand *Node) *Node {
	r := rowInstance.Shape().Dim(0)
	n := emb.Shape().Dim(1)
	inst := InsertAxes(rowInstance, -1)                                                // [R,1]
	hCur := Gather(emb, Stack([]*Node{rowInstance, current}, -1))                      // [R,d]
	q := query(scope, cfg, hCur, stepFeat)                                             // [R,d]
	gk, gv, lk := Gather(glimpseK, inst), Gather(glimpseV, inst), Gather(logitK, inst) // [R,N,d]
	if cand != nil {
		cand = InsertAxes(cand, 1)
	}
	logp := pointer(scope, cfg, InsertAxes(q, 1), gk, gv, lk, Reshape(mask, r, 1, n), cand)
	return Reshape(logp, r, n)
}

// ReplayLogLik replays B·P sampled rollouts of T steps teacher-forced in
// one graph: the encoder runs once per instance and every step of every
// rollout is decoded in one batch. Inputs: nodeFeat [B,N,4]; current
// [B,P,T] int64 (node the step starts from); stepFeat [B,P,T,8]; mask
// [B,P,T,N] bool (the mask under which the step's node was drawn); chosen
// [B,P,T] int64 (the drawn node); valid [B,P,T] float32 (1 for steps that
// count, 0 for padding; used as a weight); cand [B,P,T,N,K] (nil without
// candidate features). It returns loglik [B,P] =
// Σ_t valid·log p(chosen) and entropy [B,P] = Σ_t valid·(−Σ_j p_j log p_j).
// Steps with valid = 0 may carry any mask (even all false) and any indices
// in range; they contribute exactly zero, also to the gradient.
func ReplayLogLik(scope *model.Scope, cfg features.Config, nodeFeat, current, stepFeat, mask, chosen, valid, cand *Node) (loglik, entropy *Node) {
	g := nodeFeat.Graph()
	dims := current.Shape().Dimensions
	b, p, t := dims[0], dims[1], dims[2]
	n := nodeFeat.Shape().Dim(1)
	m := p * t
	emb, gk, gv, lk := Encoder(scope, cfg, nodeFeat)

	bIdx := Iota(g, shapes.Make(dtypes.Int64, b, m), 0) // [B,M]
	cur := Reshape(ConvertDType(current, dtypes.Int64), b, m)
	hCur := Gather(emb, Stack([]*Node{bIdx, cur}, -1)) // [B,M,d]
	q := query(scope, cfg, hCur, Reshape(stepFeat, b, m, features.StepFeatures))

	validM := Reshape(valid, b, m)
	counts := GreaterThan(validM, ZerosLike(validM)) // [B,M] bool
	padded := BroadcastToDims(InsertAxes(LogicalNot(counts), -1), b, m, n)
	effMask := LogicalOr(Reshape(mask, b, m, n), padded)
	if cand != nil {
		cand = Reshape(cand, b, m, n, cfg.CandWidth())
	}
	logp := pointer(scope, cfg, q, gk, gv, lk, effMask, cand) // [B,M,N]

	mIdx := Iota(g, shapes.Make(dtypes.Int64, b, m), 1)
	ch := Reshape(ConvertDType(chosen, dtypes.Int64), b, m)
	picked := Gather(logp, Stack([]*Node{bIdx, mIdx, ch}, -1)) // [B,M]
	zero := ZerosLike(picked)
	picked = Mul(Where(counts, picked, zero), validM)

	prob := Exp(logp)
	plogp := Where(effMask, Mul(prob, logp), ZerosLike(logp))
	ent := Neg(ReduceSum(plogp, -1)) // [B,M]
	ent = Mul(Where(counts, ent, zero), validM)

	loglik = ReduceSum(Reshape(picked, b, p, t), -1)
	entropy = ReduceSum(Reshape(ent, b, p, t), -1)
	return loglik, entropy
}

// DecoderStepGrouped is DecoderStep with the rows grouped by instance:
// current [B,M] int64, stepFeat [B,M,8], mask [B,M,N] and cand [B,M,N,K]
// (nil without candidate features) hold M rows of each of the B
// instances, which avoids copying the caches per row. It returns
// log_probs [B,M,N]; padding rows should carry an all-true mask.
func DecoderStepGrouped(scope *model.Scope, cfg features.Config, emb, glimpseK, glimpseV, logitK, current, stepFeat, mask, cand *Node) *Node {
	g := emb.Graph()
	dims := current.Shape().Dimensions
	b, m := dims[0], dims[1]
	bIdx := Iota(g, shapes.Make(dtypes.Int64, b, m), 0)
	hCur := Gather(emb, Stack([]*Node{bIdx, ConvertDType(current, dtypes.Int64)}, -1)) // [B,M,d]
	q := query(scope, cfg, hCur, stepFeat)
	return pointer(scope, cfg, q, glimpseK, glimpseV, logitK, mask, cand)
}
