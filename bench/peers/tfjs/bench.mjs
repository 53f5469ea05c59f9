// Peer timing for docs/perf.md: runs a TensorFlow.js graph model with the
// wasm or cpu backend and prints nearest-rank p50/p90/p99 latency, computed
// the same way as tfhost's. Inputs are the .npy files given with --input
// (make_inputs.mjs writes the fixtures' reference inputs, and `tfhost bench`
// reads the same files); inputs not given are synthesized as `tfhost bench`
// would (batch 1, shape and dtype from the model's inputs, uniform [0,1)
// floats).
//
//   node bench.mjs MODEL_DIR --backend wasm|cpu --runs N --warmup N [--input NAME=FILE.npy ...] [--json]
//
// The model is read from local files through a custom tf.io IOHandler, so
// nothing touches the network. Single-threaded: the wasm backend is asked for
// one thread; the cpu backend is plain JS on the main thread anyway.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import * as wasm from '@tensorflow/tfjs-backend-wasm';
import { loadGraphModel } from '@tensorflow/tfjs-converter';

function usage(msg) {
  if (msg) console.error(`bench.mjs: ${msg}`);
  console.error('usage: node bench.mjs MODEL_DIR --backend wasm|cpu [--runs N] [--warmup N] [--seed N] ' +
                '[--input NAME=FILE.npy ...] [--json]');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { backend: 'wasm', runs: 30, warmup: 5, seed: 1, json: false, dir: null, inputs: [] };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    const count = (name, min) => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < min) usage(`${name} must be an integer >= ${min}`);
      return n;
    };
    if (a === '--backend') opts.backend = value();
    else if (a === '--runs') opts.runs = count('--runs', 1);
    else if (a === '--warmup') opts.warmup = count('--warmup', 0);
    else if (a === '--seed') opts.seed = count('--seed', 0);
    else if (a === '--json') opts.json = true;
    else if (a === '--input') {
      const v = value();
      const eq = v.indexOf('=');
      if (eq <= 0) usage(`--input '${v}' must look like NAME=FILE.npy`);
      opts.inputs.push({ name: v.slice(0, eq), file: v.slice(eq + 1) });
    }
    else if (a === '--help' || a === '-h') usage();
    else if (a.startsWith('--')) usage(`unknown flag ${a}`);
    else if (opts.dir === null) opts.dir = a;
    else usage(`unexpected argument ${a}`);
  }
  if (opts.dir === null) usage('MODEL_DIR is required');
  if (opts.backend !== 'wasm' && opts.backend !== 'cpu') usage(`--backend must be wasm or cpu, not ${opts.backend}`);
  return opts;
}

// An IOHandler that reads model.json and its weight shards from disk, in
// manifest order, into one ArrayBuffer (what tf.io's http/file handlers give).
function localFileHandler(modelDir) {
  const jsonPath = fs.statSync(modelDir).isDirectory() ? path.join(modelDir, 'model.json') : modelDir;
  const base = path.dirname(jsonPath);
  return {
    load: async () => {
      const model = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
      const weightSpecs = [];
      const buffers = [];
      for (const group of model.weightsManifest ?? []) {
        weightSpecs.push(...group.weights);
        for (const p of group.paths) buffers.push(fs.readFileSync(path.join(base, p)));
      }
      const all = Buffer.concat(buffers);
      const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
      return {
        modelTopology: model.modelTopology,
        format: model.format,
        generatedBy: model.generatedBy,
        convertedBy: model.convertedBy,
        signature: model.signature,
        userDefinedMetadata: model.userDefinedMetadata,
        modelInitializer: model.modelInitializer,
        weightSpecs,
        weightData,
      };
    },
  };
}

// mulberry32: small seeded generator, so repeated runs feed the same values.
function makeRng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Same rule as tfhost bench: an unknown leading dim is the batch size (1);
// any other unknown dim cannot be synthesized.
function synthesize(input, rng) {
  const shape = (input.shape ?? []).map((d, i) => {
    if (d !== null && d >= 0) return d;
    if (i === 0) return 1;
    throw new Error(`input '${input.name}' has unknown dim ${i} in shape [${input.shape}]`);
  });
  const n = shape.reduce((a, b) => a * b, 1);
  if (input.dtype === 'float32') {
    const v = new Float32Array(n);
    for (let i = 0; i < n; ++i) v[i] = rng();
    return tf.tensor(v, shape, 'float32');
  }
  if (input.dtype === 'int32') {
    const v = new Int32Array(n);
    for (let i = 0; i < n; ++i) v[i] = Math.floor(rng() * 10);
    return tf.tensor(v, shape, 'int32');
  }
  if (input.dtype === 'bool') {
    const v = new Uint8Array(n);
    for (let i = 0; i < n; ++i) v[i] = rng() < 0.5 ? 1 : 0;
    return tf.tensor(v, shape, 'bool');
  }
  throw new Error(`input '${input.name}' has dtype ${input.dtype}, which this peer cannot synthesize`);
}

