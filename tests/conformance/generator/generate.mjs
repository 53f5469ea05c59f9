// Computes reference outputs for tfhost's op conformance suite with
// TensorFlow.js's CPU kernels, and writes them as JSON cases that
// tests/conformance/op_conformance_test.cc replays through tfhost's kernels.
//
//   cd tests/conformance/generator && npm install && node generate.mjs > ../cases/tfjs_reference.json
//
// Each case names the TensorFlow op and attrs tfhost must run, the inputs,
// and the outputs TensorFlow.js computed for the equivalent tfjs call. Cases
// for ops TensorFlow.js lacks are derived by hand in hand_cases.mjs and
// appended. Tolerances are not stated here: ../tolerances.h holds them all.
import { tf, A, T, caseBuilder, writeCases, TFJS_REFERENCE } from './case_builder.mjs';
import { handCases } from './hand_cases.mjs';

const { cases, rand, randn, randint, i32, add } = caseBuilder();

// ---- element-wise binary with broadcasting
const binary = [
  ['Add', tf.add], ['AddV2', tf.add], ['Sub', tf.sub], ['Mul', tf.mul], ['RealDiv', tf.div],
  ['Maximum', tf.maximum], ['Minimum', tf.minimum], ['SquaredDifference', tf.squaredDifference],
];
for (const [op, fn] of binary) {
  add('same_shape', op, T(), [randn([2, 3]), randn([2, 3])], fn);
  add('broadcast_row', op, T(), [randn([2, 3]), randn([3])], fn);
  add('broadcast_outer', op, T(), [randn([2, 1]), randn([1, 3])], fn);
  add('scalar', op, T(), [randn([4]), randn([])], fn);
}
add('positive_base', 'Pow', T(), [randn([2, 3], 0.1, 2), randn([2, 3], -2, 2)], tf.pow);
// tfjs returns int32 from floorDiv even for floats; TensorFlow keeps T.
add('float', 'FloorDiv', T(), [randn([2, 4], -5, 5), randn([2, 4], 0.5, 2)], tf.floorDiv, { outDtypes: ['float32'] });
add('int', 'FloorDiv', T('int32'), [i32([7, -7, 7, -7]), i32([2, 2, -2, -2])], tf.floorDiv);
add('int_sign_of_divisor', 'FloorMod', T('int32'), [i32([7, -7, 7, -7]), i32([3, 3, -3, -3])], tf.mod);
add('float', 'FloorMod', T(), [randn([6], -5, 5), randn([6], 0.5, 2)], tf.mod);
add('int', 'AddV2', T('int32'), [randint([3, 2], -50, 50), randint([2], -50, 50)], tf.add);
add('int', 'Mul', T('int32'), [randint([5], -50, 50), randint([5], -50, 50)], tf.mul);

// ---- unary
const unary = [
  ['Neg', tf.neg], ['Abs', tf.abs], ['Exp', tf.exp], ['Square', tf.square], ['Tanh', tf.tanh],
  ['Sigmoid', tf.sigmoid], ['Relu', tf.relu], ['Relu6', tf.relu6], ['Elu', tf.elu], ['Selu', tf.selu],
  ['Softplus', tf.softplus], ['Floor', tf.floor], ['Ceil', tf.ceil], ['Sign', tf.sign], ['Erf', tf.erf],
  ['Sin', tf.sin], ['Cos', tf.cos],
];
for (const [op, fn] of unary) add('mixed_sign', op, T(), [randn([3, 4], -4, 4)], fn);
add('positive', 'Sqrt', T(), [randn([3, 4], 0.01, 9)], tf.sqrt);
add('positive', 'Rsqrt', T(), [randn([3, 4], 0.01, 9)], tf.rsqrt);
add('positive', 'Log', T(), [randn([3, 4], 0.01, 9)], tf.log);
add('nonzero', 'Reciprocal', T(), [randn([3, 4], 0.5, 3)], tf.reciprocal);
add('halves', 'Round', T(), [tf.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, 0.6])], tf.round);
add('alpha_0_3', 'LeakyRelu', { ...T(), alpha: A.f(0.3) }, [randn([2, 5], -3, 3)], (x) => tf.leakyRelu(x, 0.3));
add('relu6_saturates', 'Relu6', T(), [randn([10], -10, 10)], tf.relu6);

// ---- comparisons, logical, select, cast
for (const [op, fn] of [['Equal', tf.equal], ['NotEqual', tf.notEqual], ['Less', tf.less],
  ['LessEqual', tf.lessEqual], ['Greater', tf.greater], ['GreaterEqual', tf.greaterEqual]]) {
  add('int_broadcast', op, T('int32'), [randint([2, 3], 0, 3), randint([3], 0, 3)], fn);
}
add('basic', 'LogicalAnd', {}, [tf.tensor([true, true, false, false], [4], 'bool'), tf.tensor([true, false, true, false], [4], 'bool')], tf.logicalAnd);
add('basic', 'LogicalOr', {}, [tf.tensor([true, true, false, false], [4], 'bool'), tf.tensor([true, false, true, false], [4], 'bool')], tf.logicalOr);
add('basic', 'LogicalNot', {}, [tf.tensor([true, false], [2], 'bool')], tf.logicalNot);
add('broadcast', 'SelectV2', T(), [tf.tensor([true, false, true], [3], 'bool'), randn([2, 3]), randn([2, 3])], tf.where);
add('float_to_int_truncates', 'Cast', { SrcT: A.type('float32'), DstT: A.type('int32'), Truncate: A.b(false) },
  [tf.tensor([-2.7, -0.5, 0.5, 2.7, 3.0])], (x) => tf.cast(x, 'int32'));
add('int_to_float', 'Cast', { SrcT: A.type('int32'), DstT: A.type('float32'), Truncate: A.b(false) },
  [randint([4], -100, 100)], (x) => tf.cast(x, 'float32'));
add('bool_to_float', 'Cast', { SrcT: A.type('bool'), DstT: A.type('float32'), Truncate: A.b(false) },
  [tf.tensor([true, false], [2], 'bool')], (x) => tf.cast(x, 'float32'));
add('basic', 'ClipByValue', T(), [randn([8], -3, 3), tf.scalar(-1), tf.scalar(1.5)], (x) => tf.clipByValue(x, -1, 1.5));
add('three', 'AddN', { ...T(), N: A.i(3) }, [randn([2, 2]), randn([2, 2]), randn([2, 2])], (a, b, c) => tf.addN([a, b, c]));

