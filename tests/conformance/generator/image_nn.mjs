// Conformance cases of the image and nn ops added for model coverage:
// Dilation2D, MaxPoolWithArgmax, DepthwiseConv2dNativeBackpropInput,
// Conv3DBackpropInputV2 (references from TensorFlow.js), and ResizeBicubic,
// ResizeArea, ExtractImagePatches, NonMaxSuppressionWithOverlaps, DecodeGif
// (TensorFlow.js lacks them: hand-derived references computed here, in
// JavaScript written from TensorFlow's documented semantics, independently of
// tfhost's C++, each with its derivation in a comment).
//
//   node image_nn.mjs > /tmp/image_nn.json && cp /tmp/image_nn.json ../cases/image_nn.json
//
// Add new cases at the end: inputs come from one seeded stream.
import { tf, A, T, caseBuilder, writeCases, lit, hand, encode } from './case_builder.mjs';

const { cases, randn, randint, i32, add } = caseBuilder(20261201);

// ---- Dilation2D (tf.dilation2d: max over the window of input + filter)
{
  const d2 = (strides, rates, padding) => ({ ...T(), strides: A.li(strides), rates: A.li(rates), padding: A.s(padding) });
  add('valid', 'Dilation2D', d2([1, 1, 1, 1], [1, 1, 1, 1], 'VALID'), [randn([1, 5, 5, 2]), randn([3, 3, 2])],
    (x, f) => tf.dilation2d(x, f, 1, 'valid'));
  add('same_stride2', 'Dilation2D', d2([1, 2, 2, 1], [1, 1, 1, 1], 'SAME'), [randn([2, 6, 7, 3]), randn([2, 3, 3])],
    (x, f) => tf.dilation2d(x, f, [2, 2], 'same'));
  add('same_rate2', 'Dilation2D', d2([1, 1, 1, 1], [1, 2, 2, 1], 'SAME'), [randn([1, 6, 5, 1]), randn([2, 2, 1])],
    (x, f) => tf.dilation2d(x, f, 1, 'same', [2, 2]));
  add('valid_stride_rate', 'Dilation2D', d2([1, 2, 1, 1], [1, 1, 2, 1], 'VALID'), [randn([1, 7, 7, 2]), randn([3, 2, 2])],
    (x, f) => tf.dilation2d(x, f, [2, 1], 'valid', [1, 2]));
}

// ---- MaxPoolWithArgmax (tf.maxPoolWithArgmax; tfjs computes the indices in
// int32, TensorFlow's default Targmax is int64)
{
  const mp = (k, s, padding, includeBatch, targmax = 'int64') => ({
    ...T(), ksize: A.li([1, k[0], k[1], 1]), strides: A.li([1, s[0], s[1], 1]), padding: A.s(padding),
    include_batch_in_index: A.b(includeBatch), Targmax: A.type(targmax),
  });
  const pool = (k, s, pad, inc) => (x) => { const r = tf.maxPoolWithArgmax(x, k, s, pad, inc); return [r.result, r.indexes]; };
  add('valid_2x2', 'MaxPoolWithArgmax', mp([2, 2], [2, 2], 'VALID', false), [randn([2, 4, 4, 3])],
    pool([2, 2], [2, 2], 'valid', false), { outDtypes: ['float32', 'int64'] });
  add('same_3x3_s2_batch_index', 'MaxPoolWithArgmax', mp([3, 3], [2, 2], 'SAME', true), [randn([2, 5, 6, 2])],
    pool([3, 3], [2, 2], 'same', true), { outDtypes: ['float32', 'int64'] });
  add('valid_int32_argmax', 'MaxPoolWithArgmax', mp([2, 3], [1, 2], 'VALID', false, 'int32'), [randn([1, 4, 7, 2])],
    pool([2, 3], [1, 2], 'valid', false), { outDtypes: ['float32', 'int32'] });
}

