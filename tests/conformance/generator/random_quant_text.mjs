// Conformance cases for the stateless random ops, the Unicode text ops and the
// 2-D/3-D FFTs (issue 3, model coverage), written to ../cases/random_quant_text.json:
//
//   node random_quant_text.mjs > /tmp/random_quant_text.json && cp /tmp/random_quant_text.json ../cases/
//
// References, by family:
//  - Stateless random: an independent Philox4x32-10 in JavaScript (BigInt
//    arithmetic from the paper's constants), checked at start-up against
//    Random123's published known-answer vectors, plus TensorFlow's seed
//    scrambling and its uint32 -> float / Box-Muller / truncation rules as
//    documented in TF's random_distributions.h; and one output pinned by
//    TensorFlow's own documentation (stateless_fold_in's example).
//  - Unicode: WHATWG TextDecoder/TextEncoder of Node.js, which replace each
//    maximal ill-formed subpart by U+FFFD as ICU (TensorFlow's backend) does.
//  - FFT2D/3D: tfjs's 1-D fft/ifft/rfft/irfft composed over the axes with transposes.
//  - QuantizeV2/Dequantize: TensorFlow's documented formulas (the op
//    reference pages of tf.quantization.quantize / dequantize), evaluated
//    here on inputs whose scaled values are exact in float, so rounding
//    modes decide the ties on purpose.
// uint64 values (keys, counters) are written as decimal strings.
import { tf, A, lit, hand, caseBuilder, writeCases, TFJS_REFERENCE } from './case_builder.mjs';

const { cases, randn, add } = caseBuilder(20261201);

// ---------------------------------------------------------------- Philox ----
const MUL = [0xD2511F53n, 0xCD9E8D57n];
const BUMP = [0x9E3779B9, 0xBB67AE85];
function philox(counter, key) {
  let c = counter.slice();
  const k = key.slice();
  for (let r = 0; r < 10; r++) {
    if (r > 0) { k[0] = (k[0] + BUMP[0]) >>> 0; k[1] = (k[1] + BUMP[1]) >>> 0; }
    const p0 = MUL[0] * BigInt(c[0]);
    const p1 = MUL[1] * BigInt(c[2]);
    c = [(Number(p1 >> 32n) ^ c[1] ^ k[0]) >>> 0, Number(p1 & 0xffffffffn),
      (Number(p0 >> 32n) ^ c[3] ^ k[1]) >>> 0, Number(p0 & 0xffffffffn)];
  }
  return c;
}
// Random123 kat_vectors, philox4x32_10 (counter, key -> output).
const KAT = [
  [[0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]],
  [[0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff], [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]],
  [[0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0], [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]],
];
for (const [c, k, want] of KAT) {
  const got = philox(c, k);
  if (got.some((v, i) => v !== want[i])) throw new Error(`Philox KAT mismatch: ${got} vs ${want}`);
}
const counterAdd = (c, n) => {
  let v = BigInt(c[0]) | (BigInt(c[1]) << 32n) | (BigInt(c[2]) << 64n) | (BigInt(c[3]) << 96n);
  v = BigInt.asUintN(128, v + BigInt(n));
  return [0, 1, 2, 3].map((i) => Number((v >> BigInt(32 * i)) & 0xffffffffn));
};
// TensorFlow's seed scrambling (seeds sign-extended to 64 bits).
function seedGenerator(s0, s1) {
  const a = BigInt.asUintN(64, BigInt(s0)), b = BigInt.asUintN(64, BigInt(s1));
  const w = (x, sh) => Number((x >> sh) & 0xffffffffn);
  const mix = philox([w(a, 0n), w(a, 32n), w(b, 0n), w(b, 32n)], [0x3ec8f720, 0x02461e29]);
  return { key: [mix[0], mix[1]], counter: [0, 0, mix[2], mix[3]] };
}
const block = (g, i) => philox(counterAdd(g.counter, i), g.key);
const u32ToFloat = (x) => (x & 0x7fffff) / 8388608;  // exact: (1.m - 1) in float
const u64ToDouble = (hi, lo) => ((hi & 0xfffff) * 4294967296 + lo) / 4503599627370496;
const f = Math.fround;
function boxMuller(x0, x1) {  // float Box-Muller, u1 clamped at 1e-7
  let u1 = u32ToFloat(x0);
  if (u1 < f(1e-7)) u1 = f(1e-7);
  const v1 = f(f(2 * f(Math.PI)) * u32ToFloat(x1));
  const u2 = f(Math.sqrt(f(-2 * f(Math.log(u1)))));
  return [f(f(Math.sin(v1)) * u2), f(f(Math.cos(v1)) * u2)];
}
// Fixed-size distributions: block g -> group g of `per` values.
function fixed(g, n, per, dist) {
  const out = [];
  for (let i = 0; out.length < n; i++) out.push(...dist(block(g, i)));
  return out.slice(0, n);
}
function truncatedNormal(g, n) {
  const out = [];
  for (let grp = 0; out.length < n; grp++) {
    let b = grp * 256, words = [];  // group g streams from block g * 256
    const kept = [];
    while (kept.length < 4) {
      if (words.length < 2) { words = words.concat(block(g, b++)); }
      const [x0, x1] = words.splice(0, 2);
      for (const v of boxMuller(x0, x1)) if (Math.abs(v) < 2 && kept.length < 4) kept.push(v);
    }
    out.push(...kept);
  }
  return out.slice(0, n);
}
const RANDOM_REF = 'JavaScript Philox4x32-10 (checked against Random123 KAT) + TF seed scrambling and sampling rules';
const rnd = (name, op, attrs, inputs, outputs) => cases.push({ ...hand(name, op, attrs, inputs, outputs), reference: RANDOM_REF });
const seed64 = (a, b) => lit('int64', [2], [a, b]);
const seed32 = (a, b) => lit('int32', [2], [a, b]);
const shape32 = (dims) => lit('int32', [dims.length], dims);