// ---- reductions
const red = { ...T(), Tidx: A.type('int32') };
for (const [op, fn] of [['Sum', tf.sum], ['Mean', tf.mean], ['Max', tf.max], ['Min', tf.min], ['Prod', tf.prod]]) {
  add('axis1', op, { ...red, keep_dims: A.b(false) }, [randn([3, 4, 2]), i32([1], [1])], (x) => fn(x, 1));
  add('axes_0_2_keep', op, { ...red, keep_dims: A.b(true) }, [randn([3, 4, 2]), i32([0, 2])], (x) => fn(x, [0, 2], true));
  add('negative_axis', op, { ...red, keep_dims: A.b(false) }, [randn([3, 4]), tf.scalar(-1, 'int32')], (x) => fn(x, -1));
}
add('spatial_keep', 'Mean', { ...red, keep_dims: A.b(true) }, [randn([1, 5, 6, 3]), i32([1, 2])], (x) => tf.mean(x, [1, 2], true));
add('axis0', 'All', { keep_dims: A.b(false), Tidx: A.type('int32') }, [tf.tensor([true, true, false, true], [2, 2], 'bool'), i32([0])], (x) => tf.all(x, 0));
add('axis1', 'Any', { keep_dims: A.b(false), Tidx: A.type('int32') }, [tf.tensor([true, false, false, false], [2, 2], 'bool'), i32([1])], (x) => tf.any(x, 1));
add('axis1', 'ArgMax', { ...red, output_type: A.type('int64') }, [randn([3, 5]), tf.scalar(1, 'int32')], (x) => tf.argMax(x, 1), { outDtypes: ['int64'] });
add('axis0', 'ArgMin', { ...red, output_type: A.type('int64') }, [randn([3, 5]), tf.scalar(0, 'int32')], (x) => tf.argMin(x, 0), { outDtypes: ['int64'] });
add('exclusive_reverse', 'Cumsum', { ...red, exclusive: A.b(true), reverse: A.b(true) }, [randn([2, 4]), tf.scalar(1, 'int32')], (x) => tf.cumsum(x, 1, true, true));
add('plain', 'Cumsum', { ...red, exclusive: A.b(false), reverse: A.b(false) }, [randn([5]), tf.scalar(0, 'int32')], (x) => tf.cumsum(x, 0));

// ---- matmul, softmax
add('plain', 'MatMul', { ...T(), transpose_a: A.b(false), transpose_b: A.b(false) }, [randn([3, 4]), randn([4, 5])], (a, b) => tf.matMul(a, b));
add('transposed', 'MatMul', { ...T(), transpose_a: A.b(true), transpose_b: A.b(true) }, [randn([4, 3]), randn([5, 4])], (a, b) => tf.matMul(a, b, true, true));
add('batched_broadcast', 'BatchMatMulV2', { ...T(), adj_x: A.b(false), adj_y: A.b(false) }, [randn([2, 3, 4]), randn([1, 4, 2])],
  (a, b) => tf.matMul(a, tf.tile(b, [2, 1, 1])));
add('adj_y', 'BatchMatMulV2', { ...T(), adj_x: A.b(false), adj_y: A.b(true) }, [randn([2, 3, 4]), randn([2, 5, 4])], (a, b) => tf.matMul(a, b, false, true));
add('last_axis', 'Softmax', T(), [randn([3, 7], -5, 5)], tf.softmax);
add('huge_logits', 'Softmax', T(), [tf.tensor([[1000, 1001, 999], [-1000, 0, 1000]])], tf.softmax);
add('last_axis', 'LogSoftmax', T(), [randn([3, 7], -5, 5)], tf.logSoftmax);

// ---- convolutions and pooling (NHWC)
const conv = (strides, padding, dil = [1, 1, 1, 1], extra = {}) => ({ ...T(), strides: A.li(strides), padding: A.s(padding),
  data_format: A.s('NHWC'), dilations: A.li(dil), ...extra });
add('same_stride1', 'Conv2D', conv([1, 1, 1, 1], 'SAME'), [randn([1, 5, 5, 3]), randn([3, 3, 3, 4])], (x, f) => tf.conv2d(x, f, 1, 'same'));
add('valid_stride2', 'Conv2D', conv([1, 2, 2, 1], 'VALID'), [randn([2, 7, 6, 2]), randn([3, 2, 2, 3])], (x, f) => tf.conv2d(x, f, 2, 'valid'));
add('same_stride2_even', 'Conv2D', conv([1, 2, 2, 1], 'SAME'), [randn([1, 8, 8, 3]), randn([3, 3, 3, 2])], (x, f) => tf.conv2d(x, f, 2, 'same'));
add('dilation2', 'Conv2D', conv([1, 1, 1, 1], 'SAME', [1, 2, 2, 1]), [randn([1, 7, 7, 2]), randn([3, 3, 2, 2])], (x, f) => tf.conv2d(x, f, 1, 'same', 'NHWC', 2));
add('explicit', 'Conv2D', conv([1, 1, 1, 1], 'EXPLICIT', [1, 1, 1, 1], { explicit_paddings: A.li([0, 0, 1, 2, 2, 0, 0, 0]) }),
  [randn([1, 5, 5, 2]), randn([2, 2, 2, 3])], (x, f) => tf.conv2d(x, f, 1, [[0, 0], [1, 2], [2, 0], [0, 0]]));
add('pointwise', 'Conv2D', conv([1, 1, 1, 1], 'VALID'), [randn([1, 4, 4, 8]), randn([1, 1, 8, 5])], (x, f) => tf.conv2d(x, f, 1, 'valid'));
add('same_multiplier2', 'DepthwiseConv2dNative', conv([1, 1, 1, 1], 'SAME'), [randn([1, 6, 6, 3]), randn([3, 3, 3, 2])], (x, f) => tf.depthwiseConv2d(x, f, 1, 'same'));
add('valid_stride2', 'DepthwiseConv2dNative', conv([1, 2, 2, 1], 'VALID'), [randn([2, 7, 7, 4]), randn([3, 3, 4, 1])], (x, f) => tf.depthwiseConv2d(x, f, 2, 'valid'));
add('same_stride2', 'DepthwiseConv2dNative', conv([1, 2, 2, 1], 'SAME'), [randn([1, 8, 8, 4]), randn([3, 3, 4, 1])], (x, f) => tf.depthwiseConv2d(x, f, 2, 'same'));
add('stride2_same', 'Conv2DBackpropInput', conv([1, 2, 2, 1], 'SAME'), [i32([1, 8, 8, 3]), randn([3, 3, 3, 4]), randn([1, 4, 4, 4])],
  (sizes, f, dy) => tf.conv2dTranspose(dy, f, [1, 8, 8, 3], 2, 'same'));
const pool = (k, s, padding) => ({ ...T(), ksize: A.li(k), strides: A.li(s), padding: A.s(padding), data_format: A.s('NHWC') });
add('2x2_s2_valid', 'MaxPool', pool([1, 2, 2, 1], [1, 2, 2, 1], 'VALID'), [randn([1, 6, 6, 2])], (x) => tf.maxPool(x, 2, 2, 'valid'));
add('3x3_s2_same', 'MaxPool', pool([1, 3, 3, 1], [1, 2, 2, 1], 'SAME'), [randn([1, 7, 7, 2])], (x) => tf.maxPool(x, 3, 2, 'same'));
add('3x3_s1_same_counts_valid_cells', 'AvgPool', pool([1, 3, 3, 1], [1, 1, 1, 1], 'SAME'), [randn([1, 5, 5, 2])], (x) => tf.avgPool(x, 3, 1, 'same'));
add('7x7_valid_global', 'AvgPool', pool([1, 7, 7, 1], [1, 1, 1, 1], 'VALID'), [randn([1, 7, 7, 3])], (x) => tf.avgPool(x, 7, 1, 'valid'));
add('bias', 'BiasAdd', { ...T(), data_format: A.s('NHWC') }, [randn([2, 3, 3, 4]), randn([4])], (x, b) => tf.add(x, b));
add('inference', 'FusedBatchNormV3', { ...T(), U: A.type('float32'), epsilon: A.f(0.001), data_format: A.s('NHWC'), is_training: A.b(false) },
  [randn([1, 3, 3, 4]), randn([4], 0.5, 2), randn([4]), randn([4]), randn([4], 0.5, 2)],
  (x, scale, offset, mean, variance) => [tf.batchNorm(x, mean, variance, offset, scale, 0.001)]);
