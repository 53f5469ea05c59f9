// Conformance cases for ops (or op modes) TensorFlow.js does not implement,
// derived by hand from TensorFlow's documented semantics. Each case carries
// its derivation in the comment above it; where TensorFlow's documentation or
// its own unit tests quote values, the source is named. generate.mjs appends
// these to the TensorFlow.js cases; tolerances live in ../tolerances.h.

import { A, lit as t, hand } from './case_builder.mjs';

const f32 = (data, shape) => t('float32', shape ?? [data.length], data);
const i32 = (data, shape) => t('int32', shape ?? [data.length], data);
const i64 = (data, shape) => t('int64', shape ?? [data.length], data);
const str = (data, shape) => t('string', shape ?? [data.length], data);

// 16-bit little-endian PCM WAV bytes as hex.
function wavHex(samples, channels, rate) {
  const le = (v, n) => { let s = ''; for (let i = 0; i < n; i++) s += ((v >>> (8 * i)) & 0xff).toString(16).padStart(2, '0'); return s; };
  const ascii = (s) => Array.from(s, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
  const data = samples.map((v) => le(v & 0xffff, 2)).join('');
  const fmt = ascii('fmt ') + le(16, 4) + le(1, 2) + le(channels, 2) + le(rate, 4) + le(rate * channels * 2, 4) + le(channels * 2, 2) + le(16, 2);
  const body = ascii('WAVE') + fmt + ascii('data') + le(samples.length * 2, 4) + data;
  return ascii('RIFF') + le(body.length / 2, 4) + body;
}

// WAV bytes as hex with a 16-byte fmt chunk of `format` (1 PCM, 3 float),
// `bits` per sample, 16 kHz, and the sample bytes given as hex.
function wavRawHex(format, bits, channels, dataHex) {
  const le = (v, n) => { let s = ''; for (let i = 0; i < n; i++) s += ((v >>> (8 * i)) & 0xff).toString(16).padStart(2, '0'); return s; };
  const ascii = (s) => Array.from(s, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
  const rate = 16000, align = channels * bits / 8;
  const fmt = ascii('fmt ') + le(16, 4) + le(format, 2) + le(channels, 2) + le(rate, 4) + le(rate * align, 4) + le(align, 2) + le(bits, 2);
  const body = ascii('WAVE') + fmt + ascii('data') + le(dataHex.length / 2, 4) + dataHex;
  return ascii('RIFF') + le(body.length / 2, 4) + body;
}

// tf.train.Example wire bytes (hex) from {key: ['int64' | 'float' | 'bytes', values]}:
// Example.features = 1, Features.feature = 1 (map entry: key = 1, value = 2),
// Feature.bytes_list = 1 / float_list = 2 / int64_list = 3, each list's
// values = field 1 (int64 and float packed).
function exampleHex(features) {
  const varint = (n) => { const out = []; let v = BigInt.asUintN(64, BigInt(n)); do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; out.push(b); } while (v); return out; };
  const len = (field, bytes) => [(field << 3) | 2, ...varint(bytes.length), ...bytes];
  const utf8 = (s) => Array.from(new TextEncoder().encode(s));
  const f32le = (x) => { const b = new Uint8Array(new Float32Array([x]).buffer); return Array.from(b); };
  let feats = [];
  for (const [key, [kind, values]] of Object.entries(features)) {
    let list;
    if (kind === 'int64') list = len(3, len(1, values.flatMap(varint)));
    else if (kind === 'float') list = len(2, len(1, values.flatMap(f32le)));
    else list = len(1, values.flatMap((v) => len(1, utf8(v))));
    feats = feats.concat(len(1, [...len(1, utf8(key)), ...len(2, list)]));
  }
  return { hex: len(1, feats).map((b) => b.toString(16).padStart(2, '0')).join('') };
}

export const handCases = [
  // ParseExampleV2 over two Examples: dense "age" int64 [1] (example 1 lacks
  // it -> default 7), dense "emb" float [2], sparse "tags" string (2 then 1
  // values -> indices [[0,0],[0,1],[1,0]], dense_shape [2, 2]).
  hand('dense_sparse_defaults', 'ParseExampleV2', {
    Tdense: A.lt(['int64', 'float32']), num_sparse: A.i(1), sparse_types: A.lt(['string']),
    ragged_value_types: A.lt([]), ragged_split_types: A.lt([]), dense_shapes: A.lshape([[1], [2]]),
  }, [str([exampleHex({ age: ['int64', [42]], emb: ['float', [0.5, -1]], tags: ['bytes', ['a', 'b']] }),
    exampleHex({ emb: ['float', [2, 3]], tags: ['bytes', ['c']] })]), str([], [0]), str(['tags']), str(['age', 'emb']), str([], [0]),
  i64([7]), f32([], [0])],
  [i64([0, 0, 0, 1, 1, 0], [3, 2]), str(['a', 'b', 'c']), i64([2, 2]), i64([42, 7], [2, 1]), f32([0.5, -1, 2, 3], [2, 2])]),
  // ParseSingleExample: scalar input, so no batch dim: sparse indices [N, 1].
  hand('scalar_example', 'ParseSingleExample', {
    num_sparse: A.i(1), sparse_keys: A.ls(['ids']), dense_keys: A.ls(['score']), sparse_types: A.lt(['int64']),
    Tdense: A.lt(['float32']), dense_shapes: A.lshape([[]]),
  }, [str([exampleHex({ ids: ['int64', [5, -3, 9]], score: ['float', [0.25]] })], []), f32([0], [])],
  [i64([0, 1, 2], [3, 1]), i64([5, -3, 9]), i64([3]), f32([0.25], [])]),

  // tf.raw_ops.Bucketize documentation: boundaries [0, 10, 100],
  // input [[-5, 10000], [150, 10], [5, 100]] -> [[0, 3], [3, 2], [1, 3]]
  // (output = number of boundaries <= value).
  hand('doc_example', 'Bucketize', { T: A.type('int32'), boundaries: A.lf([0, 10, 100]) },
    [i32([-5, 10000, 150, 10, 5, 100], [3, 2])], [i32([0, 3, 3, 2, 1, 3], [3, 2])]),
  // A value equal to a boundary goes to the bucket above it: 1.0 -> 2.
  hand('float_on_boundary', 'Bucketize', { T: A.type('float32'), boundaries: A.lf([0, 1]) },
    [f32([-0.5, 0, 0.5, 1, 7])], [i32([0, 1, 1, 2, 2])]),

  // tf.strings.to_hash_bucket_strong documentation:
  // to_hash_bucket_strong(["Hello", "TF"], 3, [1, 2]) -> [2, 0].
  hand('doc_example', 'StringToHashBucketStrong', { num_buckets: A.i(3), key: A.li([1, 2]) },
    [str(['Hello', 'TF'])], [i64([2, 0])]),

  // tf.strings.to_hash_bucket documentation (deprecated op, TensorFlow's
  // Hash64 = MurmurHash64A seeded 0xDECAFCAFFE):
  // to_hash_bucket(["Hello", "TensorFlow", "2.x"], 3) -> [2, 0, 1].
  hand('doc_example', 'StringToHashBucket', { num_buckets: A.i(3) },
    [str(['Hello', 'TensorFlow', '2.x'])], [i64([2, 0, 1])]),

  // DecodeCSV: record 0 has every field; record 1 is empty fields -> the
  // defaults; a quoted field keeps its comma, "" is one quote.
  hand('defaults_and_quotes', 'DecodeCSV', { OUT_TYPE: A.lt(['int32', 'float32', 'string', 'int64']) },
    [str(['7,2.5,"a,""b""",-3', ',,,']), i32([-1]), f32([0.25]), str(['none']), i64([9])],
    [i32([7, -1]), f32([2.5, 0.25]), str(['a,"b"', 'none']), i64([-3, 9])]),
  // select_cols [0, 2] with na_value "?": "?" takes the default.
  hand('select_cols_na_value', 'DecodeCSV', { OUT_TYPE: A.lt(['float32', 'float32']), select_cols: A.li([0, 2]), na_value: A.s('?') },
    [str(['1,x,?', '?,y,4']), f32([-1]), f32([-2])], [f32([1, -1]), f32([-2, 4])]),

  // SparseSegmentSqrtN: data rows r0 = [1, 2], r1 = [3, 4], r2 = [5, 6];
  // segment 0 = r0 + r2 = [6, 8] / sqrt(2); segment 1 empty = 0; segment 2 =
  // r1 + r1 + r1 = [9, 12] / sqrt(3).
  hand('with_gap', 'SparseSegmentSqrtN', { T: A.type('float32') },
    [f32([1, 2, 3, 4, 5, 6], [3, 2]), i32([0, 2, 1, 1, 1]), i32([0, 0, 2, 2, 2])],
    [f32([6 / Math.SQRT2, 8 / Math.SQRT2, 0, 0, 9 / Math.sqrt(3), 12 / Math.sqrt(3)], [3, 2])]),

  // SparseTensorDenseMatMul: A = [[0, 2, 0], [1, 0, 3]] with (1, 2) given as
  // two duplicate entries 1 + 2 (they add); B = [[1, 2], [3, 4], [5, 6]]:
  // row 0 = 2 * [3, 4] = [6, 8]; row 1 = [1, 2] + 3 * [5, 6] = [16, 20].
  hand('duplicates_add', 'SparseTensorDenseMatMul', { T: A.type('float32'), Tindices: A.type('int64') },
    [i64([0, 1, 1, 0, 1, 2, 1, 2], [4, 2]), f32([2, 1, 1, 2]), i64([2, 3]), f32([1, 2, 3, 4, 5, 6], [3, 2])],
    [f32([6, 8, 16, 20], [2, 2])]),
  // adjoint_a: A^T = [[0, 1], [2, 0], [0, 3]] times B = [[1, 2], [3, 4]]
  // -> [[3, 4], [2, 4], [9, 12]].
  hand('adjoint_a', 'SparseTensorDenseMatMul', { T: A.type('float32'), Tindices: A.type('int64'), adjoint_a: A.b(true) },
    [i64([0, 1, 1, 0, 1, 2], [3, 2]), f32([2, 1, 3]), i64([2, 3]), f32([1, 2, 3, 4], [2, 2])],
    [f32([3, 4, 2, 4, 9, 12], [3, 2])]),

  // NonMaxSuppressionV4 pads to max_output_size even past the box count
  // (TensorFlow; TensorFlow.js stops at the box count): TensorFlow's
  // "SelectFromThreeClusters" boxes select [3, 0, 5]; padded to 8 with 0.
  hand('pad_past_box_count', 'NonMaxSuppressionV4', { T: A.type('float32'), T_threshold: A.type('float32'), pad_to_max_output_size: A.b(true) },
    [f32([0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101], [6, 4]),
      f32([0.9, 0.75, 0.6, 0.95, 0.5, 0.3]), i32([8], []), f32([0.5], []), f32([0], [])],
    [i32([3, 0, 5, 0, 0, 0, 0, 0]), i32([3], [])]),

  // Soft-NMS (V5): box 1 = left half of box 0, IoU 0.5. sigma 0.5 scales
  // box 1's 0.8 by exp(-0.5 * 0.5^2 / 0.5) = exp(-0.25); iou_threshold 1
  // disables hard suppression, so both are selected: scores [0.9, 0.8 e^-0.25].
  hand('soft_decay', 'NonMaxSuppressionV5', { T: A.type('float32') },
    [f32([0, 0, 1, 1, 0, 0, 1, 0.5], [2, 4]), f32([0.9, 0.8]), i32([2], []), f32([1], []), f32([0], []), f32([0.5], [])],
    [i32([0, 1]), f32([0.9, 0.8 * Math.exp(-0.25)]), i32([2], [])]),

  // CombinedNonMaxSuppression, one image, three boxes shared by two classes
  // (q = 1), iou 0.5, score threshold 0.2, 2 per class, 4 in total:
  // class 0: box 0 (0.9) suppresses box 1 (0.8, IoU 0.95 / 1.05); box 2 (0.05)
  // is under the threshold. class 1: box 1 (0.7) and box 2 (0.6) overlap by
  // IoU 0.275 / 1.725 and both stay; box 0 (0.1) is under. Sorted by score:
  // 0.9 (c0, b0), 0.7 (c1, b1), 0.6 (c1, b2), then zero padding; boxes are
  // clipped to [0, 1].
  hand('per_class_then_top_k', 'CombinedNonMaxSuppression', {},
    [f32([0, 0, 1, 1, 0, 0.05, 1, 1.05, 0.5, 0.5, 1.5, 1.5], [1, 3, 1, 4]), f32([0.9, 0.1, 0.8, 0.7, 0.05, 0.6], [1, 3, 2]),
      i32([2], []), i32([4], []), f32([0.5], []), f32([0.2], [])],
    [f32([0, 0, 1, 1, 0, 0.05, 1, 1, 0.5, 0.5, 1, 1, 0, 0, 0, 0], [1, 4, 4]), f32([0.9, 0.7, 0.6, 0], [1, 4]),
      f32([0, 1, 1, 0], [1, 4]), i32([3])]),

  // DecodeWav: mono 16-bit PCM [0, 16384, -32768, 32767] at 16 kHz -> value /
  // 32768, shape [4, 1].
  hand('mono_pcm16', 'DecodeWav', {}, [str([{ hex: wavHex([0, 16384, -32768, 32767], 1, 16000) }], [])],
    [f32([0, 0.5, -1, 32767 / 32768], [4, 1]), i32([16000], [])]),
  // desired_channels 2 duplicates mono; desired_samples 3 zero-pads.
  hand('upmix_and_pad', 'DecodeWav', { desired_channels: A.i(2), desired_samples: A.i(3) },
    [str([{ hex: wavHex([16384, -16384], 1, 8000) }], [])], [f32([0.5, 0.5, -0.5, -0.5, 0, 0], [3, 2]), i32([8000], [])]),

  // DecodeWav beyond 16-bit (tfhost reads more than TensorFlow's 16-bit
  // PCM): 8-bit PCM is unsigned, (v - 128) / 128: [0, 128, 192, 255] ->
  // [-1, 0, 0.5, 127/128].
  hand('pcm8_unsigned', 'DecodeWav', {}, [str([{ hex: wavRawHex(1, 8, 1, '0080c0ff') }], [])],
    [f32([-1, 0, 0.5, 127 / 128], [4, 1]), i32([16000], [])]),
  // 24-bit PCM little-endian signed, v / 2^23: 0x400000 -> 0.5, 0x800000 ->
  // -1, 0xc00000 -> -0.5, 0x000001 -> 2^-23; stereo -> [2, 2].
  hand('pcm24_stereo', 'DecodeWav', {}, [str([{ hex: wavRawHex(1, 24, 2, '000040' + '000080' + '0000c0' + '010000') }], [])],
    [f32([0.5, -1, -0.5, 1 / 8388608], [2, 2]), i32([16000], [])]),
  // 32-bit PCM, v / 2^31: 0x40000000 -> 0.5, 0xe0000000 -> -0.25.
  hand('pcm32', 'DecodeWav', {}, [str([{ hex: wavRawHex(1, 32, 1, '00000040' + '000000e0') }], [])],
    [f32([0.5, -0.25], [2, 1]), i32([16000], [])]),
  // IEEE float 32 (format 3) as is: 0x3e800000 = 0.25, 0xbfc00000 = -1.5.
  hand('float32', 'DecodeWav', {}, [str([{ hex: wavRawHex(3, 32, 1, '0000803e' + '0000c0bf') }], [])],
    [f32([0.25, -1.5], [2, 1]), i32([16000], [])]),
  // EncodeWav: TensorFlow's 44-byte 16-bit PCM header (RIFF size 36 + data,
  // fmt 16 bytes: PCM, channels, rate, rate*channels*2, channels*2, 16) and
  // samples round(x * 32768) clamped to int16: 0.5 -> 16384 = 0x4000, -1.5 ->
  // -32768 = 0x8000, 1 -> 32767 = 0x7fff, -0.25 -> -8192 = 0xe000.
  hand('stereo_clamped', 'EncodeWav', {}, [f32([0.5, -1.5, 1, -0.25], [2, 2]), i32([8000], [])],
    [str([{ hex: wavHex([16384, -32768, 32767, -8192], 2, 8000) }], [])]),

  // SparseCross / SparseCrossHashed: values TensorFlow's own
  // sparse_cross_op_test.py pins "to prevent unintentional hashing changes":
  // three 1x1 string columns 'batch1-FC{1,2,3}-F1' crossed with hash_key
  // 0xDECAFCAFFE (Python's _DEFAULT_HASH_KEY) into 100 buckets -> 83, with
  // the key + 1 -> 31; SparseCrossHashed (no key, strong_hash false) -> 79.
  // Output indices [[0, 0]], dense shape [1, 1].
  ...[[0xDECAFCAFFE, 83, 'default_key'], [0xDECAFCAFFE + 1, 31, 'key_plus_one']].map(([key, want, name]) =>
    hand(`hashed_100_buckets_${name}`, 'SparseCross', {
      N: A.i(3), hashed_output: A.b(true), num_buckets: A.i(100), hash_key: A.i(key), sparse_types: A.lt(['string', 'string', 'string']),
      dense_types: A.lt([]), out_type: A.type('int64'), internal_type: A.type('string'),
    }, [i64([0, 0], [1, 2]), i64([0, 0], [1, 2]), i64([0, 0], [1, 2]), str(['batch1-FC1-F1']), str(['batch1-FC2-F1']), str(['batch1-FC3-F1']),
      i64([1, 1]), i64([1, 1]), i64([1, 1])], [i64([0, 0], [1, 2]), i64([want]), i64([1, 1])])),
  hand('tf_pinned_100_buckets', 'SparseCrossHashed', { N: A.i(3), sparse_types: A.lt(['string', 'string', 'string']), dense_types: A.lt([]) },
    [i64([0, 0], [1, 2]), i64([0, 0], [1, 2]), i64([0, 0], [1, 2]), str(['batch1-FC1-F1']), str(['batch1-FC2-F1']), str(['batch1-FC3-F1']),
      i64([1, 1]), i64([1, 1]), i64([1, 1]), i64([100], []), t('bool', [], [false]), i64([137, 173])],
    [i64([0, 0], [1, 2]), i64([79]), i64([1, 1])]),
  // String crosses (tf.raw_ops.SparseCross docs / test_permutation_3x1x2):
  // per row every combination, last column fastest, joined by "_X_"; row 1
  // has no feature in column 0, so it gets no crosses; dense columns come
  // after the sparse ones. Dense shape [2, max crosses per row = 4].
  hand('strings_last_column_fastest', 'SparseCross', {
    N: A.i(2), hashed_output: A.b(false), num_buckets: A.i(0), hash_key: A.i(0), sparse_types: A.lt(['string', 'int64']),
    dense_types: A.lt(['string']), out_type: A.type('string'), internal_type: A.type('int64'),
  }, [i64([0, 0, 0, 1], [2, 2]), i64([0, 0, 1, 0], [2, 2]), str(['a', 'b']), i64([7, 8]), i64([2, 2]), i64([2, 1]),
    str(['x', 'y', 'z', 'w'], [2, 2])],
  [i64([0, 0, 0, 1, 0, 2, 0, 3], [4, 2]), str(['a_X_7_X_x', 'a_X_7_X_y', 'b_X_7_X_x', 'b_X_7_X_y']), i64([2, 4])]),
  // SparseCrossV2: the same with its `sep` input.
  hand('sep_input', 'SparseCrossV2', { N: A.i(1), sparse_types: A.lt(['int64']), dense_types: A.lt(['string']) },
    [i64([0, 0, 1, 0, 1, 1], [3, 2]), i64([11, 333, 55555]), i64([2, 2]), str(['p', 'q'], [2, 1]), str(['|'], [])],
    [i64([0, 0, 1, 0, 1, 1], [3, 2]), str(['11|p', '333|q', '55555|q']), i64([2, 2])]),

  // Roll (tf.roll documentation): roll([0, 1, 2, 3, 4], 2, 0) -> [3, 4, 0, 1, 2];
  // roll([[0..4], [5..9]], [1, -2], [0, 1]) -> [[7, 8, 9, 5, 6], [2, 3, 4, 0, 1]].
  hand('doc_1d', 'Roll', { T: A.type('int32'), Tshift: A.type('int32'), Taxis: A.type('int32') },
    [i32([0, 1, 2, 3, 4]), i32([2], []), i32([0], [])], [i32([3, 4, 0, 1, 2])]),
  hand('doc_2d_two_axes', 'Roll', { T: A.type('float32'), Tshift: A.type('int32'), Taxis: A.type('int32') },
    [f32([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [2, 5]), i32([1, -2]), i32([0, 1])], [f32([7, 8, 9, 5, 6, 2, 3, 4, 0, 1], [2, 5])]),
  // ReverseSequence (tf.reverse_sequence documentation pattern): per batch row
  // b the first seq_lengths[b] entries along seq_dim reversed, the rest kept.
  // x = [[1..4], [5..8], [9..12]], lengths [3, 0, 4], seq_dim 1 ->
  // [[3, 2, 1, 4], [5, 6, 7, 8], [12, 11, 10, 9]].
  hand('batch_major', 'ReverseSequence', { T: A.type('float32'), Tlen: A.type('int64'), seq_dim: A.i(1), batch_dim: A.i(0) },
    [f32([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [3, 4]), i64([3, 0, 4])], [f32([3, 2, 1, 4, 5, 6, 7, 8, 12, 11, 10, 9], [3, 4])]),
  // Time-major [T=3, B=2] (seq_dim 0, batch_dim 1), lengths [2, 3]:
  // column 0 [1, 2, 3] -> [2, 1, 3]; column 1 [10, 20, 30] -> [30, 20, 10].
  hand('time_major', 'ReverseSequence', { T: A.type('int32'), Tlen: A.type('int32'), seq_dim: A.i(0), batch_dim: A.i(1) },
    [i32([1, 10, 2, 20, 3, 30], [3, 2]), i32([2, 3])], [i32([2, 30, 1, 20, 3, 10], [3, 2])]),
  // Segment ops (tf.math.segment_* documentation): c = [[1,2,3,4],[4,3,2,1],
  // [5,6,7,8]], ids [0, 0, 1] -> sum [[5,5,5,5],[5,6,7,8]], max
  // [[4,3,3,4],[5,6,7,8]], min [[1,2,2,1],[5,6,7,8]], prod [[4,6,6,4],[5,6,7,8]],
  // mean [[2.5,2.5,2.5,2.5],[5,6,7,8]].
  ...[['SegmentSum', [5, 5, 5, 5, 5, 6, 7, 8]], ['SegmentMax', [4, 3, 3, 4, 5, 6, 7, 8]], ['SegmentMin', [1, 2, 2, 1, 5, 6, 7, 8]],
    ['SegmentProd', [4, 6, 6, 4, 5, 6, 7, 8]], ['SegmentMean', [2.5, 2.5, 2.5, 2.5, 5, 6, 7, 8]]].map(([op, want]) =>
    hand('doc_example', op, { T: A.type('float32'), Tindices: A.type('int32') },
      [f32([1, 2, 3, 4, 4, 3, 2, 1, 5, 6, 7, 8], [3, 4]), i32([0, 0, 1])], [f32(want, [2, 4])])),
  // A gap in sorted ids: segment 1 has no entries -> 0 (documented for the
  // sorted ops, Max included).
  hand('empty_segment_is_zero', 'SegmentMax', { T: A.type('int32'), Tindices: A.type('int64') },
    [i32([-3, 4]), i64([0, 2])], [i32([-3, 0, 4])]),
  // Unsorted: ids [2, 0, -1] over 3 segments; -1 is dropped, segment 1 empty:
  // Max -> lowest int32, Min -> highest, Prod -> 1.
  hand('empty_is_lowest', 'UnsortedSegmentMax', { T: A.type('int32'), Tindices: A.type('int32'), Tnumsegments: A.type('int32') },
    [i32([7, 9, 100]), i32([2, 0, -1]), i32([3], [])], [i32([9, -2147483648, 7])]),
  hand('empty_is_highest', 'UnsortedSegmentMin', { T: A.type('int32'), Tindices: A.type('int32'), Tnumsegments: A.type('int32') },
    [i32([7, 9, 100]), i32([2, 0, -1]), i32([3], [])], [i32([9, 2147483647, 7])]),
  hand('empty_is_one', 'UnsortedSegmentProd', { T: A.type('float32'), Tindices: A.type('int32'), Tnumsegments: A.type('int32') },
    [f32([2, 3, 4]), i32([2, 2, 0]), i32([3], [])], [f32([4, 1, 6])]),
  // TensorScatterAdd/Sub/Min/Max (tf.tensor_scatter_nd_* docs): ones(8),
  // indices [[4],[3],[1],[7]], updates [9, 10, 11, 12].
  ...[['TensorScatterAdd', [1, 12, 1, 11, 10, 1, 1, 13]], ['TensorScatterSub', [1, -10, 1, -9, -8, 1, 1, -11]],
    ['TensorScatterMax', [1, 11, 1, 10, 9, 1, 1, 12]], ['TensorScatterMin', [1, 1, 1, 1, 1, 1, 1, 1]]].map(([op, want]) =>
    hand('doc_example', op, { T: A.type('float32'), Tindices: A.type('int32') },
      [f32([1, 1, 1, 1, 1, 1, 1, 1]), i32([4, 3, 1, 7], [4, 1]), f32([9, 10, 11, 12])], [f32(want)])),
  // CheckNumerics passes finite values through unchanged.
  hand('finite_passes', 'CheckNumerics', { T: A.type('float32'), message: A.s('m') }, [f32([1, -2.5, 0])], [f32([1, -2.5, 0])]),
  // Bitcast int32 -> uint8 (little-endian bytes): 258 = 0x00000102 -> [2, 1, 0, 0],
  // -1 -> [255, 255, 255, 255]; shape [2] -> [2, 4].
  hand('int32_to_uint8', 'Bitcast', { T: A.type('int32'), type: A.type('uint8') }, [i32([258, -1])],
    [t('uint8', [2, 4], [2, 1, 0, 0, 255, 255, 255, 255])]),

  // EncodeBase64 / DecodeBase64: RFC 4648 vectors in TensorFlow's web-safe
  // alphabet ('-', '_'); "foob" -> "Zm9vYg" ("Zm9vYg==" with pad), bytes
  // fb ff -> "-_8".
  hand('rfc4648_unpadded', 'EncodeBase64', { pad: A.b(false) }, [str(['', 'f', 'foob', 'foobar', { hex: 'fbff' }])],
    [str(['', 'Zg', 'Zm9vYg', 'Zm9vYmFy', '-_8'])]),
  hand('rfc4648_padded', 'EncodeBase64', { pad: A.b(true) }, [str(['f', 'fo', 'foo'])], [str(['Zg==', 'Zm8=', 'Zm9v'])]),
  hand('padded_or_not', 'DecodeBase64', {}, [str(['Zm9vYg==', 'Zm9vYg', '-_8'])], [str(['foob', 'foob', { hex: 'fbff' }])]),
  // StringStrip: leading/trailing whitespace.
  hand('whitespace', 'StringStrip', {}, [str([' \ta b\n', '', 'x'])], [str(['a b', '', 'x'])]),
  // ReduceJoin (tf.strings.reduce_join docs): [['a','b'],['c','d']] over
  // axis 0 -> ['ac', 'bd']; over [0, 1] -> 'acbd' (the first axis listed
  // varies fastest); [1, 0] with separator '-' -> 'a-b-c-d'.
  hand('axis_0', 'ReduceJoin', { keep_dims: A.b(false), separator: A.s('') }, [str(['a', 'b', 'c', 'd'], [2, 2]), i32([0], [])],
    [str(['ac', 'bd'])]),
  hand('axes_0_1', 'ReduceJoin', { keep_dims: A.b(false), separator: A.s('') }, [str(['a', 'b', 'c', 'd'], [2, 2]), i32([0, 1])],
    [str(['acbd'], [])]),
  hand('axes_1_0_keep_dims_sep', 'ReduceJoin', { keep_dims: A.b(true), separator: A.s('-') },
    [str(['a', 'b', 'c', 'd'], [2, 2]), i32([1, 0])], [str(['a-b-c-d'], [1, 1])]),

  // StringFormat (tf.strings.format docs style): each placeholder replaced by
  // the tensor rendered numpy-like, rows on new lines indented by one space,
  // strings quoted: [[1, 2], [3, 4]] -> "[[1 2]\n [3 4]]".
  hand('matrix_and_string', 'StringFormat', { T: A.lt(['int32', 'string']), template: A.s('x={} s={}'), placeholder: A.s('{}'),
    summarize: A.i(3) }, [i32([1, 2, 3, 4], [2, 2]), str(['hi'], [])], [str(['x=[[1 2]\n [3 4]] s="hi"'], [])]),
  // summarize 2 keeps the first and last 2 entries of a long dim.
  hand('summarized', 'StringFormat', { T: A.lt(['int32']), template: A.s('%s'), placeholder: A.s('%s'), summarize: A.i(2) },
    [i32([0, 1, 2, 3, 4, 5])], [str(['[0 1 ... 4 5]'], [])]),

  // Bitwise ops on two's complement int32: 12 | 10 = 14, -1 | 6 = -1, 5 | 3 = 7;
  // 12 ^ 10 = 6, -1 ^ 6 = -7, 5 ^ 3 = 6. Shifts clamp the count to [0, 31]:
  // 3 << 1 = 6, 1 << min(40, 31) = -2^31, 7 << max(-3, 0) = 7; -8 >> 1 = -4
  // (arithmetic), -8 >> 31 = -1.
  hand('int32', 'BitwiseOr', { T: A.type('int32') }, [i32([12, -1, 5]), i32([10, 6, 3])], [i32([14, -1, 7])]),
  hand('int32', 'BitwiseXor', { T: A.type('int32') }, [i32([12, -1, 5]), i32([10, 6, 3])], [i32([6, -7, 6])]),
  hand('clamped_counts', 'LeftShift', { T: A.type('int32') }, [i32([3, 1, 7]), i32([1, 40, -3])], [i32([6, -2147483648, 7])]),
  hand('arithmetic', 'RightShift', { T: A.type('int32') }, [i32([-8, -8, 9]), i32([1, 99, 0])], [i32([-4, -1, 9])]),

  // Matrix diagonals: the examples of TensorFlow's MatrixDiagV3 /
  // MatrixDiagPartV3 / MatrixSetDiagV3 documentation (default align
  // RIGHT_LEFT: superdiagonals right-aligned, subdiagonals left-aligned).
  hand('doc_main_diagonal', 'MatrixDiagV3', { T: A.type('int32'), align: A.s('RIGHT_LEFT') },
    [i32([1, 2, 3, 4, 5, 6, 7, 8], [2, 4]), i32([0], []), i32([-1], []), i32([-1], []), i32([0], [])],
    [i32([1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 5, 0, 0, 0, 0, 6, 0, 0, 0, 0, 7, 0, 0, 0, 0, 8], [2, 4, 4])]),
  hand('doc_superdiagonal', 'MatrixDiagV3', { T: A.type('int32'), align: A.s('RIGHT_LEFT') },
    [i32([1, 2, 3, 4, 5, 6], [2, 3]), i32([1], []), i32([-1], []), i32([-1], []), i32([0], [])],
    [i32([0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6, 0, 0, 0, 0], [2, 4, 4])]),
  hand('doc_tridiagonal_band', 'MatrixDiagV3', { T: A.type('int32'), align: A.s('RIGHT_LEFT') },
    [i32([0, 8, 9, 1, 2, 3, 4, 5, 0, 0, 2, 3, 6, 7, 9, 9, 1, 0], [2, 3, 3]), i32([-1, 1]), i32([-1], []), i32([-1], []), i32([0], [])],
    [i32([1, 8, 0, 4, 2, 9, 0, 5, 3, 6, 2, 0, 9, 7, 3, 0, 1, 9], [2, 3, 3])]),
  hand('doc_left_right_band', 'MatrixDiagV3', { T: A.type('int32'), align: A.s('LEFT_RIGHT') },
    [i32([8, 9, 0, 1, 2, 3, 0, 4, 5, 2, 3, 0, 6, 7, 9, 0, 9, 1], [2, 3, 3]), i32([-1, 1]), i32([-1], []), i32([-1], []), i32([0], [])],
    [i32([1, 8, 0, 4, 2, 9, 0, 5, 3, 6, 2, 0, 9, 7, 3, 0, 1, 9], [2, 3, 3])]),
  hand('doc_rectangular_padded', 'MatrixDiagV3', { T: A.type('int32'), align: A.s('RIGHT_LEFT') },
    [i32([1, 2]), i32([-1], []), i32([3], []), i32([4], []), i32([9], [])],
    [i32([9, 9, 9, 9, 1, 9, 9, 9, 9, 2, 9, 9], [3, 4])]),
  hand('doc_main', 'MatrixDiagPartV3', { T: A.type('int32'), align: A.s('RIGHT_LEFT') },
    [i32([1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8], [2, 3, 4]), i32([0], []), i32([0], [])],
    [i32([1, 6, 7, 5, 2, 7], [2, 3])]),
  hand('doc_band_minus1_2', 'MatrixDiagPartV3', { T: A.type('int32'), align: A.s('RIGHT_LEFT') },
    [i32([1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8], [2, 3, 4]), i32([-1, 2]), i32([0], [])],
    [i32([0, 3, 8, 2, 7, 6, 1, 6, 7, 5, 8, 0, 0, 3, 4, 4, 3, 8, 5, 2, 7, 1, 6, 0], [2, 4, 3])]),
  hand('doc_band_1_3_padded', 'MatrixDiagPartV3', { T: A.type('int32'), align: A.s('RIGHT_LEFT') },
    [i32([1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8], [2, 3, 4]), i32([1, 3]), i32([9], [])],
    [i32([9, 9, 4, 9, 3, 8, 2, 7, 6, 9, 9, 2, 9, 3, 4, 4, 3, 8], [2, 3, 3])]),
  hand('doc_main', 'MatrixSetDiagV3', { T: A.type('int32'), align: A.s('RIGHT_LEFT') },
    [i32(Array(24).fill(7), [2, 3, 4]), i32([1, 2, 3, 4, 5, 6], [2, 3]), i32([0], [])],
    [i32([1, 7, 7, 7, 7, 2, 7, 7, 7, 7, 3, 7, 4, 7, 7, 7, 7, 5, 7, 7, 7, 7, 6, 7], [2, 3, 4])]),
  // V1 forms: main diagonal only.
  hand('square', 'MatrixDiag', { T: A.type('float32') }, [f32([1, 2])], [f32([1, 0, 0, 2], [2, 2])]),
  hand('rectangular', 'MatrixDiagPart', { T: A.type('float32') }, [f32([1, 2, 3, 4, 5, 6], [2, 3])], [f32([1, 5])]),

  // ListDiff (tf.setdiff1d documentation): x = [1, 2, 3, 4, 5, 6],
  // y = [1, 3, 5] -> out [2, 4, 6], idx [1, 3, 5].
  hand('doc_example', 'ListDiff', { T: A.type('int32'), out_idx: A.type('int32') }, [i32([1, 2, 3, 4, 5, 6]), i32([1, 3, 5])],
    [i32([2, 4, 6]), i32([1, 3, 5])]),
  // Reverse (TF1, bool dims): [[0, 1, 2], [3, 4, 5]] with [false, true] ->
  // [[2, 1, 0], [5, 4, 3]].
  hand('bool_dims', 'Reverse', { T: A.type('float32') }, [f32([0, 1, 2, 3, 4, 5], [2, 3]), t('bool', [2], [false, true])],
    [f32([2, 1, 0, 5, 4, 3], [2, 3])]),

  // FakeQuant (TensorFlow's nudging, computed in float32): narrow_range on
  // [-1, 1] with 8 bits has levels 1..255, scale 2/254, zero point 128, so the
  // range stays [-1, 1]: -3 -> -1, 1 -> 1, 0.003 (0.38 step) -> 0, 0.5 (63.5
  // steps) -> 64 * 2/254. Per channel [0, 1] and [0, 10] (zero point 0,
  // scales 1/255 and 10/255): 5 -> 1 and level floor(127.5 + 0.5) = 128 ->
  // 1280/255.
  hand('narrow_range', 'FakeQuantWithMinMaxArgs', { min: A.f(-1), max: A.f(1), num_bits: A.i(8), narrow_range: A.b(true) },
    [f32([-3, 1, 0.003, 0.5])], [f32([-1, 1, 0, 64 * 2 / 254])]),
  hand('per_channel', 'FakeQuantWithMinMaxVarsPerChannel', { num_bits: A.i(8), narrow_range: A.b(false) },
    [f32([5, 5], [1, 2]), f32([0, 0]), f32([1, 10])], [f32([1, 1280 / 255], [1, 2])]),

  // DecodeRaw (tf.io.decode_raw): bytes 01 00 02 01 / ff ff 00 80 as
  // little-endian int16 -> [1, 258] / [-1, -32768]; as big-endian ->
  // [256, 513] / [-1, 128].
  hand('int16_little_endian', 'DecodeRaw', { out_type: A.type('int16'), little_endian: A.b(true) },
    [str([{ hex: '01000201' }, { hex: 'ffff0080' }])], [t('int16', [2, 2], [1, 258, -1, -32768])]),
  hand('int16_big_endian', 'DecodeRaw', { out_type: A.type('int16'), little_endian: A.b(false) },
    [str([{ hex: '01000201' }, { hex: 'ffff0080' }])], [t('int16', [2, 2], [256, 513, -1, 128])]),

  // InTopKV2 (tf.math.in_top_k docs: ties at the boundary count as in; a
  // target is in the top k when fewer than k classes score strictly higher):
  // rows [0.1, 0.8, 0.1], [0.3, 0.6, 0.3], [0.5, 0.5, 0] with targets
  // [0, 2, 1], k = 2 -> 1, 1 and 0 classes above -> all true; k = 1 -> false,
  // false, true.
  hand('ties_k2', 'InTopKV2', { T: A.type('int32') },
    [f32([0.1, 0.8, 0.1, 0.3, 0.6, 0.3, 0.5, 0.5, 0], [3, 3]), i32([0, 2, 1]), i32([2], [])], [t('bool', [3], [true, true, true])]),
  hand('ties_k1', 'InTopKV2', { T: A.type('int32') },
    [f32([0.1, 0.8, 0.1, 0.3, 0.6, 0.3, 0.5, 0.5, 0], [3, 3]), i32([0, 2, 1]), i32([1], [])], [t('bool', [3], [false, false, true])]),

  // AudioSpectrogram of a constant 1 signal, window 4, stride 3, 10 samples:
  // periodic Hann(4) = [0, 0.5, 1, 0.5]; FFT length 4; X[0] = 2,
  // X[1] = -0.5i - 1 + 0.5i = -1, X[2] = -0.5 + 1 - 0.5 = 0 -> |X| = [2, 1, 0];
  // frames = 1 + (10 - 4) / 3 = 3; output [1 channel, 3 frames, 3 bins].
  hand('constant_signal', 'AudioSpectrogram', { window_size: A.i(4), stride: A.i(3), magnitude_squared: A.b(false) },
    [f32(new Array(10).fill(1), [10, 1])], [f32([2, 1, 0, 2, 1, 0, 2, 1, 0], [1, 3, 3])]),
  // magnitude_squared, window 5 -> FFT 8, bins 5: Hann(5) sums to 2.5 at DC
  // -> 6.25; two channels of the same signal.
  hand('squared_window5_two_channels', 'AudioSpectrogram', { window_size: A.i(5), stride: A.i(1), magnitude_squared: A.b(true) },
    [f32(new Array(10).fill(1), [5, 2])], [f32([...hannPowerSpectrum5(), ...hannPowerSpectrum5()], [2, 1, 5])]),

  // Mfcc: TensorFlow's mfcc_test "AgreesWithPythonGoldenValues": a 513-bin
  // spectrogram 1, 2, ..., 513 at 22050 Hz, default parameters (20-4000 Hz,
  // 40 filterbank channels, 13 coefficients).
  hand('tf_golden_values', 'Mfcc', {},
    [f32(Array.from({ length: 513 }, (_, i) => i + 1), [1, 1, 513]), i32([22050], [])],
    [f32([29.13970072, -6.41568601, -0.61903012, -0.96778652, -0.26819878, -0.40907028, -0.15614748,
      -0.23203119, -0.10481487, -0.1543029, -0.0769791, -0.10806114, -0.06047613], [1, 1, 13])]),

  // Einsum with "..." (TensorFlow.js has no ellipsis): [2,1,2,2] x [3,2,2]
  // -> [2,3,2,2], the lhs's size-1 batch dim stretching to 3. a = 1..8,
  // b = 0..11; out[i][j] = a[i][0] @ b[j].
  hand('ellipsis_broadcast', 'Einsum', { equation: A.s('...ij,...jk->...ik'), N: A.i(2), T: A.type('float32') },
    [f32([1, 2, 3, 4, 5, 6, 7, 8], [2, 1, 2, 2]), f32(Array.from({ length: 12 }, (_, i) => i), [3, 2, 2])],
    [f32(ellipsisMatmul(), [2, 3, 2, 2])]),
  // UniqueWithCounts: values in first-occurrence order [4, 1, 2], each
  // element's position in them, and how often each occurs.
  hand('first_occurrence_counts', 'UniqueWithCounts', { T: A.type('int32'), out_idx: A.type('int32') },
    [i32([4, 1, 4, 2, 1, 4])], [i32([4, 1, 2]), i32([0, 1, 0, 2, 1, 0]), i32([3, 2, 1])]),
  // StringJoin broadcasts scalars against the [2] input: "pre" + "-" + x + "-" + "post".
  hand('scalar_broadcast', 'StringJoin', { N: A.i(3), separator: A.s('-') },
    [str(['pre'], []), str(['a', 'bc']), str(['post'], [])], [str(['pre-a-post', 'pre-bc-post'])]),
  // Substr with a negative pos counts from the end; len past the end is cut:
  // "hello"[-3:][:2] = "ll"; "ab"[-2:][:10] = "ab".
  hand('negative_pos', 'Substr', { T: A.type('int32') },
    [str(['hello', 'ab']), i32([-3, -2]), i32([2, 10])], [str(['ll', 'ab'])]),
  // AsString of floats with precision 2 formats as printf "%.2f"; ints as "%d".
  hand('float_precision', 'AsString', { T: A.type('float32'), precision: A.i(2) },
    [f32([3.14159, -0.5, 100])], [str(['3.14', '-0.50', '100.00'])]),
  hand('int', 'AsString', { T: A.type('int32') }, [i32([-7, 0, 42])], [str(['-7', '0', '42'])]),
  // StringToNumber parses decimal text to float32 / int32.
  hand('float', 'StringToNumber', { out_type: A.type('float32') }, [str(['1.5', '-2', '1e3'])], [f32([1.5, -2, 1000])]),
  // InvertPermutation: y[x[i]] = i; x = [2, 0, 3, 1] -> [1, 3, 0, 2].
  hand('basic', 'InvertPermutation', { T: A.type('int32') }, [i32([2, 0, 3, 1])], [i32([1, 3, 0, 2])]),
  // Shape/Size/Rank of a [2, 3, 0] tensor: [2, 3, 0], 0 elements, rank 3.
  hand('empty', 'Shape', { T: A.type('float32'), out_type: A.type('int32') }, [f32([], [2, 3, 0])], [i32([2, 3, 0])]),
  hand('empty', 'Size', { T: A.type('float32'), out_type: A.type('int64') }, [f32([], [2, 3, 0])], [i64([0], [])]),
  hand('empty', 'Rank', { T: A.type('float32') }, [f32([], [2, 3, 0])], [i32([3], [])]),
  // SpaceToDepth block 2 on [1, 2, 2, 1] = [[1, 2], [3, 4]] -> [1, 1, 1, 4]
  // = [1, 2, 3, 4] (each 2x2 block becomes depth, row-major within the block).
  hand('block2', 'SpaceToDepth', { T: A.type('float32'), block_size: A.i(2) }, [f32([1, 2, 3, 4], [1, 2, 2, 1])], [f32([1, 2, 3, 4], [1, 1, 1, 4])]),
  // MulNoNan: 0 where y == 0 even if x is Inf/NaN; else x * y.
  hand('zero_beats_nan', 'MulNoNan', { T: A.type('float32') }, [f32([Infinity, 'NaN', 2, 3]), f32([0, 0, 0.5, -1])], [f32([0, 0, 1, -3])]),
  // Xlogy: 0 where x == 0 (even y == 0); else x * log(y). Xdivy: 0 where x == 0; else x / y.
  hand('zero_x', 'Xlogy', { T: A.type('float32') }, [f32([0, 2, 1]), f32([0, Math.E, 4])], [f32([0, 2, Math.log(4)])]),
  hand('zero_x', 'Xdivy', { T: A.type('float32') }, [f32([0, 2, 1]), f32([0, 4, -8])], [f32([0, 0.5, -0.125])]),
  // TruncateDiv / TruncateMod round toward zero (C semantics): 7 / -2 = -3,
  // -7 / 2 = -3; 7 % -2 = 1, -7 % 2 = -1.
  hand('toward_zero', 'TruncateDiv', { T: A.type('int32') }, [i32([7, -7, 7, -7]), i32([2, 2, -2, -2])], [i32([3, -3, -3, 3])]),
  hand('sign_of_dividend', 'TruncateMod', { T: A.type('int32') }, [i32([7, -7, 7, -7]), i32([2, 2, -2, -2])], [i32([1, -1, 1, -1])]),
  // Mod is TruncateMod's alias for integers in TensorFlow (C fmod semantics).
  hand('sign_of_dividend', 'Mod', { T: A.type('int32') }, [i32([7, -7, 7, -7]), i32([3, 3, -3, -3])], [i32([1, -1, 1, -1])]),
  // Erfc = 1 - erf: erfc(0) = 1, erfc(1) = 0.157299207, erfc(-1) = 1.842700793.
  hand('known_values', 'Erfc', { T: A.type('float32') }, [f32([0, 1, -1])], [f32([1, 0.157299207, 1.842700793])]),
  // Lgamma: lgamma(1) = lgamma(2) = 0, lgamma(0.5) = log(sqrt(pi)), lgamma(5) = log(24).
  hand('known_values', 'Lgamma', { T: A.type('float32') }, [f32([1, 2, 0.5, 5])], [f32([0, 0, 0.5 * Math.log(Math.PI), Math.log(24)])]),
  // Softsign = x / (1 + |x|).
  hand('basic', 'Softsign', { T: A.type('float32') }, [f32([-3, 0, 1])], [f32([-0.75, 0, 0.5])]),
  // ASCII-only case mapping and byte length.
  hand('ascii', 'StringLower', {}, [str(['MiXeD 1'])], [str(['mixed 1'])]),
  hand('ascii', 'StringUpper', {}, [str(['MiXeD 1'])], [str(['MIXED 1'])]),
  hand('bytes', 'StringLength', {}, [str(['', 'abc'])], [i32([0, 3])]),
  // RE2 full match (the whole string must match); RegexReplace global.
  hand('full_match', 'StaticRegexFullMatch', { pattern: A.s('[a-z]+[0-9]') }, [str(['abc1', 'abc1x', '1'])], [t('bool', [3], [true, false, false])]),
  hand('full_match', 'RegexFullMatch', {}, [str(['abc1', 'abc1x']), str(['[a-z]+[0-9]'], [])], [t('bool', [2], [true, false])]),
  hand('global', 'RegexReplace', { replace_global: A.b(true) }, [str(['a1b22', 'x']), str(['[0-9]+'], []), str(['#'], [])], [str(['a#b#', 'x'])]),
  // SparseSegment*WithNumSegments: 4 output rows though the last id is 1.
  hand('padded_rows', 'SparseSegmentSumWithNumSegments', { T: A.type('float32') },
    [f32([1, 2, 3, 4], [2, 2]), i32([0, 1, 1]), i32([0, 0, 1]), i32([4], [])], [f32([4, 6, 3, 4, 0, 0, 0, 0], [4, 2])]),
  hand('padded_rows', 'SparseSegmentMeanWithNumSegments', { T: A.type('float32') },
    [f32([1, 2, 3, 4], [2, 2]), i32([0, 1, 1]), i32([0, 0, 1]), i32([3], [])], [f32([2, 3, 3, 4, 0, 0], [3, 2])]),
  hand('padded_rows', 'SparseSegmentSqrtNWithNumSegments', { T: A.type('float32') },
    [f32([1, 2, 3, 4], [2, 2]), i32([0, 1]), i32([0, 0]), i32([2], [])], [f32([4 / Math.SQRT2, 6 / Math.SQRT2, 0, 0], [2, 2])]),
  // NonMaxSuppression (V1): TensorFlow's three-cluster boxes, iou attr 0.5 -> [3, 0, 5].
  hand('iou_attr', 'NonMaxSuppression', { iou_threshold: A.f(0.5) },
    [f32([0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101], [6, 4]),
      f32([0.9, 0.75, 0.6, 0.95, 0.5, 0.3]), i32([3], [])], [i32([3, 0, 5])]),
  // StringSplitV2 with a separator follows Python's str.split: '' splits into
  // [''] (one empty token), 'a,' into ['a', '']. (TensorFlow.js implements
  // the V1 op, which drops the empty string, so this case is by hand.)
  hand('empty_string_is_one_empty_token', 'StringSplitV2', { maxsplit: A.i(-1) },
    [str(['', 'a,']), str([','], [])], [i64([0, 0, 1, 0, 1, 1], [3, 2]), str(['', 'a', '']), i64([2, 2])]),
  // maxsplit 1 splits once: 'a,b,c' -> ['a', 'b,c'].
  hand('maxsplit', 'StringSplitV2', { maxsplit: A.i(1) },
    [str(['a,b,c']), str([','], [])], [i64([0, 0, 0, 1], [2, 2]), str(['a', 'b,c']), i64([1, 2])]),
  // Pass-through ops: outputs equal inputs (IdentityN per input, of any dtype).
  hand('two_dtypes', 'IdentityN', { T: A.lt(['float32', 'int32']) }, [f32([1.5, -2]), i32([7], [1, 1])], [f32([1.5, -2]), i32([7], [1, 1])]),
  hand('float', 'PreventGradient', { T: A.type('float32') }, [f32([3, 4])], [f32([3, 4])]),
  // ShapeN: one shape vector per input.
  hand('two', 'ShapeN', { N: A.i(2), T: A.type('float32'), out_type: A.type('int32') },
    [f32([], [2, 0]), f32([1, 2, 3], [3])], [i32([2, 0]), i32([3])]),
  // Trace: "ii->" sums the diagonal of [[1,2,3],[4,5,6],[7,8,9]] = 15.
  hand('trace', 'Einsum', { equation: A.s('ii->'), N: A.i(1), T: A.type('float32') },
    [f32([1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 3])], [f32([15], [])]),
];

// |DFT_8(hann5)|^2 for bins 0..4, hann5[j] = 0.5 - 0.5 cos(2 pi j / 5).
function hannPowerSpectrum5() {
  const w = Array.from({ length: 5 }, (_, j) => 0.5 - 0.5 * Math.cos((2 * Math.PI * j) / 5));
  return Array.from({ length: 5 }, (_, k) => {
    let re = 0, im = 0;
    for (let j = 0; j < 5; j++) { re += w[j] * Math.cos((2 * Math.PI * k * j) / 8); im -= w[j] * Math.sin((2 * Math.PI * k * j) / 8); }
    return re * re + im * im;
  });
}

function ellipsisMatmul() {
  const out = [];
  for (let i = 0; i < 2; i++) {
    for (let j = 0; j < 3; j++) {
      const a = [1, 2, 3, 4].map((v) => v + 4 * i);
      const b = [0, 1, 2, 3].map((v) => v + 4 * j);
      out.push(a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]);
    }
  }
  return out;
}
