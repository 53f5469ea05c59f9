// Conformance cases of the sparse-tensor and ragged ops added for Estimator /
// TFX graphs: SparseReorder, SparseSlice, SparseSplit, SparseConcat,
// SparseAdd, SparseTensorDenseAdd, SparseDenseCwiseMul/Add/Div,
// SparseReduceSum/Max(+Sparse), SparseBincount, RaggedBincount,
// SparseSparseMaximum/Minimum, SparseSoftmax and RaggedTensorToSparse.
//
// TensorFlow.js has none of these ops. Where a dense composition of tfjs ops
// computes the same thing (SparseTensorDenseAdd = scatterND + add;
// SparseReduceSum = scatterND + sum, since implicit zeros do not change a
// sum; SparseDenseCwise* = op with gatherND of the broadcast dense) the reference comes from tfjs on random inputs. The rest are derived
// by hand from TensorFlow's documented semantics (the tf.sparse.* /
// tf.RaggedTensor docstrings, named in each comment). RaggedTensorToVariant /
// FromVariant have no case here: variant tensors cannot be written to JSON
// (their unit tests in src/ops/array/ragged_conversion_ops_test.cc cover them).
//
//   node sparse_ragged.mjs > /tmp/sparse_ragged.json && cp /tmp/sparse_ragged.json ../cases/sparse_ragged.json
import { A, tf, lit, hand, caseBuilder, writeCases, TFJS_REFERENCE } from './case_builder.mjs';

const f32 = (data, shape) => lit('float32', shape ?? [data.length], data);
const i32 = (data, shape) => lit('int32', shape ?? [data.length], data);
const i64 = (data, shape) => lit('int64', shape ?? [data.length], data);
const str = (data, shape) => lit('string', shape ?? [data.length], data);
const T = (dtype) => ({ T: A.type(dtype) });

const b = caseBuilder(20261201);

// Distinct random positions of a dense shape, as a [n, rank] index list.
function randomIndices(shape, n) {
  const total = shape.reduce((x, y) => x * y, 1);
  const chosen = new Set();
  while (chosen.size < Math.min(n, total)) chosen.add(Math.floor(b.rand() * total));
  return Array.from(chosen).map((flat) => {
    const idx = new Array(shape.length);
    for (let d = shape.length - 1; d >= 0; d--) { idx[d] = flat % shape[d]; flat = Math.floor(flat / shape[d]); }
    return idx;
  });
}

// --- tfjs-referenced cases -------------------------------------------------

// SparseTensorDenseAdd(a, b) = dense(a) + b; tf.scatterND adds repeated indices
// as TensorFlow's kernel does.
for (const [name, shape, n] of [['rank2', [3, 4], 5], ['rank3', [2, 3, 2], 7], ['empty_sparse', [2, 2], 0]]) {
  const idx = randomIndices(shape, n);
  const indices = tf.tensor(idx.flat(), [idx.length, shape.length], 'int32');
  const values = b.randn([idx.length]);
  const dense = b.randn(shape);
  b.add(name, 'SparseTensorDenseAdd', { ...T('float32'), Tindices: A.type('int64') },
    [indices, values, tf.tensor(shape, [shape.length], 'int32'), dense],
    (i, v, s, d) => tf.add(tf.scatterND(i, v, shape), d),
    { inDtypes: ['int64', undefined, 'int64', undefined] });
}

// SparseReduceSum(sp, axes) = reduce_sum(dense(sp), axes): the missing entries
// are zeros, which do not change a sum.
for (const [name, shape, n, axes, keep] of [
  ['axis1', [3, 4], 6, [1], false], ['axis0_keep', [3, 4], 6, [0], true], ['all', [2, 3, 2], 5, [0, 1, 2], false],
  ['negative_axes', [2, 3, 2], 8, [-1, 0], false], ['middle_keep', [2, 3, 2], 8, [1], true]]) {
  const idx = randomIndices(shape, n);
  const indices = tf.tensor(idx.flat(), [idx.length, shape.length], 'int32');
  const values = b.randn([idx.length]);
  const norm = axes.map((a) => (a < 0 ? a + shape.length : a));
  b.add(name, 'SparseReduceSum', { ...T('float32'), keep_dims: A.b(keep) },
    [indices, values, tf.tensor(shape, [shape.length], 'int32'), b.i32(axes)],
    (i, v) => tf.sum(tf.scatterND(i, v, shape), norm, keep),
    { inDtypes: ['int64', undefined, 'int64', 'int32'] });
}

