package models

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/lmask/lmask/models/features"
)

// The folded decoder step is the grouped decoder step (DecoderStepGrouped)
// with every product that involves only one instance's nodes and the
// weights computed once per encode instead of once per step. With
// K_h, V_h, LK the glimpse keys, values and logit keys of an instance,
// E = node_emb·Wq[:d] + bq the node part of the query, S_w = Wq[d:] the
// step-feature part, and Wo_h the rows of project_out that head h feeds:
//
//	score[m,h,n] = (E[cur_m] + step_m·S_w)_h · K_hn / √dh
//	             = Sc[cur_m,h,n] + Σ_j step_mj · Cs[j,h,n]
//	logit[m,n]   = Σ_h Σ_k p[m,h,k] · (V_hk·Wo_h) · LK_n / √d
//	             = Σ_(h,k) p[m,h,k] · A[h,k,n]
//
// with Sc [N,H,N], Cs [w,H,N] and A [H·N,N] per instance. A step then
// gathers one [H,N] block per row and runs two small contractions, instead
// of the query projection, attention over the keys and values, project_out
// and the logit keys (five batched products, several with transposes).
// Per row the folded step costs about H·N² multiply-adds against
// 3·N·d + 2·d² for the direct form, but it runs fewer and larger kernels;
// on ONNX Runtime CPU (d=128, 8 heads) it was faster at N=51 and slower at
// N=101, hence the threshold of foldedFits. The results agree with DecoderStepGrouped to float32
// rounding.

// queryWidth is the number of step-feature columns the query reads.
func queryWidth(cfg features.Config) int {
	if cfg.RIE {
		return features.StepFeatures
	}
	return 1
}

// foldedFits reports whether the folded step is expected to be faster than
// the direct grouped step for instances of n nodes: H·N² ≤ 3·N·d + d².
func foldedFits(cfg features.Config, n int) bool {
	if cfg.ReLD || cfg.CandWidth() > 0 {
		return false // the folding covers format 1's decoder only
	}
	d := cfg.DModel
	return cfg.Heads*n*n <= 3*n*d+d*d
}

// foldedCaches encodes nodeFeat [B,N,4] and returns the folded decoder
// caches: sc [B,N,H,N] (current-node part of the scores, query bias
// included), cs [B,w,H·N] (step-feature part of the scores) and a
// [B,H·N,N] (attention weights → logits), with w = queryWidth(cfg).
func foldedCaches(scope *model.Scope, cfg features.Config, nodeFeat *Node) (sc, cs, a *Node) {
	emb, gk, gv, lk := Encoder(scope, cfg, nodeFeat)
	g := emb.Graph()
	dims := emb.Shape().Dimensions
	b, n, d := dims[0], dims[1], dims[2]
	h := cfg.Heads
	dh := d / h
	w := queryWidth(cfg)
	qs := scopeAt(scope, "dec/query")
	wq := param(qs, g, "w", d+w, d)
	bq := param(qs, g, "b", d)
	wo := param(scopeAt(scope, "dec/project_out"), g, "w", d, d)

	kh := Reshape(MulScalar(gk, 1/math.Sqrt(float64(dh))), b, n, h, dh)
	e := Einsum("xnc,ce->xne", emb, Slice(wq, AxisRange(0, d), AxisRange()))
	e = Reshape(addLast(e, bq), b, n, h, dh)
	sc = Einsum("xahc,xbhc->xahb", e, kh) // [B,N,H,N]
	ws := Reshape(Slice(wq, AxisRange(d, d+w), AxisRange()), w, h, dh)
	cs = Reshape(Einsum("jhc,xbhc->xjhb", ws, kh), b, w, h*n)
	vo := Einsum("xnhc,hce->xhne", Reshape(gv, b, n, h, dh), Reshape(wo, h, dh, d)) // [B,H,N,d]
	a = Einsum("xhke,xne->xhkn", vo, MulScalar(lk, 1/math.Sqrt(float64(d))))
	return sc, cs, Reshape(a, b, h*n, n)
}

// foldedStep is DecoderStepGrouped over the folded caches of foldedCaches
// sc [B,N,H,N], cs [B,w,H·N] and a [B,H·N,N]: node [B,M] int64 is
// instance·N + current node of each row, stepFeat [B,M,8], and bias [B,M,N]
// float32 is 0 where a node is allowed and MaskedLogit where it is masked.
// It returns log_probs [B,M,N]; masked entries are about MaskedLogit.
func foldedStep(cfg features.Config, sc, cs, a, node, stepFeat, bias *Node) *Node {
	dims := bias.Shape().Dimensions
	b, m, n := dims[0], dims[1], dims[2]
	h := cfg.Heads
	rows := Reshape(sc, b*n, h*n)
	scores := Gather(rows, InsertAxes(node, -1)) // [B,M,H·N]
	step := Slice(stepFeat, AxisRange(), AxisRange(), AxisRange(0, queryWidth(cfg)))
	scores = Add(scores, Einsum("xmj,xjk->xmk", step, cs))
	scores = Add(Reshape(scores, b, m, h, n), InsertAxes(bias, 2))
	p := Reshape(Softmax(scores, -1), b, m, h*n)
	logits := Einsum("xmk,xkn->xmn", p, a)
	// 10·tanh bounds the logits, so the log-sum-exp needs no shift.
	logits = Add(MulScalar(Tanh(logits), features.TanhClip), bias)
	return Sub(logits, Log(ReduceAndKeep(Exp(logits), ReduceSum, -1)))
}
