// What every case generator shares: the seeded input stream, the JSON shape of
// tensors and attrs that tests/conformance/op_conformance_test.cc reads, and
// the writer. generate.mjs (the core op set) and each op family's own
// generator (<family>.mjs, writing ../cases/<family>.json) build on it, so
// families grow their case files independently of one another.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';

await tf.setBackend('cpu');
export { tf };

// Attr helpers in the JSON shape the C++ harness reads.
export const A = {
  i: (v) => ({ i: v }), f: (v) => ({ f: v }), s: (v) => ({ s: v }), b: (v) => ({ b: v }),
  type: (v) => ({ type: v }), li: (v) => ({ list_i: v }), ls: (v) => ({ list_s: v }),
  lf: (v) => ({ list_f: v }), lt: (v) => ({ list_type: v }), lshape: (v) => ({ list_shape: v }),
  shape: (v) => ({ shape: v }),
};
export const T = (dtype = 'float32') => ({ T: A.type(dtype) });

// Literal tensors for hand-derived cases (no tfjs involved).
export const lit = (dtype, shape, data) => ({ dtype, shape, data });
export const hand = (name, op, attrs, inputs, outputs) =>
  ({ name: `${op}/${name}`, op, attrs, inputs, outputs, reference: 'hand-derived' });

const TF_DTYPE = { float32: 'float32', int32: 'int32', bool: 'bool', string: 'string' };
export function encode(t, dtypeOverride) {
  const data = Array.from(t.dataSync(), (v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
  return { dtype: dtypeOverride ?? TF_DTYPE[t.dtype], shape: t.shape, data };
}

// A case list with its own deterministic input stream (xorshift32, as the
// fixture references use). Add new cases at the end of a generator: inserting
// earlier changes the inputs of every later case.
export function caseBuilder(seed = 12345) {
  let state = seed;
  const cases = [];
  function rand() {
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state / 4294967296;
  }
  function randn(shape, lo = -1, hi = 1) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = lo + (hi - lo) * rand();
    return tf.tensor(data, shape, 'float32');
  }
  function randint(shape, lo, hi) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Int32Array(n);
    for (let i = 0; i < n; i++) data[i] = lo + Math.floor((hi - lo) * rand());
    return tf.tensor(data, shape, 'int32');
  }
  const i32 = (values, shape) => tf.tensor(values, shape ?? [values.length], 'int32');
  // name, TF op, attrs, inputs (tf tensors), fn computing tfjs outputs (array),
  // options: {outDtypes: [...TF dtypes], inDtypes: [...TF dtypes]} where
  // TensorFlow's dtype differs from the one tfjs computes in (int64 indices).
  function add(name, op, attrs, inputs, fn, options = {}) {
    let outs = fn(...inputs);
    if (!Array.isArray(outs)) outs = [outs];
    cases.push({
      name: `${op}/${name}`, op, attrs,
      inputs: inputs.map((t, k) => encode(t, options.inDtypes?.[k])),
      outputs: outs.map((t, k) => encode(t, options.outDtypes?.[k])),
    });
  }
  return { cases, rand, randn, randint, i32, add };
}

// Writes one case file to stdout: `node <generator>.mjs > ../cases/<name>.json`.
export function writeCases(generator, reference, cases) {
  process.stdout.write(JSON.stringify({ generator: `tests/conformance/generator/${generator}`, reference, cases }, null, 0) + '\n');
}
export const TFJS_REFERENCE = 'tfjs-core + tfjs-backend-cpu 4.22.0';