{
  const dims = [2, 5];
  rnd('float32_seed_7_17', 'StatelessRandomUniform', { dtype: A.type('float32'), T: A.type('int32'), Tseed: A.type('int64') },
    [shape32(dims), seed64(7, 17)], [lit('float32', dims, fixed(seedGenerator(7, 17), 10, 4, (b) => b.map(u32ToFloat)))]);
  rnd('float64_negative_seed', 'StatelessRandomUniform', { dtype: A.type('float64'), T: A.type('int32'), Tseed: A.type('int64') },
    [shape32([5]), seed64(-3, 123456789)],
    [lit('float64', [5], fixed(seedGenerator(-3, 123456789), 5, 2, (b) => [u64ToDouble(b[0], b[1]), u64ToDouble(b[2], b[3])]))]);
  rnd('float32_seed_11_0', 'StatelessRandomNormal', { dtype: A.type('float32'), T: A.type('int32'), Tseed: A.type('int64') },
    [shape32([7]), seed64(11, 0)], [lit('float32', [7], fixed(seedGenerator(11, 0), 7, 4, (b) => [...boxMuller(b[0], b[1]), ...boxMuller(b[2], b[3])]))]);
  // TensorFlow's tf.random.experimental.stateless_fold_in documentation:
  // tf.random.stateless_normal(shape=[3], seed=[1105988140, 3]) (int32 seed)
  // -> [0.03197195, 0.8979765, 0.13253039].
  cases.push(hand('tf_docs_fold_in_example', 'StatelessRandomNormal', { dtype: A.type('float32'), T: A.type('int32'), Tseed: A.type('int32') },
    [shape32([3]), seed32(1105988140, 3)], [lit('float32', [3], [0.03197195, 0.8979765, 0.13253039])]));
  rnd('float32_2x5', 'StatelessTruncatedNormal', { dtype: A.type('float32'), T: A.type('int32'), Tseed: A.type('int64') },
    [shape32([2, 5]), seed64(3, 4)], [lit('float32', [2, 5], truncatedNormal(seedGenerator(3, 4), 10))]);
  const g = seedGenerator(-3, 5);
  rnd('int32_minus10_to_100', 'StatelessRandomUniformInt', { dtype: A.type('int32'), T: A.type('int32'), Tseed: A.type('int32') },
    [shape32([3, 4]), seed32(-3, 5), lit('int32', [], [-10]), lit('int32', [], [100])],
    [lit('int32', [3, 4], fixed(g, 12, 4, (b) => b.map((x) => (((-10 >>> 0) + (x % 110)) | 0))))]);
  rnd('int64_0_to_1000', 'StatelessRandomUniformInt', { dtype: A.type('int64'), T: A.type('int32'), Tseed: A.type('int64') },
    [shape32([5]), seed64(42, 43), lit('int64', [], [0]), lit('int64', [], [1000])],
    [lit('int64', [5], fixed(seedGenerator(42, 43), 5, 2, (b) => [0, 2].map((i) => Number((BigInt(b[i]) | (BigInt(b[i + 1]) << 32n)) % 1000n))))]);
  rnd('int32_bits', 'StatelessRandomUniformFullInt', { dtype: A.type('int32'), T: A.type('int32'), Tseed: A.type('int64') },
    [shape32([6]), seed64(1, 2)], [lit('int32', [6], fixed(seedGenerator(1, 2), 6, 4, (b) => b.map((x) => x | 0)))]);
  const empty = [0, 3];
  rnd('empty_ignores_range', 'StatelessRandomUniformInt', { dtype: A.type('int32'), T: A.type('int32'), Tseed: A.type('int64') },
    [shape32(empty), seed64(1, 2), lit('int32', [], [5]), lit('int32', [], [5])], [lit('int32', empty, [])]);
}

