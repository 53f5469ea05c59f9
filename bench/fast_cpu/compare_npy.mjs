// Compares two folders of .npy outputs (as `tfhost run --output-dir` writes
// them) file by file and prints one markdown row per output: the max
// relative error max|b - a| / max|a| (relative to the output's largest
// magnitude, as the fixtures' README measures agreement).
//
//   node compare_npy.mjs LABEL DIR_A DIR_B [LIMIT]
import fs from 'node:fs';
import path from 'node:path';

function readNpyFloats(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const data = buf.subarray(start);
  if (descr === '<f4') {
    const out = new Float32Array(data.length / 4);
    new Uint8Array(out.buffer).set(data.subarray(0, out.length * 4));
    return out;
  }
  if (descr === '<f8') {
    const out = new Float64Array(data.length / 8);
    new Uint8Array(out.buffer).set(data.subarray(0, out.length * 8));
    return out;
  }
  throw new Error(`${file}: dtype ${descr}; only float outputs are compared`);
}

const [label, dirA, dirB, limitText] = process.argv.slice(2);
if (!dirB) {
  console.error('usage: node compare_npy.mjs LABEL DIR_A DIR_B [LIMIT]');
  process.exit(2);
}
const limit = limitText === undefined ? Infinity : Number(limitText);
for (const name of fs.readdirSync(dirA).filter((f) => f.endsWith('.npy')).sort()) {
  const a = readNpyFloats(path.join(dirA, name));
  const b = readNpyFloats(path.join(dirB, name));
  if (a.length !== b.length) throw new Error(`${name}: ${a.length} vs ${b.length} elements`);
  let maxAbs = 0;
  let maxDiff = 0;
  for (let i = 0; i < a.length; ++i) {
    maxAbs = Math.max(maxAbs, Math.abs(a[i]));
    maxDiff = Math.max(maxDiff, Math.abs(b[i] - a[i]));
  }
  const rel = maxAbs > 0 ? maxDiff / maxAbs : maxDiff;
  const verdict = Number.isFinite(limit) ? (rel <= limit ? 'met' : 'not met') : '';
  console.log(`| ${label} | ${name.replace(/\.npy$/, '')} | ${rel.toExponential(2)} | ${verdict} |`);
}