cases[cases.length - 1].only_outputs = [0];

// ---- resizing
const resize = (ac, hp) => ({ T: A.type('float32'), align_corners: A.b(ac), half_pixel_centers: A.b(hp) });
for (const [ac, hp, tag] of [[false, false, 'legacy'], [true, false, 'align_corners'], [false, true, 'half_pixel']]) {
  add(`up_${tag}`, 'ResizeBilinear', resize(ac, hp), [randn([1, 3, 4, 2]), i32([5, 7])], (x) => tf.image.resizeBilinear(x, [5, 7], ac, hp));
  add(`down_${tag}`, 'ResizeBilinear', resize(ac, hp), [randn([1, 6, 5, 1]), i32([4, 3])], (x) => tf.image.resizeBilinear(x, [4, 3], ac, hp));
  add(`up_${tag}`, 'ResizeNearestNeighbor', resize(ac, hp), [randn([1, 3, 4, 2]), i32([5, 7])], (x) => tf.image.resizeNearestNeighbor(x, [5, 7], ac, hp));
}

// ---- shapes and data movement
add('minus_one', 'Reshape', { ...T(), Tshape: A.type('int32') }, [randn([2, 3, 4]), i32([4, -1])], (x) => tf.reshape(x, [4, -1]));
add('perm_0_2_1', 'Transpose', { ...T(), Tperm: A.type('int32') }, [randn([2, 3, 4]), i32([0, 2, 1])], (x) => tf.transpose(x, [0, 2, 1]));
add('nhwc_to_nchw', 'Transpose', { ...T(), Tperm: A.type('int32') }, [randn([1, 2, 3, 4]), i32([0, 3, 1, 2])], (x) => tf.transpose(x, [0, 3, 1, 2]));
add('negative_axis', 'ConcatV2', { ...T(), N: A.i(2), Tidx: A.type('int32') }, [randn([2, 3]), randn([2, 2]), tf.scalar(-1, 'int32')], (a, b) => tf.concat([a, b], -1));
add('axis1', 'Pack', { ...T(), N: A.i(3), axis: A.i(1) }, [randn([2, 3]), randn([2, 3]), randn([2, 3])], (a, b, c) => tf.stack([a, b, c], 1));
add('axis0', 'Unpack', { ...T(), num: A.i(3), axis: A.i(0) }, [randn([3, 2])], (x) => tf.unstack(x, 0));
add('three_ways', 'Split', { ...T(), num_split: A.i(3) }, [tf.scalar(1, 'int32'), randn([2, 6])], (d, x) => tf.split(x, 3, 1));
add('with_minus_one', 'SplitV', { ...T(), num_split: A.i(3), Tlen: A.type('int32') }, [randn([7, 2]), i32([2, -1, 1]), tf.scalar(0, 'int32')], (x) => tf.split(x, [2, 4, 1], 0));
add('size_minus_one', 'Slice', { ...T(), Index: A.type('int32') }, [randn([4, 5]), i32([1, 2]), i32([2, -1])], (x) => tf.slice(x, [1, 2], [2, -1]));
const ss = (b, e, el, n, s) => ({ ...T(), Index: A.type('int32'), begin_mask: A.i(b), end_mask: A.i(e), ellipsis_mask: A.i(el), new_axis_mask: A.i(n), shrink_axis_mask: A.i(s) });
add('shrink_middle', 'StridedSlice', ss(5, 5, 0, 0, 2), [randn([2, 4, 3]), i32([0, 3, 0]), i32([0, 4, 0]), i32([1, 1, 1])], (x, b, e, s) => tf.stridedSlice(x, [0, 3, 0], [0, 4, 0], [1, 1, 1], 5, 5, 0, 0, 2));
add('ellipsis', 'StridedSlice', ss(0, 0, 1, 0, 0), [randn([2, 3, 4]), i32([0, 1]), i32([0, 4]), i32([1, 1])], (x) => tf.stridedSlice(x, [0, 1], [0, 4], [1, 1], 0, 0, 1, 0, 0));
add('reverse_stride', 'StridedSlice', ss(1, 1, 0, 0, 0), [randn([6]), i32([0]), i32([0]), i32([-2])], (x) => tf.stridedSlice(x, [0], [0], [-2], 1, 1));
add('new_axis', 'StridedSlice', ss(0, 0, 0, 1, 0), [randn([3, 2]), i32([0, 0]), i32([1, 2]), i32([1, 1])], (x) => tf.stridedSlice(x, [0, 0], [1, 2], [1, 1], 0, 0, 0, 1, 0));
add('clamped', 'StridedSlice', ss(0, 0, 0, 0, 0), [randn([5]), i32([-10]), i32([10]), i32([2])], (x) => tf.stridedSlice(x, [-10], [10], [2]));
add('zeros', 'Pad', { ...T(), Tpaddings: A.type('int32') }, [randn([2, 3]), i32([1, 0, 2, 1], [2, 2])], (x) => tf.pad(x, [[1, 0], [2, 1]]));
add('constant', 'PadV2', { ...T(), Tpaddings: A.type('int32') }, [randn([2, 2]), i32([1, 1, 0, 2], [2, 2]), tf.scalar(3.5)], (x) => tf.pad(x, [[1, 1], [0, 2]], 3.5));
add('reflect', 'MirrorPad', { ...T(), Tpaddings: A.type('int32'), mode: A.s('REFLECT') }, [randn([3, 4]), i32([2, 1, 1, 3], [2, 2])], (x) => tf.mirrorPad(x, [[2, 1], [1, 3]], 'reflect'));
add('symmetric', 'MirrorPad', { ...T(), Tpaddings: A.type('int32'), mode: A.s('SYMMETRIC') }, [randn([3, 4]), i32([2, 1, 1, 3], [2, 2])], (x) => tf.mirrorPad(x, [[2, 1], [1, 3]], 'symmetric'));
add('2d', 'Tile', { ...T(), Tmultiples: A.type('int32') }, [randn([2, 3]), i32([2, 2])], (x) => tf.tile(x, [2, 2]));
add('row_to_matrix', 'BroadcastTo', { ...T(), Tidx: A.type('int32') }, [randn([1, 3]), i32([4, 3])], (x) => tf.broadcastTo(x, [4, 3]));
add('float', 'Fill', { ...T(), index_type: A.type('int32') }, [i32([2, 3]), tf.scalar(1.25)], () => tf.fill([2, 3], 1.25));
add('int', 'Range', { Tidx: A.type('int32') }, [tf.scalar(3, 'int32'), tf.scalar(17, 'int32'), tf.scalar(4, 'int32')], () => tf.range(3, 17, 4, 'int32'));
add('axis1', 'GatherV2', { Tparams: A.type('float32'), Tindices: A.type('int32'), Taxis: A.type('int32'), batch_dims: A.i(0) },
  [randn([3, 4]), i32([3, 0, 0, 2]), tf.scalar(1, 'int32')], (x, idx) => tf.gather(x, idx, 1));
add('batch_dims1', 'GatherV2', { Tparams: A.type('float32'), Tindices: A.type('int32'), Taxis: A.type('int32'), batch_dims: A.i(1) },
  [randn([2, 4, 3]), i32([1, 3, 0, 0], [2, 2]), tf.scalar(1, 'int32')], (x, idx) => tf.gather(x, idx, 1, 1));