// ---- DepthwiseConv2dNativeBackpropInput: the gradient of tf.depthwiseConv2d
// with respect to its input, through tfjs's autodiff (its CPU kernel of the
// same name).
{
  const dw = (strides, padding, dilations = [1, 1, 1, 1]) =>
    ({ ...T(), strides: A.li(strides), padding: A.s(padding), dilations: A.li(dilations) });
  const backprop = (xShape, strides, pad, dil) => (sizes, f, dy) => tf.engine().runKernel(
    'DepthwiseConv2dNativeBackpropInput', { dy, filter: f }, { strides, pad, dilations: dil, inputShape: xShape });
  const dwCase = (name, xShape, fShape, strides, pad, dil = [1, 1]) => {
    const f = randn(fShape);
    const y = tf.depthwiseConv2d(tf.zeros(xShape), f, strides, pad, 'NHWC', dil);
    add(name, 'DepthwiseConv2dNativeBackpropInput',
      dw([1, strides[0], strides[1], 1], pad.toUpperCase(), [1, dil[0], dil[1], 1]),
      [i32(xShape), f, randn(y.shape)], backprop(xShape, strides, pad, dil));
  };
  dwCase('same_s2_mult2', [2, 6, 5, 3], [3, 3, 3, 2], [2, 2], 'same');
  dwCase('valid_s1', [1, 5, 5, 2], [2, 2, 2, 1], [1, 1], 'valid');
  // tfjs's kernel ignores dilations (its depthwise gradient rejects them), so
  // dilated cases are covered by the unit test's adjoint identity instead.
  dwCase('valid_s1x2_mult3', [1, 7, 6, 2], [2, 2, 2, 3], [1, 2], 'valid');
}

// ---- Conv3DBackpropInputV2 (tf.conv3dTranspose, filter [kd, kh, kw, in, out])
{
  const c3 = (strides, padding) => ({ ...T(), strides: A.li(strides), padding: A.s(padding) });
  const c3Case = (name, xShape, fShape, strides, pad) => {
    const f = randn(fShape);
    const y = tf.conv3d(tf.zeros(xShape), f, strides, pad);
    add(name, 'Conv3DBackpropInputV2', c3([1, ...strides, 1], pad.toUpperCase()), [i32(xShape), f, randn(y.shape)],
      (sizes, filt, dy) => tf.conv3dTranspose(dy, filt, xShape, strides, pad));
  };
  c3Case('same_s2', [1, 4, 5, 6, 2], [3, 3, 2, 2, 3], [2, 2, 2], 'same');
  c3Case('valid_s1', [2, 3, 4, 4, 1], [2, 2, 2, 1, 2], [1, 1, 1], 'valid');
}

// ============ hand-derived cases (TensorFlow.js lacks these ops) ============
const f32 = Math.fround;
const dataOf = (t) => Array.from(t.dataSync());
const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);
const randFloats = (shape, lo = -1, hi = 1) => dataOf(randn(shape, lo, hi));
const randInts = (shape, lo, hi) => dataOf(randint(shape, lo, hi));