// --------------------------------------------------------------- Unicode ----
const hex = (bytes) => ({ hex: Buffer.from(bytes).toString('hex') });
const strs = (shape, list) => lit('string', shape, list.map(hex));
const utf8 = (s) => [...Buffer.from(s, 'utf8')];
const TEXT_REF = 'WHATWG TextDecoder/TextEncoder (Node.js): U+FFFD per maximal ill-formed subpart, as ICU';
const text = (name, op, attrs, inputs, outputs) => cases.push({ ...hand(name, op, attrs, inputs, outputs), reference: TEXT_REF });
function decodeRows(rows, encoding) {
  const splits = [0], values = [];
  for (const r of rows) {
    for (const ch of new TextDecoder(encoding).decode(new Uint8Array(r))) values.push(ch.codePointAt(0));
    splits.push(values.length);
  }
  return { splits, values };
}
const utf16be = (cps) => cps.flatMap((c) => {
  const units = c >= 0x10000 ? [0xD800 + ((c - 0x10000) >> 10), 0xDC00 + ((c - 0x10000) & 0x3ff)] : [c];
  return units.flatMap((u) => [u >> 8, u & 0xff]);
});
const utf32be = (cps) => cps.flatMap((c) => [c >>> 24, (c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff]);
const cpsOf = (s) => [...s].map((c) => c.codePointAt(0));
{
  const rows = [utf8('héllo'), [], [0x61, 0xE0, 0x80, 0x80, 0x62], [0xC3, 0x28], utf8('x😀'), [0x78, 0xF0, 0x9F, 0x98]];
  for (const [tsplits, name] of [['int64', 'utf8_ill_formed'], ['int32', 'utf8_int32_splits']]) {
    const { splits, values } = decodeRows(rows, 'utf-8');
    text(name, 'UnicodeDecode', { input_encoding: A.s('UTF-8'), Tsplits: A.type(tsplits) }, [strs([2, 3], rows)],
      [lit(tsplits, [splits.length], splits), lit('int32', [values.length], values)]);
  }
  // Offsets of well-formed text: each code point starts where the previous UTF-8 bytes end.
  const words = ['añb', '日本', '🙂!'];
  const { splits, values } = decodeRows(words.map(utf8), 'utf-8');
  const starts = words.flatMap((w) => { let o = 0; return [...w].map((ch) => { const s = o; o += utf8(ch).length; return s; }); });
  text('utf8_offsets', 'UnicodeDecodeWithOffsets', { input_encoding: A.s('UTF-8') }, [strs([3], words.map(utf8))],
    [lit('int64', [splits.length], splits), lit('int32', [values.length], values), lit('int64', [starts.length], starts)]);
  const u16rows = [[0xD8, 0x3D, 0xDE, 0x00, 0x00, 0x41], [0xDC, 0x00, 0x00, 0x42, 0x01], utf16be(cpsOf('Ωmega'))];
  const d16 = decodeRows(u16rows, 'utf-16be');
  text('utf16be_surrogates', 'UnicodeDecode', { input_encoding: A.s('UTF-16-BE') }, [strs([3], u16rows)],
    [lit('int64', [d16.splits.length], d16.splits), lit('int32', [d16.values.length], d16.values)]);
  // UnicodeEncode: ragged code points -> one string per row.
  const encRows = [cpsOf('Grüße'), [], cpsOf('🙂 ok')];
  const flat = encRows.flat();
  const encSplits = [0];
  for (const r of encRows) encSplits.push(encSplits[encSplits.length - 1] + r.length);
  const encoders = { 'UTF-8': (cps) => utf8(String.fromCodePoint(...cps)), 'UTF-16-BE': utf16be, 'UTF-32-BE': utf32be };
  for (const [enc, fn] of Object.entries(encoders)) {
    text(`rows_${enc.replace(/-/g, '_').toLowerCase()}`, 'UnicodeEncode', { output_encoding: A.s(enc), Tsplits: A.type('int64') },
      [lit('int32', [flat.length], flat), lit('int64', [encSplits.length], encSplits)], [strs([encRows.length], encRows.map(fn))]);
  }
  // Out-of-range values (-5, 0x110000) become U+FFFD under errors='replace'.
  text('replaces_out_of_range', 'UnicodeEncode', { output_encoding: A.s('UTF-8'), Tsplits: A.type('int32') },
    [lit('int32', [4], [0x41, -5, 0x110000, 0x42]), lit('int32', [2], [0, 4])], [strs([1], [utf8('A\uFFFD\uFFFDB')])]);
  // UnicodeTranscode: UTF-8 (with an ill-formed byte) -> UTF-16-BE, shape kept.
  const tin = [utf8('naïve'), [0x61, 0xFF, 0x62], utf8('😀'), []];
  const tout = tin.map((r) => utf16be(cpsOf(new TextDecoder('utf-8').decode(new Uint8Array(r)))));
  text('utf8_to_utf16be', 'UnicodeTranscode', { input_encoding: A.s('UTF-8'), output_encoding: A.s('UTF-16-BE') },
    [strs([2, 2], tin)], [strs([2, 2], tout)]);
  const back = u16rows.map((r) => utf8(new TextDecoder('utf-16be').decode(new Uint8Array(r))));
  text('utf16be_to_utf8', 'UnicodeTranscode', { input_encoding: A.s('UTF-16-BE'), output_encoding: A.s('UTF-8') },
    [strs([3], u16rows)], [strs([3], back)]);
}

// --------------------------------------------------------- UnicodeScript ----
// The Script property as V8's regular expressions know it (\p{Script=...},
// Unicode data of Node's own ICU build), mapped to ICU's UScriptCode numbers
// (uscript.h: COMMON 0, INHERITED 1, ARABIC 2, CYRILLIC 8, GREEK 14, HAN 17,
// HANGUL 18, HEBREW 19, HIRAGANA 20, KATAKANA 22, LATIN 25, THAI 38,
// UNKNOWN 103). Code points outside 0..0x10FFFF are -1 (TensorFlow's
// USCRIPT_INVALID_CODE).
{
  const SCRIPT_CODES = { Common: 0, Inherited: 1, Arabic: 2, Cyrillic: 8, Greek: 14, Han: 17, Hangul: 18, Hebrew: 19,
    Hiragana: 20, Katakana: 22, Latin: 25, Thai: 38, Unknown: 103 };
  const scriptOf = (cp) => {
    if (cp < 0 || cp > 0x10ffff) return -1;
    const ch = String.fromCodePoint(cp);
    for (const [name, code] of Object.entries(SCRIPT_CODES)) {
      if (new RegExp(`^\\p{Script=${name}}$`, 'u').test(ch)) return code;
    }
    throw new Error(`code point ${cp.toString(16)} is in none of the listed scripts`);
  };
  const cps = [0x41, 0x7a, 0x0416, 0x03a9, 0x05d0, 0x0e01, 0x4e2d, 0xd55c, 0x3042, 0x30ab, 0x0627, 0x0030, 0x0020,
    0x0301, 0x0378, 0x1f600, -5, 0x110000];
  const SCRIPT_REF = 'V8 regular expressions \\p{Script=...} (Node.js) mapped to ICU UScriptCode numbers';
  cases.push({ ...hand('mixed_scripts', 'UnicodeScript', {}, [lit('int32', [2, 9], cps)], [lit('int32', [2, 9], cps.map(scriptOf))]),
    reference: SCRIPT_REF });
}

// ------------------------------------------------------------ FFT2D / 3D ----
// tfjs transforms the innermost axis only; other axes go through transposes.
const C64 = { inDtypes: ['complex64'], outDtypes: ['complex64'] };
const cplx = (shape) => tf.complex(randn(shape), randn(shape));
function alongAxis(x, axis, fn) {
  const rank = x.shape.length;
  if (axis === rank - 1) return fn(x);
  const perm = [...Array(rank).keys()];
  [perm[axis], perm[rank - 1]] = [perm[rank - 1], perm[axis]];
  return tf.transpose(fn(tf.transpose(x, perm)), perm);
}
const fftNd = (x, d, fn) => { let y = x; for (let a = x.shape.length - d; a < x.shape.length; a++) y = alongAxis(y, a, fn); return y; };
add('2x4x8', 'FFT2D', { Tcomplex: A.type('complex64') }, [cplx([2, 4, 8])], (x) => fftNd(x, 2, (t) => tf.spectral.fft(t)), C64);
add('3x5', 'FFT2D', { Tcomplex: A.type('complex64') }, [cplx([3, 5])], (x) => fftNd(x, 2, (t) => tf.spectral.fft(t)), C64);
add('4x6', 'IFFT2D', { Tcomplex: A.type('complex64') }, [cplx([4, 6])], (x) => fftNd(x, 2, (t) => tf.spectral.ifft(t)), C64);
add('2x3x4', 'FFT3D', { Tcomplex: A.type('complex64') }, [cplx([2, 3, 4])], (x) => fftNd(x, 3, (t) => tf.spectral.fft(t)), C64);
add('2x2x4', 'IFFT3D', { Tcomplex: A.type('complex64') }, [cplx([2, 2, 4])], (x) => fftNd(x, 3, (t) => tf.spectral.ifft(t)), C64);
add('4x8', 'RFFT2D', { Treal: A.type('float32'), Tcomplex: A.type('complex64') }, [randn([4, 8]), tf.tensor1d([4, 8], 'int32')],
  (x) => alongAxis(tf.spectral.rfft(x), 0, (t) => tf.spectral.fft(t)), { outDtypes: ['complex64'] });
add('2x3x6', 'RFFT2D', { Treal: A.type('float32'), Tcomplex: A.type('complex64') }, [randn([2, 3, 6]), tf.tensor1d([3, 6], 'int32')],
  (x) => alongAxis(tf.spectral.rfft(x), 1, (t) => tf.spectral.fft(t)), { outDtypes: ['complex64'] });
// IRFFT2D of a 4x5 half spectrum with fft_length [4, 8]: inverse along axis 0, then tfjs irfft (length 2 * (5 - 1)).
add('4x5_to_4x8', 'IRFFT2D', { Treal: A.type('float32'), Tcomplex: A.type('complex64') }, [cplx([4, 5]), tf.tensor1d([4, 8], 'int32')],
  (x) => tf.spectral.irfft(alongAxis(x, 0, (t) => tf.spectral.ifft(t))), { inDtypes: ['complex64'] });

// ------------------------------------------------------ V2 random forms ----
// The V2 ops take the scrambled key and counter as uint64 words (low half
// first); StatelessRandomGetKeyCounter(Alg) produce exactly those.
const u64 = (lo, hi) => (BigInt(lo) | (BigInt(hi) << 32n)).toString();
const keyOf = (g) => lit('uint64', [1], [u64(g.key[0], g.key[1])]);
const counterOf = (g) => lit('uint64', [2], [u64(g.counter[0], g.counter[1]), u64(g.counter[2], g.counter[3])]);
{
  const g = seedGenerator(7, 17);
  rnd('seed_7_17', 'StatelessRandomGetKeyCounter', { Tseed: A.type('int64') }, [seed64(7, 17)], [keyOf(g), counterOf(g)]);
  const h = seedGenerator(-5, 99);
  rnd('int32_seed', 'StatelessRandomGetKeyCounterAlg', { Tseed: A.type('int32') }, [seed32(-5, 99)],
    [keyOf(h), counterOf(h), lit('int32', [], [1])]);
  rnd('philox', 'StatelessRandomGetAlg', {}, [], [lit('int32', [], [1])]);
  const alg = lit('int32', [], [1]);
  rnd('float32_seed_7_17', 'StatelessRandomUniformV2', { dtype: A.type('float32'), Tshape: A.type('int32') },
    [shape32([2, 5]), keyOf(g), counterOf(g), alg], [lit('float32', [2, 5], fixed(g, 10, 4, (b) => b.map(u32ToFloat)))]);
  rnd('float32_seed_11_0', 'StatelessRandomNormalV2', { dtype: A.type('float32'), Tshape: A.type('int32') },
    [shape32([7]), keyOf(seedGenerator(11, 0)), counterOf(seedGenerator(11, 0)), alg],
    [lit('float32', [7], fixed(seedGenerator(11, 0), 7, 4, (b) => [...boxMuller(b[0], b[1]), ...boxMuller(b[2], b[3])]))]);
  rnd('float32_2x5', 'StatelessTruncatedNormalV2', { dtype: A.type('float32'), Tshape: A.type('int32') },
    [shape32([2, 5]), keyOf(seedGenerator(3, 4)), counterOf(seedGenerator(3, 4)), alg],
    [lit('float32', [2, 5], truncatedNormal(seedGenerator(3, 4), 10))]);
  rnd('int64_0_to_1000', 'StatelessRandomUniformIntV2', { dtype: A.type('int64'), Tshape: A.type('int32') },
    [shape32([5]), keyOf(seedGenerator(42, 43)), counterOf(seedGenerator(42, 43)), alg, lit('int64', [], [0]), lit('int64', [], [1000])],
    [lit('int64', [5], fixed(seedGenerator(42, 43), 5, 2, (b) => [0, 2].map((i) => Number((BigInt(b[i]) | (BigInt(b[i + 1]) << 32n)) % 1000n))))]);
  rnd('uint64_bits', 'StatelessRandomUniformFullIntV2', { dtype: A.type('uint64'), Tshape: A.type('int32') },
    [shape32([4]), keyOf(seedGenerator(1, 2)), counterOf(seedGenerator(1, 2)), alg],
    [lit('uint64', [4], fixed(seedGenerator(1, 2), 4, 2, (b) => [u64(b[0], b[1]), u64(b[2], b[3])]))]);
}

// ------------------------------------------------- QuantizeV2/Dequantize ----
const QUANT_REF = "TensorFlow's documented QuantizeV2/Dequantize formulas";
const quant = (name, op, attrs, inputs, outputs) => cases.push({ ...hand(name, op, attrs, inputs, outputs), reference: QUANT_REF });
const fscalar = (v) => lit('float32', [], [v]);
{
  // MIN_COMBINED, quint8, [0, 255]: out = trunc((clamp(x) - min) * 255 / (max - min) + 0.5).
  const xs = [0, 1.4, 1.5, 254.6, 300, -3];
  quant('min_combined_quint8', 'QuantizeV2', { T: A.type('quint8'), mode: A.s('MIN_COMBINED') },
    [lit('float32', [6], xs), fscalar(0), fscalar(255)],
    [lit('quint8', [6], xs.map((x) => Math.trunc(Math.min(255, Math.max(0, x)) + 0.5))), fscalar(0), fscalar(255)]);
  // MIN_COMBINED, qint8, [-128, 127]: the same, then minus (range + 1) / 2 = 128.
  const ys = [-128, 0, 3.7, 126.2, -200];
  quant('min_combined_qint8', 'QuantizeV2', { T: A.type('qint8'), mode: A.s('MIN_COMBINED') },
    [lit('float32', [5], ys), fscalar(-128), fscalar(127)],
    [lit('qint8', [5], ys.map((x) => Math.trunc(Math.min(127, Math.max(-128, x)) + 128 + 0.5) - 128)), fscalar(-128), fscalar(127)]);
  // SCALED, qint8, [-2, 127/64]: scale = min(-128 / -2, 127 / (127/64)) = 64;
  // x * 64 lands on k + 0.5 for these inputs, so the round mode decides.
  const zs = [0.5, 1.5, -0.5, 2.5, -2.5, 3].map((k) => k / 64);
  const halfAway = (v) => Math.sign(v) * Math.floor(Math.abs(v) + 0.5);
  const halfEven = (v) => { const r = Math.round(v); return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r; };
  for (const [mode, fn] of [['HALF_AWAY_FROM_ZERO', halfAway], ['HALF_TO_EVEN', halfEven]]) {
    quant(`scaled_qint8_${mode.toLowerCase()}`, 'QuantizeV2', { T: A.type('qint8'), mode: A.s('SCALED'), round_mode: A.s(mode) },
      [lit('float32', [6], zs), fscalar(-2), fscalar(127 / 64)],
      [lit('qint8', [6], zs.map((z) => fn(z * 64) + 0)), fscalar(-2), fscalar(127 / 64)]);
  }
  // Dequantize MIN_COMBINED quint8: min + x * (max - min) / 255.
  quant('min_combined_quint8', 'Dequantize', { T: A.type('quint8'), mode: A.s('MIN_COMBINED'), dtype: A.type('float32') },
    [lit('quint8', [4], [0, 1, 128, 255]), fscalar(-1), fscalar(1)],
    [lit('float32', [4], [0, 1, 128, 255].map((q) => f(-1 + q * 2 / 255)))]);
  // Dequantize SCALED qint8 [-1, 1]: scale = max(-1 / -128, 1 / 127) = 1 / 127.
  quant('scaled_qint8', 'Dequantize', { T: A.type('qint8'), mode: A.s('SCALED'), dtype: A.type('float32') },
    [lit('qint8', [4], [-128, -1, 0, 127]), fscalar(-1), fscalar(1)],
    [lit('float32', [4], [-128, -1, 0, 127].map((q) => f(q / 127)))]);
}

writeCases('random_quant_text.mjs', `${RANDOM_REF}; ${TEXT_REF}; ${TFJS_REFERENCE} (FFT2D/3D)`, cases);