// Reads a little-endian, C-order .npy file (float32, int32 or bool) into a tensor.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', headerStart, headerStart + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || shapeText === undefined || fortran) throw new Error(`${file}: unsupported .npy header ${header}`);
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  const start = headerStart + headerLen;
  const bytes = buf.subarray(start);
  const copy = (Type, size) => {
    if (bytes.length < n * size) throw new Error(`${file}: ${bytes.length} data bytes, expected ${n * size}`);
    const out = new Type(n);
    new Uint8Array(out.buffer).set(bytes.subarray(0, n * size));
    return out;
  };
  if (descr === '<f4') return tf.tensor(copy(Float32Array, 4), shape, 'float32');
  if (descr === '<i4') return tf.tensor(copy(Int32Array, 4), shape, 'int32');
  if (descr === '|b1') return tf.tensor(copy(Uint8Array, 1), shape, 'bool');
  throw new Error(`${file}: dtype ${descr} is not one this peer reads (<f4, <i4, |b1)`);
}

// The model input an --input NAME means: the same name, or the same node
// ("src" and "src:0" are one tensor).
function matchInput(inputs, name) {
  const base = (s) => (s.endsWith(':0') ? s.slice(0, -2) : s);
  return inputs.find((i) => i.name === name) ?? inputs.find((i) => base(i.name) === base(name));
}

function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1];
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.backend === 'wasm') {
    const here = path.dirname(fileURLToPath(import.meta.url));
    wasm.setWasmPaths(path.join(here, 'node_modules/@tensorflow/tfjs-backend-wasm/dist/') + path.sep);
    if (typeof wasm.setThreadsCount === 'function') wasm.setThreadsCount(1);
  }
  tf.enableProdMode();  // what a deployment would do: no debug checks, no warnings
  if (!(await tf.setBackend(opts.backend))) throw new Error(`backend ${opts.backend} failed to initialize`);
  await tf.ready();
  const simd = opts.backend === 'wasm' ? await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') : false;
  const threads = opts.backend === 'wasm' && typeof wasm.getThreadsCount === 'function' ? wasm.getThreadsCount() : 1;

  const model = await loadGraphModel(localFileHandler(opts.dir));
  const rng = makeRng(opts.seed);
  const feeds = {};
  for (const given of opts.inputs) {
    const input = matchInput(model.inputs, given.name);
    if (input === undefined) {
      throw new Error(`--input ${given.name}: the model's inputs are ${model.inputs.map((i) => i.name).join(', ')}`);
    }
    feeds[input.name] = readNpy(given.file);
  }
  for (const input of model.inputs) {
    if (!(input.name in feeds)) feeds[input.name] = synthesize(input, rng);
  }
  const outputNames = model.outputs.map((o) => o.name);

  // One run = execute + read every output back to host memory (tfhost's
  // RunSignature returns host tensors, so both sides pay for the results).
  // execute() is synchronous and refuses graphs with control flow or dynamic
  // shapes; those fall back to executeAsync(), as a TF.js user would.
  let useAsync = false;
  const runOnce = async () => {
    let result;
    if (!useAsync) {
      try {
        result = model.execute(feeds, outputNames);
      } catch (e) {
        useAsync = true;
      }
    }
    if (useAsync) result = await model.executeAsync(feeds, outputNames);
    const outs = Array.isArray(result) ? result : [result];
    for (const t of outs) t.dataSync();
    tf.dispose(outs);
  };
  for (let i = 0; i < opts.warmup; ++i) await runOnce();
  const latencies = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < opts.runs; ++i) {
    const t0 = process.hrtime.bigint();
    await runOnce();
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const totalS = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  const report = {
    model: opts.dir,
    backend: opts.backend,
    execute: useAsync ? 'executeAsync' : 'execute',
    simd,
    threads,
    tfjs: tf.version_core,
    node: process.version,
    inputs: Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, { dtype: t.dtype, shape: t.shape }])),
    input_files: Object.fromEntries(opts.inputs.map((i) => [i.name, i.file])),
    batch: 1,
    runs: opts.runs,
    warmup: opts.warmup,
    p50_ms: percentile(latencies, 50),
    p90_ms: percentile(latencies, 90),
    p99_ms: percentile(latencies, 99),
    min_ms: latencies[0],
    mean_ms: latencies.reduce((a, b) => a + b, 0) / latencies.length,
    items_per_s: opts.runs / totalS,
  };
  if (opts.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(`model: ${report.model}  backend: ${report.backend}${simd ? ' (simd)' : ''}  threads: ${threads}` +
                `  warm-up: ${opts.warmup}`);
    console.log(`runs ${report.runs}  p50 ${report.p50_ms.toFixed(3)} ms  p90 ${report.p90_ms.toFixed(3)} ms` +
                `  p99 ${report.p99_ms.toFixed(3)} ms  mean ${report.mean_ms.toFixed(3)} ms` +
                `  items/s ${report.items_per_s.toFixed(1)}`);
  }
  tf.dispose(Object.values(feeds));
  model.dispose();
}

main().catch((e) => {
  console.error(`bench.mjs: ${e.stack ?? e}`);
  process.exit(1);
});