// ---- ResizeBicubic. TensorFlow's resize_bicubic_op.cc (verified): cubic
// convolution weights come from a table of w(i / 1024) and w(i / 1024 + 1),
// i = 0..1024, with a = -0.5 (Keys) when half_pixel_centers, else -0.75;
//   w(t) = ((a + 2) t - (a + 3)) t^2 + 1 (|t| <= 1),  ((a t - 5a) t + 8a) t - 4a (1 < |t| < 2).
// Source coordinate: (o + 0.5) * scale - 0.5 (half_pixel_centers) or o * scale,
// scale = (in - 1) / (out - 1) with align_corners (out > 1), else in / out;
// fractional part rounded (half to even) to the nearest 1/1024 to index the
// table; taps floor - 1 .. floor + 2 clamp to the edge, except with
// half_pixel_centers where outside taps get weight 0 and the rest are
// renormalised. Interpolate along y for each of the 4 x taps, then along x.
// All arithmetic in float32 (Math.fround after every operation), as TF's CPU kernel.
function cubicTable(a) {
  const t = [];
  for (let i = 0; i <= 1024; i++) {
    const x = f32(i / 1024), x1 = f32(x + 1);
    t.push([f32(((a + 2) * x - (a + 3)) * x * x + 1), f32(((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a)]);
  }
  return t;
}
const roundHalfEven = (v) => { const f = Math.floor(v); const d = v - f; return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f; };
const scaleOf = (inSize, outSize, align) => (align && outSize > 1 ? f32((inSize - 1) / (outSize - 1)) : f32(inSize / outSize));
function cubicTaps(table, scale, o, limit, keys) {
  const inF = keys ? f32(f32((o + 0.5) * scale) - 0.5) : f32(o * scale);
  const base = Math.floor(inF);
  const off = roundHalfEven(f32(f32(inF - base) * 1024));
  const w = [table[off][1], table[off][0], table[1024 - off][0], table[1024 - off][1]];
  const idx = [];
  for (let k = 0; k < 4; k++) {
    const want = base - 1 + k;
    idx.push(Math.min(Math.max(want, 0), limit - 1));
    if (keys && idx[k] !== want) w[k] = 0;
  }
  if (keys) {
    const sum = f32(f32(f32(w[0] + w[1]) + w[2]) + w[3]);
    if (Math.abs(sum) >= 1000 * 1.1754943508222875e-38) { const inv = f32(1 / sum); for (let k = 0; k < 4; k++) w[k] = f32(w[k] * inv); }
  }
  return { idx, w };
}
const dot4 = (v, w) => f32(f32(f32(f32(v[0] * w[0]) + f32(v[1] * w[1])) + f32(v[2] * w[2])) + f32(v[3] * w[3]));
function bicubicRef(x, [n, h, w, c], [oh, ow], align, half) {
  const table = cubicTable(half ? -0.5 : -0.75);
  const sy = scaleOf(h, oh, align), sx = scaleOf(w, ow, align);
  const out = [];
  for (let b = 0; b < n; b++) for (let oy = 0; oy < oh; oy++) {
    const ty = cubicTaps(table, sy, oy, h, half);
    for (let ox = 0; ox < ow; ox++) {
      const tx = cubicTaps(table, sx, ox, w, half);
      for (let ch = 0; ch < c; ch++) {
        const col = tx.idx.map((xi) => dot4(ty.idx.map((yi) => f32(x[((b * h + yi) * w + xi) * c + ch])), ty.w));
        out.push(dot4(col, tx.w));
      }
    }
  }
  return out;
}
{
  const bc = (align, half, dtype = 'float32') => ({ T: A.type(dtype), align_corners: A.b(align), half_pixel_centers: A.b(half) });
  const bicubicCase = (name, shape, size, align, half, dtype = 'float32') => {
    const x = dtype === 'uint8' ? randInts(shape, 0, 256) : randFloats(shape);
    cases.push(hand(name, 'ResizeBicubic', bc(align, half, dtype), [lit(dtype, shape, x), lit('int32', [2], size)],
      [lit('float32', [shape[0], size[0], size[1], shape[3]], bicubicRef(x, shape, size, align, half))]));
  };
  bicubicCase('legacy_upsample', [1, 4, 5, 2], [7, 9], false, false);
  bicubicCase('legacy_downsample', [2, 6, 7, 1], [4, 3], false, false);
  bicubicCase('align_corners', [1, 3, 4, 1], [5, 7], true, false);
  bicubicCase('half_pixel_centers_keys', [2, 5, 4, 3], [3, 8], false, true);
  bicubicCase('half_pixel_centers_uint8', [1, 4, 4, 1], [6, 5], false, true, 'uint8');
}

// ---- ResizeArea: each output pixel averages the input area it covers,
// [o * scale, (o + 1) * scale) per axis (scale = in / out, or (in - 1) / (out - 1)
// with align_corners), an input pixel weighted by the length of its overlap
// with that interval; pixels past the edge repeat the edge pixel (TF clamps
// the index). Exact arithmetic in double here; TF sums in float32.
function areaRef(x, [n, h, w, c], [oh, ow], align) {
  const sy = scaleOf(h, oh, align), sx = scaleOf(w, ow, align);
  const spans = (o, s) => {
    const lo = f32(o * s), hi = f32((o + 1) * s), r = [];
    for (let i = Math.floor(lo); i < Math.ceil(hi); i++) r.push([i, Math.min(i + 1, hi) - Math.max(i, lo)]);
    return r;
  };
  const out = [];
  for (let b = 0; b < n; b++) for (let oy = 0; oy < oh; oy++) for (let ox = 0; ox < ow; ox++) for (let ch = 0; ch < c; ch++) {
    let sum = 0;
    for (const [iy, wy] of spans(oy, sy)) for (const [ix, wx] of spans(ox, sx)) {
      const yy = Math.min(Math.max(iy, 0), h - 1), xx = Math.min(Math.max(ix, 0), w - 1);
      sum += wy * wx * x[((b * h + yy) * w + xx) * c + ch];
    }
    out.push(sum / (sy * sx));
  }
  return out;
}
{
  const areaCase = (name, shape, size, align, dtype = 'float32') => {
    const x = dtype === 'int32' ? randInts(shape, -50, 50) : randFloats(shape);
    cases.push(hand(name, 'ResizeArea', { T: A.type(dtype), align_corners: A.b(align) },
      [lit(dtype, shape, x), lit('int32', [2], size)],
      [lit('float32', [shape[0], size[0], size[1], shape[3]], areaRef(x, shape, size, align))]));
  };
  areaCase('downsample_fractional', [1, 6, 5, 2], [4, 3], false);
  areaCase('downsample_by_2', [2, 4, 6, 1], [2, 3], false);
  areaCase('upsample', [1, 3, 2, 3], [5, 4], false);
  areaCase('align_corners', [1, 5, 5, 1], [3, 2], true);
  areaCase('int32_input', [1, 5, 4, 1], [2, 3], false, 'int32');
}

// ---- ExtractImagePatches: patches[b, r, c, (ky * kc + kx) * depth + d] =
// images[b, r * sr + ky * rr - pad_top, c * sc + kx * rc - pad_left, d], 0 in
// padding; output size and SAME padding as a conv with effective window
// (k - 1) * rate + 1: out = ceil(in / s) (SAME, pad_top = floor(total / 2),
// total = max((out - 1) * s + eff - in, 0)) or ceil((in - eff + 1) / s) (VALID).
function patchesRef(x, [n, h, w, d], [kr, kc], [sr, sc], [rr, rc], padding) {
  const dim = (size, k, s, r) => {
    const eff = (k - 1) * r + 1;
    if (padding === 'VALID') return [Math.ceil((size - eff + 1) / s), 0];
    const out = Math.ceil(size / s);
    return [out, Math.floor(Math.max((out - 1) * s + eff - size, 0) / 2)];
  };
  const [oh, pt] = dim(h, kr, sr, rr), [ow, pl] = dim(w, kc, sc, rc);
  const out = [];
  for (let b = 0; b < n; b++) for (let r = 0; r < oh; r++) for (let c = 0; c < ow; c++)
    for (let ky = 0; ky < kr; ky++) for (let kx = 0; kx < kc; kx++) for (let ch = 0; ch < d; ch++) {
      const iy = r * sr + ky * rr - pt, ix = c * sc + kx * rc - pl;
      out.push(iy >= 0 && iy < h && ix >= 0 && ix < w ? x[((b * h + iy) * w + ix) * d + ch] : 0);
    }
  return { shape: [n, oh, ow, kr * kc * d], data: out };
}
{
  const patchCase = (name, shape, k, s, r, padding, dtype = 'float32') => {
    const x = dtype === 'int32' ? randInts(shape, -100, 100) : randFloats(shape);
    const ref = patchesRef(x, shape, k, s, r, padding);
    cases.push(hand(name, 'ExtractImagePatches',
      { T: A.type(dtype), ksizes: A.li([1, ...k, 1]), strides: A.li([1, ...s, 1]), rates: A.li([1, ...r, 1]), padding: A.s(padding) },
      [lit(dtype, shape, x)], [lit(dtype, ref.shape, ref.data)]));
  };
  patchCase('valid_3x3', [1, 5, 6, 2], [3, 3], [1, 1], [1, 1], 'VALID');
  patchCase('same_stride2', [2, 5, 5, 1], [2, 3], [2, 2], [1, 1], 'SAME');
  patchCase('same_rate2', [1, 6, 7, 2], [2, 2], [1, 2], [2, 2], 'SAME');
  patchCase('valid_rate_stride_int32', [1, 7, 7, 1], [2, 2], [2, 3], [3, 2], 'VALID', 'int32');
}

// ---- NonMaxSuppressionWithOverlaps: candidates with score > score_threshold
// by descending score (ties: lower index); one is dropped when its overlap
// with an already selected entry is > overlap_threshold (strictly, as TF's
// kernel compares); at most max_output_size. Overlaps here are the IoU of
// random boxes, so tf.image.nonMaxSuppression (IoU >= threshold, away from
// exact ties) must agree: the generator checks it does.
{
  const iou = (a, b) => {
    const [ay0, ay1] = [Math.min(a[0], a[2]), Math.max(a[0], a[2])], [ax0, ax1] = [Math.min(a[1], a[3]), Math.max(a[1], a[3])];
    const [by0, by1] = [Math.min(b[0], b[2]), Math.max(b[0], b[2])], [bx0, bx1] = [Math.min(b[1], b[3]), Math.max(b[1], b[3])];
    const areaA = (ay1 - ay0) * (ax1 - ax0), areaB = (by1 - by0) * (bx1 - bx0);
    if (areaA <= 0 || areaB <= 0) return 0;
    const inter = Math.max(Math.min(ay1, by1) - Math.max(ay0, by0), 0) * Math.max(Math.min(ax1, bx1) - Math.max(ax0, bx0), 0);
    return inter / (areaA + areaB - inter);
  };
  const greedy = (ov, n, scores, maxOut, thr, scoreThr) => {
    const order = [...Array(n).keys()].filter((i) => scores[i] > scoreThr).sort((i, j) => scores[j] - scores[i] || i - j);
    const sel = [];
    for (const i of order) {
      if (sel.length >= maxOut) break;
      if (sel.every((j) => !(ov[i * n + j] > thr))) sel.push(i);
    }
    return sel;
  };
  const nmsCase = (name, n, maxOut, thr, scoreThr) => {
    const raw = randFloats([n, 4], 0, 1);
    const boxes = [];
    for (let i = 0; i < n; i++) boxes.push(raw.slice(i * 4, i * 4 + 4).map((v, k) => v * 0.6 + (k >= 2 ? 0.3 : 0)));
    const ov = [];
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) ov.push(f32(iou(boxes[i], boxes[j])));
    const scores = randFloats([n], 0, 1);
    const sel = greedy(ov, n, scores, maxOut, thr, scoreThr);
    const viaTfjs = Array.from(tf.image.nonMaxSuppression(tf.tensor2d(boxes.flat(), [n, 4]), tf.tensor1d(scores), maxOut, thr, scoreThr).dataSync());
    if (JSON.stringify(viaTfjs) !== JSON.stringify(sel)) throw new Error(`NMS overlaps case ${name}: tfjs ${viaTfjs} vs ${sel}`);
    cases.push(hand(name, 'NonMaxSuppressionWithOverlaps', {},
      [lit('float32', [n, n], ov), lit('float32', [n], scores), lit('int32', [], [maxOut]), lit('float32', [], [thr]), lit('float32', [], [scoreThr])],
      [lit('int32', [sel.length], sel)]));
  };
  nmsCase('iou_overlaps_12', 12, 12, 0.3, 0.0);
  nmsCase('score_threshold_and_max_output', 16, 4, 0.5, 0.4);
  nmsCase('loose_threshold', 10, 10, 0.8, -1.0);
}

// ---- DecodeGif. GIF files built here byte by byte (GIF89a layout; LZW
// with variable code width starting at min_code_size + 1 bits, LSB-first,
// width growing when the next free code reaches 2^width, up to 12 bits) from
// known colour indices; the expected frames are composited from those
// indices as TensorFlow's gif_io.cc does: the canvas is max frame width x max
// frame height (the logical screen size is ignored), frame k starts as a copy
// of frame k - 1 (frame 0 black), the image rectangle clipped to the canvas is
// painted from the local palette else the global one, the transparent index
// (Graphic Control Extension) keeps what is beneath, disposal is ignored.
function lzwEncode(indices, minBits, deferClear = false) {
  const clear = 1 << minBits, eoi = clear + 1;
  let bits = minBits + 1, next = clear + 2, dict = new Map();
  const codes = [[clear, bits]];
  const reset = () => { bits = minBits + 1; next = clear + 2; dict = new Map(); };
  let w = indices[0];
  for (let i = 1; i < indices.length; i++) {
    const k = indices[i], key = w * 256 + k;
    if (dict.has(key)) { w = dict.get(key); continue; }
    codes.push([w, bits]);
    if (next < 4096) {
      dict.set(key, next++);
      if (next > (1 << bits) && bits < 12) bits++;
    }
    if (next === 4096 && !deferClear) { codes.push([clear, bits]); reset(); }
    w = k;
  }
  codes.push([w, bits]);
  // The decoder adds an entry on reading that last code too, which may widen the end code.
  if (next < 4096) { next++; if (next > (1 << bits) && bits < 12) bits++; }
  codes.push([eoi, bits]);
  const bytes = [];
  let acc = 0, n = 0;
  for (const [code, width] of codes) {
    acc |= code << n; n += width;
    while (n >= 8) { bytes.push(acc & 255); acc >>>= 8; n -= 8; }
  }
  if (n > 0) bytes.push(acc & 255);
  const blocks = [];
  for (let i = 0; i < bytes.length; i += 255) { const chunk = bytes.slice(i, i + 255); blocks.push(chunk.length, ...chunk); }
  blocks.push(0);
  return blocks;
}
const u16 = (v) => [v & 255, v >> 8];
const tableBits = (count) => Math.log2(count) - 1;  // count = 2^(bits + 1)
function gifFile(width, height, globalPalette, frames) {
  const bytes = [...'GIF89a'].map((ch) => ch.charCodeAt(0));
  bytes.push(...u16(width), ...u16(height), 0x80 | tableBits(globalPalette.length / 3), 0, 0, ...globalPalette);
  for (const f of frames) {
    if (f.gce) bytes.push(0x21, 0xF9, 4, (f.gce.disposal << 2) | (f.gce.transparent >= 0 ? 1 : 0), 10, 0, Math.max(f.gce.transparent, 0), 0);
    let flags = f.interlaced ? 0x40 : 0;
    if (f.palette) flags |= 0x80 | tableBits(f.palette.length / 3);
    bytes.push(0x2C, ...u16(f.left), ...u16(f.top), ...u16(f.width), ...u16(f.height), flags);
    if (f.palette) bytes.push(...f.palette);
    let stored = f.indices;
    if (f.interlaced) {  // rows in pass order: from 0 step 8, 4 step 8, 2 step 4, 1 step 2
      stored = [];
      for (const [start, step] of [[0, 8], [4, 8], [2, 4], [1, 2]])
        for (let y = start; y < f.height; y += step) stored.push(...f.indices.slice(y * f.width, (y + 1) * f.width));
    }
    bytes.push(f.minBits, ...lzwEncode(stored, f.minBits, f.deferClear));
  }
  bytes.push(0x3B);
  return bytes;
}
function compositeRef(globalPalette, frames) {
  const width = Math.max(...frames.map((f) => f.width)), height = Math.max(...frames.map((f) => f.height));
  const out = [];
  let prev = new Array(width * height * 3).fill(0);
  for (const f of frames) {
    const cur = prev.slice();
    const pal = f.palette ?? globalPalette, transparent = f.gce ? f.gce.transparent : -1;
    for (let y = f.top; y < Math.min(f.top + f.height, height); y++) for (let x = f.left; x < Math.min(f.left + f.width, width); x++) {
      const idx = f.indices[(y - f.top) * f.width + (x - f.left)];
      if (idx === transparent) continue;
      for (let k = 0; k < 3; k++) cur[(y * width + x) * 3 + k] = pal[idx * 3 + k];
    }
    out.push(...cur);
    prev = cur;
  }
  return out;
}
{
  const palette = (count) => randInts([count * 3], 0, 256);
  const frame = (left, top, width, height, colours, extra = {}) =>
    ({ left, top, width, height, indices: randInts([width * height], 0, colours), minBits: Math.max(2, Math.ceil(Math.log2(colours))), ...extra });
  const hex = (bytes) => bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  const gifCase = (name, width, height, globalPalette, frames) => {
    cases.push(hand(name, 'DecodeGif', {}, [lit('string', [], [{ hex: hex(gifFile(width, height, globalPalette, frames)) }])],
      [lit('uint8', [frames.length, Math.max(...frames.map((f) => f.height)), Math.max(...frames.map((f) => f.width)), 3],
        compositeRef(globalPalette, frames))]));
  };
  gifCase('single_frame_4_colours', 6, 5, palette(4), [frame(0, 0, 6, 5, 4)]);
  // Runs of one colour exercise codes defined by the code being read.
  gifCase('runs_compress', 9, 4, palette(2), [{ left: 0, top: 0, width: 9, height: 4, minBits: 2,
    indices: [...Array(36).keys()].map((i) => (i < 20 ? 1 : 0)) }]);
  gifCase('animation_subrect_transparency_local_palette', 5, 4, palette(8), [
    frame(0, 0, 5, 4, 8, { gce: { disposal: 1, transparent: -1 } }),
    frame(1, 1, 3, 2, 4, { palette: palette(4), gce: { disposal: 2, transparent: 2 } }),
    frame(3, 2, 4, 3, 8),  // extends past the screen: clipped
  ]);
  gifCase('partial_first_frame_transparent', 4, 4, palette(4), [frame(1, 0, 2, 3, 4, { gce: { disposal: 0, transparent: 1 } })]);
  gifCase('interlaced', 3, 11, palette(4), [frame(0, 0, 3, 11, 4, { interlaced: true })]);
  gifCase('table_full_clear_256_colours', 80, 80, palette(256), [frame(0, 0, 80, 80, 256)]);
  gifCase('table_full_deferred_clear', 80, 80, palette(256), [frame(0, 0, 80, 80, 256, { deferClear: true })]);
  // The 8x8 screen is ignored: the canvas is 6 wide (frame 1) by 5 high (frame 0).
  gifCase('canvas_is_largest_frame_no_screen', 8, 8, palette(4), [
    frame(0, 0, 3, 5, 4),
    frame(1, 3, 6, 2, 4, { gce: { disposal: 3, transparent: 0 } }),
  ]);
}

writeCases('image_nn.mjs', 'tfjs-core + tfjs-backend-cpu 4.22.0; hand-derived where noted', cases);