add('pairs', 'GatherNd', { Tparams: A.type('float32'), Tindices: A.type('int32') }, [randn([3, 4, 2]), i32([0, 1, 2, 3], [2, 2])], (x, idx) => tf.gatherND(x, idx));
add('block2_pad', 'SpaceToBatchND', { ...T(), Tblock_shape: A.type('int32'), Tpaddings: A.type('int32') },
  [randn([1, 5, 4, 2]), i32([2, 2]), i32([1, 0, 0, 0], [2, 2])], (x) => tf.spaceToBatchND(x, [2, 2], [[1, 0], [0, 0]]));
add('block2_crop', 'BatchToSpaceND', { ...T(), Tblock_shape: A.type('int32'), Tcrops: A.type('int32') },
  [randn([4, 3, 2, 2]), i32([2, 2]), i32([1, 0, 0, 1], [2, 2])], (x) => tf.batchToSpaceND(x, [2, 2], [[1, 0], [0, 1]]));
add('block2', 'DepthToSpace', { ...T(), block_size: A.i(2), data_format: A.s('NHWC') }, [randn([1, 2, 3, 8])], (x) => tf.depthToSpace(x, 2));
add('axes', 'ReverseV2', { ...T(), Tidx: A.type('int32') }, [randn([2, 3, 4]), i32([0, 2])], (x) => tf.reverse(x, [0, 2]));
add('depth4', 'OneHot', { T: A.type('float32'), TI: A.type('int32'), axis: A.i(-1) }, [i32([0, 3, -1, 2]), tf.scalar(4, 'int32'), tf.scalar(2.0), tf.scalar(-1.0)],
  (idx) => tf.oneHot(idx, 4, 2, -1, 'float32'));
add('k3', 'TopKV2', { ...T(), sorted: A.b(true) }, [randn([2, 6]), tf.scalar(3, 'int32')], (x) => { const r = tf.topk(x, 3, true); return [r.values, r.indices]; });
add('all_unit_dims', 'Squeeze', { ...T(), squeeze_dims: A.li([]) }, [randn([1, 3, 1, 2])], (x) => tf.squeeze(x));
add('negative_dim', 'ExpandDims', { ...T(), Tdim: A.type('int32') }, [randn([2, 3]), tf.scalar(-1, 'int32')], (x) => tf.expandDims(x, -1));

// ---- edge shapes and values
add('empty', 'AddV2', T(), [tf.zeros([0, 3]), randn([3])], tf.add);
add('nan_inf', 'Relu', T(), [tf.tensor([NaN, -Infinity, Infinity, -1, 2])], tf.relu);
add('nan_inf', 'IsNan', T(), [tf.tensor([NaN, -Infinity, Infinity, 0])], tf.isNaN);
add('nan_inf', 'IsInf', T(), [tf.tensor([NaN, -Infinity, Infinity, 0])], tf.isInf);
add('size1_broadcast', 'Mul', T(), [randn([1, 3, 1]), randn([2, 1, 4])], tf.mul);
add('same_stride2_odd', 'Conv2D', conv([1, 2, 2, 1], 'SAME'), [randn([1, 7, 7, 2]), randn([3, 3, 2, 2])], (x, f) => tf.conv2d(x, f, 2, 'same'));
add('negative_axis', 'GatherV2', { Tparams: A.type('float32'), Tindices: A.type('int32'), Taxis: A.type('int32'), batch_dims: A.i(0) },
  [randn([2, 3]), i32([2, 0]), tf.scalar(-1, 'int32')], (x, idx) => tf.gather(x, idx, -1));
add('negative_axis_exclusive', 'Cumsum', { ...red, exclusive: A.b(true), reverse: A.b(false) }, [randn([3, 4]), tf.scalar(-1, 'int32')], (x) => tf.cumsum(x, 1, true));  // tfjs mishandles axis -1
add('ties_lower_index_first', 'TopKV2', { ...T(), sorted: A.b(true) }, [tf.tensor([1, 3, 3, 2, 3]), tf.scalar(3, 'int32')], (x) => { const r = tf.topk(x, 3); return [r.values, r.indices]; });

// ---- attention / transformer pieces
add('basic', 'Atan2', T(), [randn([2, 4]), randn([2, 4])], tf.atan2);
add('channel_alpha', 'Prelu', T(), [randn([2, 3], -2, 2), randn([3])], tf.prelu);
add('int32', 'BatchMatMulV3', { Ta: A.type('int32'), Tb: A.type('int32'), Tout: A.type('int32'), adj_x: A.b(false), adj_y: A.b(false) },
  [randint([2, 2, 3], -5, 5), randint([2, 3, 2], -5, 5)], (a, b) => tf.matMul(a, b));
const einsum = (eq, n) => ({ equation: A.s(eq), N: A.i(n), T: A.type('float32') });
add('matmul', 'Einsum', einsum('ij,jk->ik', 2), [randn([3, 4]), randn([4, 2])], (a, b) => tf.einsum('ij,jk->ik', a, b));
add('attention_scores', 'Einsum', einsum('bqhd,bkhd->bhqk', 2), [randn([2, 3, 2, 4]), randn([2, 5, 2, 4])], (a, b) => tf.einsum('bqhd,bkhd->bhqk', a, b));
add('transpose', 'Einsum', einsum('ij->ji', 1), [randn([2, 3])], (a) => tf.einsum('ij->ji', a));
add('reduce', 'Einsum', einsum('bij->b', 1), [randn([2, 3, 4])], (a) => tf.einsum('bij->b', a));

// ---- Estimator / TFX preprocessing
const str = (values, shape) => tf.tensor(values, shape ?? [values.length], 'string');
add('doc_example', 'StringToHashBucketFast', { num_buckets: A.i(3) }, [str(['Hello', 'TensorFlow', '2.x'])],
  (x) => tf.string.stringToHashBucketFast(x, 3), { outDtypes: ['int64'] });
add('vocabulary_1000', 'StringToHashBucketFast', { num_buckets: A.i(1000) },
  [str(['', 'a', 'ab', 'abc', 'the quick brown fox', 'x'.repeat(17), 'y'.repeat(33), 'z'.repeat(65), 'caf\u00e9', 'A longer sentence of more than sixty-four bytes in total, to reach the long path.'], [2, 5])],
  (x) => tf.string.stringToHashBucketFast(x, 1000), { outDtypes: ['int64'] });
add('single_char_sep', 'StringSplitV2', { maxsplit: A.i(-1) }, [str(['a,b,,c', 'd', ',e,']), tf.scalar(',', 'string')],
  (x) => { const r = tf.string.stringSplit(x, ',', false); return [r.indices, r.values, r.shape]; }, { outDtypes: ['int64', 'string', 'int64'] });
add('literal', 'StaticRegexReplace', { pattern: A.s('[0-9]+'), rewrite: A.s('#'), replace_global: A.b(true) }, [str(['a1b22c', 'none', '333'])],
  (x) => tf.string.staticRegexReplace(x, '[0-9]+', '#', true));