// --- hand-derived cases ------------------------------------------------------

const docIdx = i64([0, 0, 0, 2, 0, 4, 0, 5, 1, 1, 1, 3, 1, 4], [7, 2]);
const docVals = str(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
const hands = [
  // tf.sparse.reorder: entries sort into row-major order, here [1,0]=1 [0,2]=2
  // [0,1]=3 -> [0,1]=3 [0,2]=2 [1,0]=1.
  hand('row_major', 'SparseReorder', T('float32'),
    [i64([1, 0, 0, 2, 0, 1], [3, 2]), f32([1, 2, 3]), i64([2, 3])],
    [i64([0, 1, 0, 2, 1, 0], [3, 2]), f32([3, 2, 1])]),
  // tf.sparse.slice docstring: input [2, 6] = [0,0]=a [0,2]=b [0,4]=c [0,5]=d
  // [1,1]=e [1,3]=f [1,4]=g; start [0, 0], size [2, 4] -> shape [2, 4] with
  // [0,0]=a [0,2]=b [1,1]=e [1,3]=f.
  hand('docstring_first', 'SparseSlice', T('string'), [docIdx, docVals, i64([2, 6]), i64([0, 0]), i64([2, 4])],
    [i64([0, 0, 0, 2, 1, 1, 1, 3], [4, 2]), str(['a', 'b', 'e', 'f']), i64([2, 4])]),
  // Same docstring, start [0, 4], size [2, 3]: the slice is clipped to the
  // input's 6 columns -> shape [2, 2] with [0,0]=c [0,1]=d [1,0]=g.
  hand('docstring_clipped', 'SparseSlice', T('string'), [docIdx, docVals, i64([2, 6]), i64([0, 4]), i64([2, 3])],
    [i64([0, 0, 0, 1, 1, 0], [3, 2]), str(['c', 'd', 'g']), i64([2, 2])]),
  // tf.sparse.split: dim 1 of [2, 7] into 3 -> sizes 3, 2, 2 (the first
  // 7 % 3 = 1 slice is one longer); [0,0]=a [0,4]=b [0,5]=c [1,1]=d [1,2]=e
  // [1,6]=f -> {a, d, e}, {b at col 1}, {c at col 0, f at col 1}.
  hand('uneven', 'SparseSplit', { ...T('string'), num_split: A.i(3) },
    [i64([1], []), i64([0, 0, 0, 4, 0, 5, 1, 1, 1, 2, 1, 6], [6, 2]), str(['a', 'b', 'c', 'd', 'e', 'f']), i64([2, 7])],
    [i64([0, 0, 1, 1, 1, 2], [3, 2]), i64([0, 1], [1, 2]), i64([0, 0, 1, 1], [2, 2]),
      str(['a', 'd', 'e']), str(['b']), str(['c', 'f']), i64([2, 3]), i64([2, 2]), i64([2, 2])]),
  // tf.sparse.concat docstring (axis 1): [2, 3] {[0,2]=a [1,0]=b [1,1]=c} and
  // [2, 4] {[0,1]=d [0,2]=e} -> [2, 7] {[0,2]=a [0,4]=d [0,5]=e [1,0]=b [1,1]=c}.
  hand('docstring', 'SparseConcat', { ...T('string'), N: A.i(2), concat_dim: A.i(1) },
    [i64([0, 2, 1, 0, 1, 1], [3, 2]), i64([0, 1, 0, 2], [2, 2]), str(['a', 'b', 'c']), str(['d', 'e']), i64([2, 3]), i64([2, 4])],
    [i64([0, 2, 0, 4, 0, 5, 1, 0, 1, 1], [5, 2]), str(['a', 'd', 'e', 'b', 'c']), i64([2, 7])]),
  // Axis 0 (as -2): the second input's rows shift by the first's 1 row.
  hand('negative_axis', 'SparseConcat', { ...T('float32'), N: A.i(2), concat_dim: A.i(-2) },
    [i64([0, 1], [1, 2]), i64([0, 0, 1, 1], [2, 2]), f32([1]), f32([2, 3]), i64([1, 2]), i64([2, 2])],
    [i64([0, 1, 1, 0, 2, 1], [3, 2]), f32([1, 2, 3]), i64([3, 2])]),
  // tf.sparse.add: entries present in one input are copied; at [1,0] the sum
  // 2 + -1.5 = 0.5 < thresh 0.75 is dropped, at [0,1] 1 + 1 = 2 is kept.
  hand('threshold', 'SparseAdd', { ...T('float32'), Treal: A.type('float32') },
    [i64([0, 1, 1, 0, 1, 2], [3, 2]), f32([1, 2, 0.25]), i64([3, 3]),
      i64([0, 0, 0, 1, 1, 0], [3, 2]), f32([3, 1, -1.5]), i64([3, 3]), f32([0.75], [])],
    [i64([0, 0, 0, 1, 1, 2], [3, 2]), f32([3, 2, 0.25]), i64([3, 3])]),
  // Integer SparseAdd with thresh 0 keeps the zero sum 5 + -5.
  hand('int32_zero_sum_kept', 'SparseAdd', { ...T('int32'), Treal: A.type('int32') },
    [i64([0, 2], [2, 1]), i32([5, 7]), i64([4]), i64([0, 3], [2, 1]), i32([-5, 1]), i64([4]), i32([0], [])],
    [i64([0, 2, 3], [3, 1]), i32([0, 7, 1]), i64([4])]),
  // tf.sparse.reduce_max docstring: x = [[1, ?, 2], [?, 3, ?]]: axis 0 ->
  // [1, 3, 2], axis -1 with keepdims -> [[2], [3]].
  hand('docstring_axis0', 'SparseReduceMax', { ...T('float32'), keep_dims: A.b(false) },
    [i64([0, 0, 0, 2, 1, 1], [3, 2]), f32([1, 2, 3]), i64([2, 3]), i32([0])], [f32([1, 3, 2])]),
  hand('docstring_keepdims', 'SparseReduceMax', { ...T('float32'), keep_dims: A.b(true) },
    [i64([0, 0, 0, 2, 1, 1], [3, 2]), f32([1, 2, 3]), i64([2, 3]), i32([-1])], [f32([2, 3], [2, 1])]),
  // tf.sparse.reduce_max docstring: [[-7, ?], [4, 3], [?, ?]] over axis 1 ->
  // [-7, 4, 0]: implicit zeros take no part and an empty row gives 0.
  hand('implicit_zeros_ignored', 'SparseReduceMax', { ...T('float32'), keep_dims: A.b(false) },
    [i64([0, 0, 1, 0, 1, 1], [3, 2]), f32([-7, 4, 3]), i64([3, 2]), i32([1])], [f32([-7, 4, 0])]),
  // The *Sparse forms: one entry per non-empty group, in row-major order.
  // [[?, ?, ?], [?, ?, ?], [3, 1, ?], [?, ?, ?]] with [0,0]=2 as well:
  // rows 0 and 2 are non-empty -> sum {[0]: 2, [2]: 4}, max {[0]: 2, [2]: 3}.
  hand('rows', 'SparseReduceSumSparse', { ...T('float32'), keep_dims: A.b(false) },
    [i64([2, 1, 0, 0, 2, 0], [3, 2]), f32([1, 2, 3]), i64([4, 3]), i32([1])],
    [i64([0, 2], [2, 1]), f32([2, 4]), i64([4])]),
  hand('rows_keepdims', 'SparseReduceMaxSparse', { ...T('float32'), keep_dims: A.b(true) },
    [i64([2, 1, 0, 0, 2, 0], [3, 2]), f32([1, 2, 3]), i64([4, 3]), i32([1])],
    [i64([0, 0, 2, 0], [2, 2]), f32([2, 3]), i64([4, 1])]),
  // tf.RaggedTensor.to_sparse docstring: [[1, 2, 3], [4], [], [5, 6]] ->
  // indices [[0,0],[0,1],[0,2],[1,0],[3,0],[3,1]], dense_shape [4, 3].
  hand('docstring', 'RaggedTensorToSparse', { RAGGED_RANK: A.i(1), T: A.type('int32'), Tsplits: A.type('int64') },
    [i64([0, 3, 4, 4, 6]), i32([1, 2, 3, 4, 5, 6])],
    [i64([0, 0, 0, 1, 0, 2, 1, 0, 3, 0, 3, 1], [6, 2]), i32([1, 2, 3, 4, 5, 6]), i64([4, 3])]),
  // Two ragged levels, int32 splits: [[[1, 2], [3]], [[4]]] -> every value's
  // (row, sublist, position); dense_shape [2, 2, 2].
  hand('nested_int32_splits', 'RaggedTensorToSparse', { RAGGED_RANK: A.i(2), T: A.type('float32'), Tsplits: A.type('int32') },
    [i32([0, 2, 3]), i32([0, 2, 3, 4]), f32([1, 2, 3, 4])],
    [i64([0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0], [4, 3]), f32([1, 2, 3, 4]), i64([2, 2, 2])]),
  // Uniform inner dim: rows of 2-vectors [[[1, 2], [3, 4]], [[5, 6]]] -> each
  // value's (row, position, column); dense_shape [2, 2, 2].
  hand('inner_dense_dim', 'RaggedTensorToSparse', { RAGGED_RANK: A.i(1), T: A.type('int32'), Tsplits: A.type('int64') },
    [i64([0, 2, 3]), i32([1, 2, 3, 4, 5, 6], [3, 2])],
    [i64([0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1], [6, 3]), i32([1, 2, 3, 4, 5, 6]), i64([2, 2, 2])]),
];

// SparseDenseCwise{Mul,Add,Div}(sp, dense) = sp_values op
// gatherND(broadcastTo(dense, sp_shape), sp_indices): the dense side
// broadcasts and only stored entries are computed. (Added after the hand
// cases so the earlier random inputs stay as they were.)
for (const [op, fn, shape, denseShape] of [
  ['SparseDenseCwiseMul', tf.mul, [3, 4], [1, 4]], ['SparseDenseCwiseAdd', tf.add, [2, 3, 2], [3, 1]],
  ['SparseDenseCwiseDiv', tf.div, [3, 4], [3, 4]]]) {
  const idx = randomIndices(shape, 6);
  const indices = tf.tensor(idx.flat(), [idx.length, shape.length], 'int32');
  const values = b.randn([idx.length]);
  const dense = b.randn(denseShape, 0.5, 2);
  b.add(`broadcast_${denseShape.join('x')}`, op, T('float32'),
    [indices, values, tf.tensor(shape, [shape.length], 'int32'), dense],
    (i, v, s, d) => fn(v, tf.gatherND(tf.broadcastTo(d, shape), i)),
    { inDtypes: ['int64', undefined, 'int64', undefined] });
}

// SparseBincount / RaggedBincount against tf.bincount (1-D) and
// tf.denseBincount (2-D): a SparseTensor with every position stored, or a
// ragged tensor with equal rows, counts exactly as the dense input does.
{
  const x = b.randint([9], 0, 7);
  const w = b.randn([9], 0, 1);
  const idx = tf.tensor(Array.from({ length: 9 }, (_, i) => i), [9, 1], 'int32');
  b.add('one_dim_weighted', 'SparseBincount', { T: A.type('float32'), Tidx: A.type('int32'), binary_output: A.b(false) },
    [idx, x, b.i32([9]), b.i32([5], []), w], (i, v, s, n, ww) => tf.bincount(v, ww, 5),
    { inDtypes: ['int64', undefined, 'int64', undefined, undefined] });
  const x2 = b.randint([3, 4], 0, 5);
  const full = [];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) full.push(r, c);
  for (const binary of [false, true]) {
    b.add(binary ? 'two_dim_binary' : 'two_dim_counts', 'SparseBincount',
      { T: A.type('int32'), Tidx: A.type('int32'), binary_output: A.b(binary) },
      [tf.tensor(full, [12, 2], 'int32'), tf.reshape(x2, [12]), b.i32([3, 4]), b.i32([4], []), tf.tensor([], [0], 'int32')],
      () => tf.denseBincount(x2, tf.tensor([], [0], 'int32'), 4, binary),
      { inDtypes: ['int64', undefined, 'int64', undefined, undefined] });
  }
  const w2 = b.randn([3, 4], 0, 1);
  b.add('uniform_rows_weighted', 'RaggedBincount', { T: A.type('float32'), Tidx: A.type('int32'), binary_output: A.b(false) },
    [b.i32([0, 4, 8, 12]), tf.reshape(x2, [12]), b.i32([5], []), tf.reshape(w2, [12])],
    () => tf.denseBincount(x2, w2, 5),
    { inDtypes: ['int64', undefined, undefined, undefined] });
}
hands.push(
  // RaggedBincount of [[1, 1, 2], [], [3]], size 3: row 0 has two 1s and a
  // 2, row 1 is empty, row 2's 3 >= size is ignored.
  hand('ragged_rows', 'RaggedBincount', { T: A.type('int64'), Tidx: A.type('int32'), binary_output: A.b(false) },
    [i64([0, 3, 3, 4]), i32([1, 1, 2, 3]), i32([3], []), i64([], [0])], [i64([0, 2, 1, 0, 0, 0, 0, 0, 0], [3, 3])]),
  // SparseBincount of rows [[?, 3, 1], [2, 7, ?]], size 4: only stored values
  // count (the implicit zeros add nothing to bin 0); 7 >= size is ignored.
  hand('implicit_zeros_not_counted', 'SparseBincount', { T: A.type('float32'), Tidx: A.type('int32'), binary_output: A.b(false) },
    [i64([0, 1, 0, 2, 1, 0, 1, 1], [4, 2]), i32([3, 1, 2, 7]), i64([2, 3]), i32([4], []), f32([], [0])],
    [f32([0, 1, 0, 1, 0, 0, 1, 0], [2, 4])]),
);
hands.push(
  // tf.sparse.maximum / minimum: the union of the indices in row-major order;
  // an index stored in one input meets the other's implicit 0. a = {[0,0]: 1,
  // [1,1]: -2}, b = {[0,0]: 3, [0,2]: -5, [1,2]: 4} -> max [3, 0, 0, 4],
  // min [1, -5, -2, 0] at [0,0] [0,2] [1,1] [1,2].
  hand('union', 'SparseSparseMaximum', T('float32'),
    [i64([0, 0, 1, 1], [2, 2]), f32([1, -2]), i64([2, 3]), i64([0, 0, 0, 2, 1, 2], [3, 2]), f32([3, -5, 4]), i64([2, 3])],
    [i64([0, 0, 0, 2, 1, 1, 1, 2], [4, 2]), f32([3, 0, 0, 4])]),
  hand('union', 'SparseSparseMinimum', T('float32'),
    [i64([0, 0, 1, 1], [2, 2]), f32([1, -2]), i64([2, 3]), i64([0, 0, 0, 2, 1, 2], [3, 2]), f32([3, -5, 4]), i64([2, 3])],
    [i64([0, 0, 0, 2, 1, 1, 1, 2], [4, 2]), f32([1, -5, -2, 0])]),
  // tf.sparse.softmax: softmax over the stored entries of each row, in input
  // order. Row 1 {2: ln 3, 1: 0} -> 3/4, 1/4; row 0 {0: 1, 2: 1} -> 1/2 each.
  hand('per_row_stored_only', 'SparseSoftmax', T('float32'),
    [i64([1, 2, 0, 0, 1, 1, 0, 2], [4, 2]), f32([Math.log(3), 1, 0, 1]), i64([2, 3])],
    [f32([0.75, 0.5, 0.25, 0.5])]),
);

writeCases('sparse_ragged.mjs', `${TFJS_REFERENCE}; hand-derived from TensorFlow's documented semantics`,
  [...b.cases, ...hands]);
