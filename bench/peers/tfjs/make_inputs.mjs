// Writes a fixture model's reference inputs (reference/reference.json, one
// frame) as .npy files, so that `tfhost bench --input` and bench.mjs --input
// feed both engines the same values. Prints one NAME=FILE line per input,
// NAME being the graph tensor ("input:0", "src:0", "r1i:0").
//
//   node make_inputs.mjs MODEL_DIR OUT_DIR [--frame N]
//
// --frame defaults to the last frame: for rvm that is frame 1, whose
// recurrent states r1i..r4i are frame 0's outputs (frame 0 starts them as
// zero scalars) and whose downsample_ratio is 0.5, as the fixture README says.
import fs from 'node:fs';
import path from 'node:path';

function usage(msg) {
  if (msg) console.error(`make_inputs.mjs: ${msg}`);
  console.error('usage: node make_inputs.mjs MODEL_DIR OUT_DIR [--frame N]');
  process.exit(2);
}

// Version 1.0 .npy: magic, header dict padded with spaces to a multiple of
// 64 bytes (ending in '\n'), then the raw little-endian data.
function npyBytes(descr, shape, data) {
  const shapeText = shape.length === 0 ? '()' : shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), data]);
}

const args = process.argv.slice(2);
let frame = null;
const positional = [];
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--frame') {
    frame = Number(args[++i]);
    if (!Number.isInteger(frame) || frame < 0) usage('--frame must be a non-negative integer');
  } else if (args[i].startsWith('--')) {
    usage(`unknown flag ${args[i]}`);
  } else {
    positional.push(args[i]);
  }
}
if (positional.length !== 2) usage('MODEL_DIR and OUT_DIR are required');
const [modelDir, outDir] = positional;
const refDir = path.join(modelDir, 'reference');
const ref = JSON.parse(fs.readFileSync(path.join(refDir, 'reference.json'), 'utf8'));
const frames = ref.frames ?? [];
if (frames.length === 0) usage(`${refDir}/reference.json lists no frames`);
const f = frame ?? frames.length - 1;
if (f >= frames.length) usage(`--frame ${f}: ${refDir}/reference.json has ${frames.length} frame(s)`);
fs.mkdirSync(outDir, { recursive: true });
for (const input of frames[f].inputs) {
  if (input.dtype !== 'float32') throw new Error(`input ${input.name}: dtype ${input.dtype}, expected float32`);
  const data = fs.readFileSync(path.join(refDir, input.file));
  const n = input.shape.reduce((a, b) => a * b, 1);
  if (data.length !== 4 * n) {
    throw new Error(`${input.file}: ${data.length} bytes, expected ${4 * n} for shape [${input.shape}]`);
  }
  const file = path.join(outDir, `${input.graphTensor.replace(/[:/]/g, '_')}.npy`);
  fs.writeFileSync(file, npyBytes('<f4', input.shape, data));
  console.log(`${input.graphTensor}=${file}`);
}