add('first_occurrence_order', 'Unique', { T: A.type('float32'), out_idx: A.type('int32') }, [tf.tensor([3, 1, 3, 2, 1, 5])], (x) => { const r = tf.unique(x); return [r.values, r.indices]; });
add('int', 'Unique', { T: A.type('int32'), out_idx: A.type('int32') }, [i32([7, 7, -1, 0, -1])], (x) => { const r = tf.unique(x); return [r.values, r.indices]; });
const whereIn = tf.tensor([[true, false, true], [false, false, true]], [2, 3], 'bool');
const whereOut = await tf.whereAsync(whereIn);
add('bool_2d', 'Where', { T: A.type('bool') }, [whereIn], () => whereOut, { outDtypes: ['int64'] });
const whereF = tf.tensor([0, -0.5, 0, 2]);
const whereFOut = await tf.whereAsync(tf.notEqual(whereF, 0));
add('float_1d', 'Where', { T: A.type('float32') }, [whereF], () => whereFOut, { outDtypes: ['int64'] });
const sortedSeq = tf.tensor([[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]]);
const searchVals = tf.tensor([[2, 4, 9, -1], [0, 2, 6, 5]]);
add('float', 'LowerBound', { T: A.type('float32'), out_type: A.type('int32') }, [sortedSeq, searchVals], (s, v) => tf.searchSorted(s, v, 'left'));
add('float', 'UpperBound', { T: A.type('float32'), out_type: A.type('int32') }, [sortedSeq, searchVals], (s, v) => tf.searchSorted(s, v, 'right'));
add('2d', 'SparseToDense', { T: A.type('float32'), Tindices: A.type('int32'), validate_indices: A.b(true) },
  [i32([0, 1, 1, 0, 2, 3], [3, 2]), i32([3, 4]), randn([3]), tf.scalar(-2)],
  (idx, shape, vals, def) => tf.sparseToDense(idx, vals, [3, 4], def));
add('scalar_value_1d', 'SparseToDense', { T: A.type('int32'), Tindices: A.type('int32'), validate_indices: A.b(true) },
  [i32([1, 4]), i32([6]), tf.scalar(9, 'int32'), tf.scalar(0, 'int32')],
  (idx, shape, vals, def) => tf.sparseToDense(idx, vals, [6], def));
add('unordered_with_empty_rows', 'SparseFillEmptyRows', { T: A.type('float32') },
  [i32([0, 0, 1, 0, 1, 3, 1, 4, 3, 2, 3, 3], [6, 2]), randn([6]), i32([5, 6]), tf.scalar(-1)],
  (i, v, s, d) => { const r = tf.sparse.sparseFillEmptyRows(i, v, s, d); return [r.outputIndices, r.outputValues, r.emptyRowIndicator, r.reverseIndexMap]; },
  { inDtypes: ['int64', undefined, 'int64'], outDtypes: ['int64', undefined, undefined, 'int64'] });
add('minus_one', 'SparseReshape', {}, [i32([0, 0, 0, 1, 2, 3], [2, 3]), i32([2, 3, 6]), i32([9, -1])],
  (i, s, n) => { const r = tf.sparse.sparseReshape(i, s, n); return [r.outputIndices, r.outputShape]; },
  { inDtypes: ['int64', 'int64', 'int64'], outDtypes: ['int64', 'int64'] });
const segAttrs = { T: A.type('float32'), Tidx: A.type('int32'), Tsegmentids: A.type('int32') };
add('with_gap', 'SparseSegmentSum', segAttrs, [randn([4, 3]), i32([0, 3, 1, 1]), i32([0, 0, 2, 2])], tf.sparse.sparseSegmentSum);
add('with_gap', 'SparseSegmentMean', segAttrs, [randn([4, 3]), i32([0, 3, 1, 2]), i32([0, 0, 1, 3])], tf.sparse.sparseSegmentMean);

// ---- detection post-processing
const nmsBoxes = tf.tensor([0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100, 1, 101], [6, 4]);
const nmsScores = tf.tensor([0.9, 0.75, 0.6, 0.95, 0.5, 0.3]);
const randBoxes = (n) => { const d = []; for (let i = 0; i < n; i++) { const y = rand(), x = rand(); d.push(y, x, y + 0.2 + 0.3 * rand(), x + 0.2 + 0.3 * rand()); } return tf.tensor(d, [n, 4]); };
add('three_clusters', 'NonMaxSuppressionV3', { T: A.type('float32'), T_threshold: A.type('float32') },
  [nmsBoxes, nmsScores, tf.scalar(3, 'int32'), tf.scalar(0.5), tf.scalar(0.0)], (b, s) => tf.image.nonMaxSuppression(b, s, 3, 0.5, 0.0));
const rb = randBoxes(12), rs = randn([12], 0, 1);
add('random_overlaps', 'NonMaxSuppressionV3', { T: A.type('float32'), T_threshold: A.type('float32') },
  [rb, rs, tf.scalar(8, 'int32'), tf.scalar(0.3), tf.scalar(0.2)], (b, s) => tf.image.nonMaxSuppression(b, s, 8, 0.3, 0.2));
add('padded', 'NonMaxSuppressionV4', { T: A.type('float32'), T_threshold: A.type('float32'), pad_to_max_output_size: A.b(true) },
  [nmsBoxes, nmsScores, tf.scalar(5, 'int32'), tf.scalar(0.5), tf.scalar(0.0)],
  (b, s) => { const r = tf.image.nonMaxSuppressionPadded(b, s, 5, 0.5, 0.0, true); return [r.selectedIndices, r.validOutputs]; });
add('soft_nms', 'NonMaxSuppressionV5', { T: A.type('float32'), pad_to_max_output_size: A.b(false) },
  [rb, rs, tf.scalar(10, 'int32'), tf.scalar(0.6), tf.scalar(0.1), tf.scalar(0.5)],
  (b, s) => { const r = tf.image.nonMaxSuppressionWithScore(b, s, 10, 0.6, 0.1, 0.5); return [r.selectedIndices, r.selectedScores, tf.scalar(r.selectedIndices.size, 'int32')]; });
const crop = (method, ext) => ({ T: A.type('float32'), method: A.s(method), extrapolation_value: A.f(ext) });
const cropImg = randn([2, 5, 7, 2]);
const cropBoxes = tf.tensor([0.1, 0.2, 0.8, 0.9, 0.9, 0.8, 0.0, 0.1, -0.2, 0.3, 1.3, 0.7, 0.4, 0.4, 0.4, 0.4], [4, 4]);
add('bilinear_flipped_and_outside', 'CropAndResize', crop('bilinear', -3.5), [cropImg, cropBoxes, i32([0, 1, 0, 1]), i32([3, 4])],
  (img, b, bi) => tf.image.cropAndResize(img, b, bi, [3, 4], 'bilinear', -3.5));
// Image 5x7 and these boxes put no nearest-neighbour sample within float
// rounding of a .5 (TensorFlow computes positions in float32, TensorFlow.js in
// float64, so a tie may round either way).
add('nearest', 'CropAndResize', crop('nearest', 0), [cropImg, cropBoxes, i32([1, 0, 1, 0]), i32([4, 4])],
  (img, b, bi) => tf.image.cropAndResize(img, b, bi, [4, 4], 'nearest', 0));
add('single_cell', 'CropAndResize', crop('bilinear', 0), [cropImg, cropBoxes, i32([0, 0, 1, 1]), i32([1, 1])],
  (img, b, bi) => tf.image.cropAndResize(img, b, bi, [1, 1], 'bilinear', 0));

