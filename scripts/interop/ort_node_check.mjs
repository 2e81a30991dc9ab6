// Runs an lmask model directory in onnxruntime-node: encoder.onnx on the
// node features, then decoder.onnx on its outputs, and prints every output
// as JSON (non-finite numbers as null).
//
//   node scripts/interop/ort_node_check.mjs MODEL_DIR INPUTS_JSON
//
// INPUTS_JSON holds {B, N, R, node_feat, row_instance, current, step_feat,
// mask}, and {K, cand_feat} for a format-2 decoder with candidate features. onnxruntime-node is resolved from $LMASK_ORT_NODE_MODULES or
// third_party/node/node_modules of the repository.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const modules = process.env.LMASK_ORT_NODE_MODULES || path.join(root, 'third_party', 'node', 'node_modules');
const require = createRequire(path.join(modules, '..', 'package.json'));
const ort = require('onnxruntime-node');

const [dir, inputsPath] = process.argv.slice(2);
if (!dir || !inputsPath) {
  console.error('usage: ort_node_check.mjs MODEL_DIR INPUTS_JSON');
  process.exit(2);
}
const inp = JSON.parse(readFileSync(inputsPath, 'utf8'));
const { B, N, R } = inp;

const enc = await ort.InferenceSession.create(path.join(dir, 'encoder.onnx'));
const dec = await ort.InferenceSession.create(path.join(dir, 'decoder.onnx'));
const e = await enc.run({ node_feat: new ort.Tensor('float32', Float32Array.from(inp.node_feat), [B, N, 4]) });
const feeds = {
  node_emb: e.node_emb,
  glimpse_k: e.glimpse_k,
  glimpse_v: e.glimpse_v,
  logit_k: e.logit_k,
  row_instance: new ort.Tensor('int64', BigInt64Array.from(inp.row_instance.map(BigInt)), [R]),
  current: new ort.Tensor('int64', BigInt64Array.from(inp.current.map(BigInt)), [R]),
  step_feat: new ort.Tensor('float32', Float32Array.from(inp.step_feat), [R, 8]),
  mask: new ort.Tensor('bool', Uint8Array.from(inp.mask.map((m) => (m ? 1 : 0))), [R, N]),
};
if (inp.K) feeds.cand_feat = new ort.Tensor('float32', Float32Array.from(inp.cand_feat), [R, N, inp.K]);
const d = await dec.run(feeds);
const arr = (t) => Array.from(t.data, (v) => (Number.isFinite(v) ? v : null));
const meta = enc.handler && enc.handler.metadata ? enc.handler.metadata : undefined;
console.log(JSON.stringify({
  node_emb: arr(e.node_emb),
  glimpse_k: arr(e.glimpse_k),
  glimpse_v: arr(e.glimpse_v),
  logit_k: arr(e.logit_k),
  log_probs: arr(d.log_probs),
  log_probs_dims: d.log_probs.dims,
  encoder_inputs: enc.inputNames,
  decoder_inputs: dec.inputNames,
  metadata: meta,
}));