// ---- coverage of the remaining element-wise, reduction and layout ops
for (const [op, fn, lo, hi] of [['Acos', tf.acos, -0.99, 0.99], ['Asin', tf.asin, -0.99, 0.99], ['Atan', tf.atan, -5, 5],
  ['Acosh', tf.acosh, 1.01, 6], ['Asinh', tf.asinh, -5, 5], ['Atanh', tf.atanh, -0.99, 0.99], ['Cosh', tf.cosh, -3, 3],
  ['Sinh', tf.sinh, -3, 3], ['Tan', tf.tan, -1.4, 1.4], ['Expm1', tf.expm1, -3, 3], ['Log1p', tf.log1p, -0.9, 5]]) {
  add('range', op, T(), [randn([2, 5], lo, hi)], fn);
}
add('halves_to_even', 'Rint', T(), [tf.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6])], tf.round);
add('nan_inf', 'IsFinite', T(), [tf.tensor([NaN, -Infinity, Infinity, 0, -3])], tf.isFinite);
add('nonzero', 'Inv', T(), [randn([6], 0.5, 3)], tf.reciprocal);
add('broadcast', 'Div', T(), [randn([2, 3]), randn([3], 0.5, 2)], tf.div);
add('zero_divisor', 'DivNoNan', T(), [randn([4]), tf.tensor([1.5, 0, -2, 0])], tf.divNoNan);
add('exclusive_reverse', 'Cumprod', { ...red, exclusive: A.b(true), reverse: A.b(true) }, [randn([2, 4], 0.5, 1.5), tf.scalar(1, 'int32')],
  (x) => tf.cumprod(x, 1, true, true));
add('axis1', 'EuclideanNorm', { ...red, keep_dims: A.b(false) }, [randn([3, 4]), i32([1])], (x) => tf.euclideanNorm(x, 1));
add('radius2', 'LRN', { T: A.type('float32'), depth_radius: A.i(2), bias: A.f(1.0), alpha: A.f(0.5), beta: A.f(0.75) },
  [randn([1, 2, 2, 6])], (x) => tf.localResponseNormalization(x, 2, 1.0, 0.5, 0.75));
add('band_1_0', 'MatrixBandPart', { T: A.type('float32'), Tindex: A.type('int64') }, [randn([2, 4, 4]), tf.scalar(1, 'int32'), tf.scalar(0, 'int32')],
  (x) => tf.linalg.bandPart(x, 1, 0), { inDtypes: [undefined, 'int64', 'int64'] });
add('2x2_s2_same', 'MaxPoolV2', { T: A.type('float32'), padding: A.s('SAME'), data_format: A.s('NHWC') },
  [randn([1, 5, 5, 2]), i32([1, 2, 2, 1]), i32([1, 2, 2, 1])], (x) => tf.maxPool(x, 2, 2, 'same'));
add('float', 'OnesLike', T(), [randn([2, 3])], tf.onesLike);
add('float', 'ZerosLike', T(), [randn([2, 3])], tf.zerosLike);
add('vector_condition_picks_rows', 'Select', T(), [tf.tensor([true, false], [2], 'bool'), randn([2, 3]), randn([2, 3])],
  (c, a, b) => tf.where(tf.tile(tf.reshape(c, [2, 1]), [1, 3]), a, b));
add('2d_indices', 'ScatterNd', { T: A.type('float32'), Tindices: A.type('int32') }, [i32([0, 1, 2, 0, 0, 1], [3, 2]), randn([3]), i32([3, 2])],
  (idx, upd) => tf.scatterND(idx, upd, [3, 2]));
add('axis0', 'Gather', { Tparams: A.type('float32'), Tindices: A.type('int32'), validate_indices: A.b(true) }, [randn([4, 2]), i32([3, 0, 3])], (x, i) => tf.gather(x, i));
add('axis_first', 'Concat', { ...T(), N: A.i(2) }, [tf.scalar(1, 'int32'), randn([2, 2]), randn([2, 3])], (ax, a, b) => tf.concat([a, b], 1));
add('batched', 'BatchMatMul', { ...T(), adj_x: A.b(true), adj_y: A.b(false) }, [randn([2, 4, 3]), randn([2, 4, 2])], (a, b) => tf.matMul(a, b, true, false));
add('bias', 'BiasAddV1', T(), [randn([2, 3]), randn([3])], (x, b) => tf.add(x, b));
add('inference', 'FusedBatchNorm', { ...T(), epsilon: A.f(0.001), data_format: A.s('NHWC'), is_training: A.b(false) },
  [randn([1, 2, 2, 3]), randn([3], 0.5, 2), randn([3]), randn([3]), randn([3], 0.5, 2)],
  (x, scale, offset, mean, variance) => [tf.batchNorm(x, mean, variance, offset, scale, 0.001)]);
cases[cases.length - 1].only_outputs = [0];
add('inference', 'FusedBatchNormV2', { ...T(), U: A.type('float32'), epsilon: A.f(0.001), data_format: A.s('NHWC'), is_training: A.b(false) },
  [randn([1, 2, 2, 3]), randn([3], 0.5, 2), randn([3]), randn([3]), randn([3], 0.5, 2)],
  (x, scale, offset, mean, variance) => [tf.batchNorm(x, mean, variance, offset, scale, 0.001)]);
cases[cases.length - 1].only_outputs = [0];
add('no_score_threshold', 'NonMaxSuppressionV2', { T: A.type('float32'), T_threshold: A.type('float32') },
  [nmsBoxes, nmsScores, tf.scalar(4, 'int32'), tf.scalar(0.5)], (b, s) => tf.image.nonMaxSuppression(b, s, 4, 0.5));
// Grappler's fused kernels, against tfjs's fused ops.
const fusedConv = (ops, n, strides, padding) => ({ ...T(), num_args: A.i(n), strides: A.li(strides), padding: A.s(padding),
  data_format: A.s('NHWC'), dilations: A.li([1, 1, 1, 1]), fused_ops: A.ls(ops), epsilon: A.f(0.0001) });
add('bias_relu', '_FusedConv2D', fusedConv(['BiasAdd', 'Relu'], 1, [1, 1, 1, 1], 'SAME'), [randn([1, 5, 5, 3]), randn([3, 3, 3, 4]), randn([4])],
  (x, f, b) => tf.fused.conv2d({ x, filter: f, strides: 1, pad: 'same', bias: b, activation: 'relu' }));
add('bias_relu6_stride2', '_FusedConv2D', fusedConv(['BiasAdd', 'Relu6'], 1, [1, 2, 2, 1], 'VALID'), [randn([1, 7, 7, 2], -3, 3), randn([3, 3, 2, 3]), randn([3])],
  (x, f, b) => tf.fused.conv2d({ x, filter: f, strides: 2, pad: 'valid', bias: b, activation: 'relu6' }));
add('bias_relu', 'FusedDepthwiseConv2dNative', fusedConv(['BiasAdd', 'Relu'], 1, [1, 1, 1, 1], 'SAME'), [randn([1, 5, 5, 3]), randn([3, 3, 3, 1]), randn([3])],
  (x, f, b) => tf.fused.depthwiseConv2d({ x, filter: f, strides: 1, pad: 'same', bias: b, activation: 'relu' }));
add('bias_relu', '_FusedMatMul', { ...T(), transpose_a: A.b(false), transpose_b: A.b(true), num_args: A.i(1), fused_ops: A.ls(['BiasAdd', 'Relu']), epsilon: A.f(0.0001) },
  [randn([3, 4]), randn([5, 4]), randn([5])], (a, b, bias) => tf.fused.matMul({ a, b, transposeB: true, bias, activation: 'relu' }));
// RaggedTensorToTensor (RaggedTensor.to_tensor in TF2 text pipelines).
const r2t = (types) => ({ T: A.type('float32'), Tindex: A.type('int64'), Tshape: A.type('int64'), num_row_partition_tensors: A.i(types.length), row_partition_types: A.ls(types) });
add('row_splits', 'RaggedTensorToTensor', r2t(['ROW_SPLITS']), [i32([-1, -1]), randn([6]), tf.scalar(0.5), i32([0, 2, 2, 5, 6])],
  (s, v, d, p) => tf.raggedTensorToTensor(s, v, d, [p], ['ROW_SPLITS']), { inDtypes: ['int64', undefined, undefined, 'int64'] });
add('value_rowids_truncated', 'RaggedTensorToTensor', r2t(['FIRST_DIM_SIZE', 'VALUE_ROWIDS']),
  [i32([-1, 2]), randn([5]), tf.scalar(-1), tf.scalar(4, 'int32'), i32([0, 0, 0, 2, 3])],
  (s, v, d, n, ids) => tf.raggedTensorToTensor(s, v, d, [n, ids], ['FIRST_DIM_SIZE', 'VALUE_ROWIDS']), { inDtypes: ['int64', undefined, undefined, 'int64', 'int64'] });
add('two_levels_inner_dim', 'RaggedTensorToTensor', r2t(['ROW_SPLITS', 'ROW_SPLITS']),
  [i32([-1, -1, -1, 2]), randn([4, 2]), tf.scalar(0), i32([0, 2, 3]), i32([0, 1, 3, 4])],
  (s, v, d, a, b) => tf.raggedTensorToTensor(s, v, d, [a, b], ['ROW_SPLITS', 'ROW_SPLITS']), { inDtypes: ['int64', undefined, undefined, 'int64', 'int64'] });
// Bincount / DenseBincount (Keras CategoryEncoding, TextVectorization counts).
add('weighted', 'Bincount', { T: A.type('float32') }, [i32([1, 1, 3, 0, 2, 3, 6]), tf.scalar(5, 'int32'), randn([7])],
  (x, s, w) => tf.bincount(x, w, 5));
add('counts', 'Bincount', { T: A.type('int32') }, [i32([1, 1, 3, 0, 2, 3, 6]), tf.scalar(5, 'int32'), tf.tensor([], [0], 'int32')],
  (x, s, w) => tf.bincount(x, w, 5));
add('rows_binary', 'DenseBincount', { Tidx: A.type('int32'), T: A.type('float32'), binary_output: A.b(true) },
  [i32([0, 2, 2, 1, 4, 4], [2, 3]), tf.scalar(4, 'int32'), tf.tensor([], [0], 'float32')], (x, s, w) => tf.denseBincount(x, w, 4, true));
add('rows_counts', 'DenseBincount', { Tidx: A.type('int32'), T: A.type('float32'), binary_output: A.b(false) },
  [i32([0, 2, 2, 1, 1, 1], [2, 3]), tf.scalar(3, 'int32'), tf.tensor([], [0], 'float32')], (x, s, w) => tf.denseBincount(x, w, 3, false));
// StringNGrams (tf.strings.ngrams, TextVectorization ngrams).
const ngrams = (sep, widths, lp, rp, pw, pss) => ({ separator: A.s(sep), ngram_widths: A.li(widths), left_pad: A.s(lp), right_pad: A.s(rp),
  pad_width: A.i(pw), preserve_short_sequences: A.b(pss), Tsplits: A.type('int64') });
const ngData = str(['a', 'b', 'c', 'd', 'e', 'f']);
for (const [name, sep, widths, lp, rp, pw, pss] of [
  ['bigrams_trigrams', ' ', [2, 3], '', '', 0, false], ['padded_auto', '|', [3], 'L', 'R', -1, false],
  ['pad1_unigrams_bigrams', '_', [1, 2], '<', '>', 1, false], ['preserve_short', ' ', [4], '', '', 0, true]]) {
  add(name, 'StringNGrams', ngrams(sep, widths, lp, rp, pw, pss), [ngData, i32([0, 3, 3, 4, 6])],
    (d, sp) => { const r = tf.string.stringNGrams(d, sp, sep, widths, lp, rp, pw, pss); return [r.nGrams, r.nGramsSplits]; },
    { inDtypes: [undefined, 'int64'], outDtypes: ['string', 'int64'] });
}
add('float', 'Identity', T(), [randn([2, 2])], (x) => x);
add('float', 'Snapshot', T(), [randn([3])], (x) => x);
add('float', 'StopGradient', T(), [randn([3])], (x) => x);

// RaggedRange / RaggedGather (tf.ragged.range, gathers on ragged features).
add('broadcast_scalar_limit', 'RaggedRange', { T: A.type('int32'), Tsplits: A.type('int64') },
  [i32([0, 5, 2, 7]), tf.scalar(4, 'int32'), i32([1, -2, 3, 1])],
  (s, l, d) => { const r = tf.raggedRange(s, l, d); return [r.rtNestedSplits, r.rtDenseValues]; }, { outDtypes: ['int64', 'int32'] });
add('float_steps', 'RaggedRange', { T: A.type('float32'), Tsplits: A.type('int64') },
  [tf.tensor([0, 1.5, -1]), tf.tensor([1, 0, 1]), tf.tensor([0.25, -0.5, 0.75])],
  (s, l, d) => { const r = tf.raggedRange(s, l, d); return [r.rtNestedSplits, r.rtDenseValues]; }, { outDtypes: ['int64', 'float32'] });
const raggedGatherAttrs = (pr, or) => ({ Tvalues: A.type('float32'), Tindices: A.type('int32'), Tsplits: A.type('int64'),
  PARAMS_RAGGED_RANK: A.i(pr), OUTPUT_RAGGED_RANK: A.i(or) });
add('one_level', 'RaggedGather', raggedGatherAttrs(1, 1), [i32([0, 2, 2, 5, 6]), randn([6, 2]), i32([3, 0, 2, 0])],
  (sp, v, ix) => { const r = tf.raggedGather([sp], v, ix, 1); return [...r.outputNestedSplits, r.outputDenseValues]; },
  { inDtypes: ['int64'], outDtypes: ['int64', 'float32'] });
add('two_levels_2d_indices', 'RaggedGather', raggedGatherAttrs(2, 3),
  [i32([0, 2, 3, 5]), i32([0, 1, 3, 3, 4, 6]), randn([6]), i32([2, 0, 1, 2], [2, 2])],
  (a, b, v, ix) => { const r = tf.raggedGather([a, b], v, ix, 3); return [...r.outputNestedSplits, r.outputDenseValues]; },
  { inDtypes: ['int64', 'int64'], outDtypes: ['int64', 'int64', 'int64', 'float32'] });
// TensorScatterUpdate, UnsortedSegmentSum, LinSpace, BroadcastArgs, EnsureShape.
add('rows', 'TensorScatterUpdate', { T: A.type('float32'), Tindices: A.type('int32') },
  [randn([4, 3]), i32([3, 1], [2, 1]), randn([2, 3])], (t, i, u) => tf.tensorScatterUpdate(t, i, u));
add('elements', 'TensorScatterUpdate', { T: A.type('int32'), Tindices: A.type('int32') },
  [randint([2, 3], -9, 9), i32([0, 2, 1, 0], [2, 2]), randint([2], 10, 20)], (t, i, u) => tf.tensorScatterUpdate(t, i, u));
add('rows', 'UnsortedSegmentSum', { T: A.type('float32'), Tindices: A.type('int32'), Tnumsegments: A.type('int32') },
  [randn([5, 2]), i32([2, 0, 2, 3, 0]), tf.scalar(4, 'int32')], (x, ids) => tf.unsortedSegmentSum(x, ids, 4));
add('five', 'LinSpace', { T: A.type('float32'), Tidx: A.type('int32') }, [tf.scalar(-1.5), tf.scalar(2), tf.scalar(5, 'int32')],
  () => tf.linspace(-1.5, 2, 5));
add('rank_3_and_2', 'BroadcastArgs', { T: A.type('int32') }, [i32([2, 1, 3]), i32([4, 1])], (a, b) => tf.broadcastArgs(a, b));
add('partial', 'EnsureShape', { T: A.type('float32'), shape: { shape: [-1, 3] } }, [randn([2, 3])], (x) => tf.ensureShape(x, [null, 3]));

// Spectral ops of tf.signal front ends (complex64 as interleaved pairs).
const C64 = { outDtypes: ['complex64'] };
add('pow2_length', 'RFFT', { Treal: A.type('float32'), Tcomplex: A.type('complex64') }, [randn([2, 8]), i32([8])],
  (x) => tf.spectral.rfft(x, 8), C64);
add('odd_length_crops', 'RFFT', { Treal: A.type('float32'), Tcomplex: A.type('complex64') }, [randn([3, 7]), i32([5])],
  (x) => tf.spectral.rfft(x, 5), C64);
add('pads_to_length', 'RFFT', { Treal: A.type('float32'), Tcomplex: A.type('complex64') }, [randn([6]), i32([10])],
  (x) => tf.spectral.rfft(x, 10), C64);
const cplx = (shape) => tf.complex(randn(shape), randn(shape));
add('five_bins_to_eight', 'IRFFT', { Treal: A.type('float32'), Tcomplex: A.type('complex64') },
  [cplx([2, 5]), i32([8])], (x) => tf.spectral.irfft(x), { inDtypes: ['complex64'] });
add('length_6', 'FFT', { Tcomplex: A.type('complex64') }, [cplx([2, 6])], (x) => tf.spectral.fft(x), { inDtypes: ['complex64'], outDtypes: ['complex64'] });
add('length_8', 'IFFT', { Tcomplex: A.type('complex64') }, [cplx([8])], (x) => tf.spectral.ifft(x), { inDtypes: ['complex64'], outDtypes: ['complex64'] });
add('magnitude', 'ComplexAbs', { T: A.type('complex64'), Tout: A.type('float32') }, [cplx([3, 4])], (x) => tf.abs(x), { inDtypes: ['complex64'] });
add('parts', 'Real', { T: A.type('complex64'), Tout: A.type('float32') }, [cplx([5])], (x) => tf.real(x), { inDtypes: ['complex64'] });
add('parts', 'Imag', { T: A.type('complex64'), Tout: A.type('float32') }, [cplx([5])], (x) => tf.imag(x), { inDtypes: ['complex64'] });
add('pairs', 'Complex', { T: A.type('float32'), Tout: A.type('complex64') }, [randn([4]), randn([4])], (a, b) => tf.complex(a, b), C64);

// StringSplit (TF1 tf.string_split): any delimiter character splits.
for (const [name, delim, skip] of [['space', ' ', true], ['two_delims_keep_empty', ',;', false], ['empty_delim_bytes', '', true]]) {
  add(name, 'StringSplit', { skip_empty: A.b(skip) },
    [tf.tensor(['hello world', 'a,,b;c d', '', 'xy'], [4], 'string'), tf.scalar(delim, 'string')],
    (x, d) => { const r = tf.string.stringSplit(x, d, skip); return [r.indices, r.values, r.shape]; },
    { outDtypes: ['int64', 'string', 'int64'] });
}

// Conv3D / MaxPool3D / AvgPool3D (NDHWC; Keras Conv3D and 3-D pooling).
add('same_stride_2', 'Conv3D', { T: A.type('float32'), strides: A.li([1, 2, 2, 1, 1]), padding: A.s('SAME') },
  [randn([1, 5, 4, 3, 2]), randn([3, 2, 2, 2, 3])], (x, f) => tf.conv3d(x, f, [2, 2, 1], 'same'));
add('valid_dilated', 'Conv3D', { T: A.type('float32'), strides: A.li([1, 1, 1, 1, 1]), padding: A.s('VALID'),
  dilations: A.li([1, 2, 1, 1, 1]) }, [randn([2, 5, 3, 3, 1]), randn([2, 2, 2, 1, 2])],
  (x, f) => tf.conv3d(x, f, 1, 'valid', 'NDHWC', [2, 1, 1]));
for (const [op, fn] of [['MaxPool3D', tf.maxPool3d], ['AvgPool3D', tf.avgPool3d]]) {
  add('same_odd', op, { T: A.type('float32'), ksize: A.li([1, 3, 2, 3, 1]), strides: A.li([1, 2, 2, 2, 1]), padding: A.s('SAME') },
    [randn([1, 5, 4, 5, 2])], (x) => fn(x, [3, 2, 3], [2, 2, 2], 'same'));
  add('valid', op, { T: A.type('float32'), ksize: A.li([1, 2, 2, 2, 1]), strides: A.li([1, 1, 1, 1, 1]), padding: A.s('VALID') },
    [randn([2, 3, 3, 3, 1])], (x) => fn(x, 2, 1, 'valid'));
}

add('int32', 'BitwiseAnd', { T: A.type('int32') }, [randint([2, 4], -100, 100), randint([2, 4], -100, 100)], (a, b) => tf.bitwiseAnd(a, b));

// 1x1 _FusedConv2D with MobileNetV2's and BlazeFace's epilogues (tfhost's
// SIMD 1x1 kernel): channels off the 16-lane vectors and the 4-vector
// panels, and a residual Add (TF.js has no fused form of it: conv2d, add,
// relu).
add('pointwise_bias_relu6', '_FusedConv2D', fusedConv(['BiasAdd', 'Relu6'], 1, [1, 1, 1, 1], 'VALID'),
  [randn([1, 5, 7, 40], -3, 3), randn([1, 1, 40, 72]), randn([72])],
  (x, f, b) => tf.fused.conv2d({ x, filter: f, strides: 1, pad: 'valid', bias: b, activation: 'relu6' }));
add('pointwise_bias_residual_relu', '_FusedConv2D', fusedConv(['BiasAdd', 'Add', 'Relu'], 2, [1, 1, 1, 1], 'VALID'),
  [randn([2, 3, 5, 24]), randn([1, 1, 24, 24]), randn([24]), randn([2, 3, 5, 24])],
  (x, f, b, r) => tf.relu(tf.add(tf.add(tf.conv2d(x, f, 1, 'valid'), b), r)));

cases.push(...handCases);

writeCases('generate.mjs', TFJS_REFERENCE, cases);
