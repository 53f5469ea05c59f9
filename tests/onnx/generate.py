#!/usr/bin/env python3
"""Writes the ONNX test models and ONNX Runtime's outputs for fixed inputs,
in the zoo's layout and manifest format (tests/zoo/README.md), so that
tests/onnx/onnx_zoo_test.cc can hold tfhost to them.

    TFHOST_PYTHON_ENV=peers scripts/py tests/onnx/generate.py --out DIR [--zoo ZOO]

Runs in the `peers` environment (requirements/peers.in), which holds onnx,
onnxruntime, tf2onnx and TensorFlow. The models:
  - one per op family, built with onnx.helper (opsets 13 to 26), plus a
    small CNN, an MLP with a symbolic batch dimension, and the CNN with its
    weights in an external data file;
  - a Keras CNN converted by tf2onnx (NHWC Keras layers become Transposes
    around NCHW Convs);
  - with --zoo, every zoo SavedModel's serving_default converted by tf2onnx
    ("zoo_<name>"); those the converter refuses, or ONNX Runtime cannot
    run, are listed under "skipped" with the reason.
Each signature's inputs are random normals (seed 0) or the zoo's own inputs.

Layout:
    DIR/manifest.json
    DIR/<model>/model.onnx (and weights.bin for the external-data model)
    DIR/<model>/io/serving_default/in_<i>.pb, out_<i>.pb   serialized TF TensorProtos
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

F = TensorProto.FLOAT
I64 = TensorProto.INT64
INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def rng():
    return np.random.default_rng(0)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=17, name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="tfhost-onnx-tests")
    m.ir_version = 10 if opset >= 21 else 8
    onnx.checker.check_model(m) if all(o.type.tensor_type.HasField("shape") for o in m.graph.output) else None
    return m


def normal(r, *shape):
    return r.normal(0, 1, shape).astype(np.float32)


# --- the models, one per op family ------------------------------------------

def elementwise(r):
    c4 = normal(r, 4)
    pos = np.abs(normal(r, 3, 1)) + 0.5
    nodes = [
        helper.make_node("Add", ["x", "c4"], ["add"]),
        helper.make_node("Sub", ["add", "y"], ["sub"]),
        helper.make_node("Mul", ["sub", "c31"], ["mul"]),
        helper.make_node("Div", ["mul", "c31"], ["div"]),
        helper.make_node("Abs", ["div"], ["abs"]),
        helper.make_node("Sqrt", ["abs"], ["sqrt"]),
        helper.make_node("Pow", ["sqrt", "two"], ["pow"]),
        helper.make_node("Exp", ["x"], ["exp"]),
        helper.make_node("Log", ["exp"], ["log"]),
        helper.make_node("Neg", ["log"], ["neg"]),
        helper.make_node("Reciprocal", ["c31"], ["rcp"]),
        helper.make_node("Mul", ["neg", "rcp"], ["prod"]),
        helper.make_node("Pow", ["abs", "half_i"], ["powi"]),
        helper.make_node("Max", ["pow", "prod", "c4"], ["max"]),
        helper.make_node("Min", ["pow", "prod"], ["min"]),
        helper.make_node("Sum", ["max", "min", "x"], ["sum"]),
        helper.make_node("Floor", ["sum"], ["floor"]),
    ]
    m = model(nodes, [vi("x", F, [2, 3, 4]), vi("y", F, [3, 4])],
              [vi(n, F, None) for n in ("pow", "prod", "powi", "sum", "floor")],
              [init("c4", c4), init("c31", pos), init("two", np.float32(2)), init("half_i", np.int64(2))], opset=13)
    return m, {"x": normal(r, 2, 3, 4), "y": normal(r, 3, 4)}


def activations(r):
    nodes = [
        helper.make_node("Relu", ["x"], ["relu"]),
        helper.make_node("LeakyRelu", ["x"], ["leaky"], alpha=0.2),
        helper.make_node("Sigmoid", ["x"], ["sigmoid"]),
        helper.make_node("Tanh", ["x"], ["tanh"]),
        helper.make_node("Softmax", ["x"], ["softmax_last"]),
        helper.make_node("Softmax", ["x"], ["softmax_1"], axis=1),
        helper.make_node("LogSoftmax", ["x"], ["logsoftmax"], axis=-2),
        helper.make_node("Clip", ["x", "lo", "hi"], ["clip"]),
        helper.make_node("Clip", ["x", "zero", "six"], ["relu6"]),
        helper.make_node("Clip", ["x", "", "hi"], ["clip_hi"]),
        helper.make_node("HardSigmoid", ["x"], ["hsig"], alpha=0.3, beta=0.4),
        helper.make_node("HardSwish", ["x"], ["hswish"]),
        helper.make_node("Elu", ["x"], ["elu"], alpha=0.5),
        helper.make_node("PRelu", ["x", "slope"], ["prelu"]),
        helper.make_node("Softplus", ["x"], ["softplus"]),
    ]
    outs = ["relu", "leaky", "sigmoid", "tanh", "softmax_last", "softmax_1", "logsoftmax", "clip", "relu6",
            "clip_hi", "hsig", "hswish", "elu", "prelu", "softplus"]
    m = model(nodes, [vi("x", F, [2, 3, 5])], [vi(n, F, [2, 3, 5]) for n in outs],
              [init("lo", np.float32(-0.5)), init("hi", np.float32(0.7)), init("zero", np.float32(0)),
               init("six", np.float32(6)), init("slope", normal(r, 5))], opset=17)
    return m, {"x": normal(r, 2, 3, 5) * 4}


def convolutions(r):
    w = normal(r, 6, 4, 3, 3) * 0.3
    b = normal(r, 6)
    wg = normal(r, 6, 2, 3, 3) * 0.3
    wd = normal(r, 4, 1, 3, 3) * 0.3
    w1 = normal(r, 5, 4, 3) * 0.3
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["conv_pads"], pads=[1, 0, 2, 1], strides=[2, 1]),
        helper.make_node("Conv", ["x", "w"], ["conv_dilated"], dilations=[2, 2], pads=[2, 2, 2, 2]),
        helper.make_node("Conv", ["x", "wg", "b"], ["conv_grouped"], group=2, auto_pad="SAME_UPPER", strides=[2, 2]),
        helper.make_node("Conv", ["x", "wd"], ["conv_depthwise"], group=4, auto_pad="SAME_LOWER", strides=[2, 2]),
        helper.make_node("Conv", ["x", "w"], ["conv_valid"], auto_pad="VALID"),
        helper.make_node("Conv", ["seq", "w1", "b5"], ["conv_1d"], pads=[1, 1], strides=[2]),
    ]
    m = model(nodes, [vi("x", F, [2, 4, 9, 8]), vi("seq", F, [2, 4, 11])],
              [vi(n, F, None) for n in ("conv_pads", "conv_dilated", "conv_grouped", "conv_depthwise", "conv_valid",
                                        "conv_1d")],
              [init("w", w), init("b", b), init("wg", wg), init("wd", wd), init("w1", w1),
               init("b5", normal(r, 5))], opset=22)
    return m, {"x": normal(r, 2, 4, 9, 8), "seq": normal(r, 2, 4, 11)}


def conv_transpose(r):
    w = normal(r, 4, 3, 3, 3) * 0.3
    nodes = [
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["ct_pads"], strides=[2, 2], pads=[1, 1, 1, 1],
                         output_padding=[1, 1]),
        helper.make_node("ConvTranspose", ["x", "w"], ["ct_same"], strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("ConvTranspose", ["x", "w"], ["ct_lower"], strides=[2, 2], auto_pad="SAME_LOWER"),
        helper.make_node("ConvTranspose", ["x", "w"], ["ct_shape"], strides=[2, 3], output_shape=[10, 14]),
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["ct_dilated"], dilations=[2, 1], pads=[0, 1, 2, 0]),
        helper.make_node("ConvTranspose", ["x", "w2"], ["ct_k2"], strides=[2, 2]),
    ]
    outs = ["ct_pads", "ct_same", "ct_lower", "ct_shape", "ct_dilated", "ct_k2"]
    m = model(nodes, [vi("x", F, ["N", 4, 5, 5])], [vi(n, F, None) for n in outs],
              [init("w", w), init("b", normal(r, 3)), init("w2", normal(r, 4, 2, 2, 2))], opset=20)
    return m, {"x": normal(r, 2, 4, 5, 5)}


def pooling(r):
    nodes = [
        helper.make_node("MaxPool", ["x"], ["max_pads"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("MaxPool", ["x"], ["max_ceil"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("MaxPool", ["x"], ["max_same"], kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("AveragePool", ["x"], ["avg_excl"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["x"], ["avg_incl"], kernel_shape=[3, 3], pads=[1, 0, 1, 2],
                         count_include_pad=1),
        helper.make_node("AveragePool", ["x"], ["avg_same"], kernel_shape=[2, 3], strides=[2, 2],
                         auto_pad="SAME_UPPER"),
        helper.make_node("AveragePool", ["x"], ["avg_valid"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["x"], ["gap"]),
        helper.make_node("GlobalMaxPool", ["x"], ["gmp"]),
        helper.make_node("MaxPool", ["seq"], ["max_1d"], kernel_shape=[3], strides=[2]),
    ]
    outs = ["max_pads", "max_ceil", "max_same", "avg_excl", "avg_incl", "avg_same", "avg_valid", "gap", "gmp",
            "max_1d"]
    m = model(nodes, [vi("x", F, [2, 3, 7, 9]), vi("seq", F, [2, 3, 10])], [vi(n, F, None) for n in outs], opset=19)
    return m, {"x": normal(r, 2, 3, 7, 9), "seq": normal(r, 2, 3, 10)}


def matmul_norm(r):
    c = 5
    nodes = [
        helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["bn"], epsilon=1e-3),
        helper.make_node("Gemm", ["a", "wt", "gb"], ["gemm"], transB=1, alpha=0.5, beta=2.0),
        helper.make_node("Gemm", ["at", "w"], ["gemm_ta"], transA=1),
        helper.make_node("MatMul", ["s3", "w"], ["matmul_3d"]),
        helper.make_node("MatMul", ["v", "w"], ["matmul_vec"]),
        helper.make_node("MatMul", ["s3", "s3t"], ["matmul_batch"]),
    ]
    m = model(nodes, [vi("x", F, [2, c, 4, 3]), vi("a", F, [3, 6]), vi("at", F, [6, 3]), vi("s3", F, [2, 3, 6]),
                      vi("v", F, [6]), vi("s3t", F, [1, 6, 2])],
              [vi(n, F, None) for n in ("bn", "gemm", "gemm_ta", "matmul_3d", "matmul_vec", "matmul_batch")],
              [init("scale", normal(r, c)), init("bias", normal(r, c)), init("mean", normal(r, c)),
               init("var", np.abs(normal(r, c)) + 0.1), init("wt", normal(r, 4, 6)), init("gb", normal(r, 4)),
               init("w", normal(r, 6, 4))], opset=15)
    return m, {"x": normal(r, 2, c, 4, 3), "a": normal(r, 3, 6), "at": normal(r, 6, 3), "s3": normal(r, 2, 3, 6),
               "v": normal(r, 6), "s3t": normal(r, 1, 6, 2)}


def layer_norm(r):
    # A transformer's last-dim norm (rows far from zero mean), one over the
    # last two dims without B, and one over all dims but the symbolic batch.
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["last"], epsilon=1e-12),
        helper.make_node("LayerNormalization", ["x", "gamma2"], ["last_two"], axis=-2),
        helper.make_node("LayerNormalization", ["x", "gamma3", "beta3"], ["all_but_batch"], axis=1, epsilon=1e-3),
    ]
    m = model(nodes, [vi("x", F, ["batch", 3, 4, 8])],
              [vi(n, F, None) for n in ("last", "last_two", "all_but_batch")],
              [init("gamma", normal(r, 8)), init("beta", normal(r, 8)), init("gamma2", normal(r, 4, 8)),
               init("gamma3", normal(r, 3, 4, 8)), init("beta3", normal(r, 3, 4, 8))], opset=17)
    return m, {"x": normal(r, 2, 3, 4, 8) * 3 + 5}


def shapes(r):
    nodes = [
        helper.make_node("Reshape", ["x", "shape0"], ["reshape_zero"]),
        helper.make_node("Reshape", ["x", "shape_az"], ["reshape_allowzero"], allowzero=1),
        helper.make_node("Flatten", ["x"], ["flatten_2"], axis=2),
        helper.make_node("Flatten", ["x"], ["flatten_0"], axis=0),
        helper.make_node("Transpose", ["x"], ["transpose"], perm=[2, 0, 3, 1]),
        helper.make_node("Transpose", ["x"], ["transpose_rev"]),
        helper.make_node("Concat", ["x", "x"], ["concat"], axis=-1),
        helper.make_node("Unsqueeze", ["x", "ax_unsq"], ["unsq"]),
        helper.make_node("Squeeze", ["unsq", "ax_sq"], ["squeeze"]),
        helper.make_node("Squeeze", ["unsq"], ["squeeze_all"]),
        helper.make_node("Shape", ["x"], ["shape_all"]),
        helper.make_node("Shape", ["x"], ["shape_tail"], start=-2),
        helper.make_node("Gather", ["x", "idx"], ["gather_neg"], axis=2),
        helper.make_node("Gather", ["x", "dyn_idx"], ["gather_dyn"], axis=-1),
        helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["slice"]),
        helper.make_node("Slice", ["x", "starts2", "ends2"], ["slice_default"]),
        helper.make_node("Cast", ["x"], ["cast_int"], to=TensorProto.INT32),
        helper.make_node("Cast", ["cast_int"], ["cast_back"], to=F),
        helper.make_node("Identity", ["x"], ["identity"]),
        helper.make_node("Constant", [], ["k"], value=helper.make_tensor("kv", F, [4], [1, 2, 3, 4])),
        helper.make_node("Add", ["x", "k"], ["plus_const"]),
        helper.make_node("Pad", ["x", "pads", "pad_value"], ["pad_const"]),
        helper.make_node("Pad", ["x", "pads_r"], ["pad_reflect"], mode="reflect"),
        helper.make_node("ReduceMean", ["x", "axes_red"], ["reduce_mean"]),
        helper.make_node("ReduceSum", ["x", "axes_red"], ["reduce_sum"], keepdims=0),
        helper.make_node("ReduceMax", ["x"], ["reduce_max_all"], keepdims=0),
        helper.make_node("Split", ["x", "split"], ["split_a", "split_b"], axis=1),
        helper.make_node("Expand", ["col", "expand_to"], ["expand"]),
        helper.make_node("Tile", ["x", "reps"], ["tile"]),
    ]
    outs_f = ["reshape_zero", "reshape_allowzero", "flatten_2", "flatten_0", "transpose", "transpose_rev", "concat",
              "unsq", "squeeze", "squeeze_all", "gather_neg", "gather_dyn", "slice", "slice_default", "cast_back",
              "identity", "plus_const", "pad_const", "pad_reflect", "reduce_mean", "reduce_sum", "reduce_max_all",
              "split_a", "split_b", "expand", "tile"]
    outs = [vi(n, F, None) for n in outs_f] + [vi("shape_all", I64, None), vi("shape_tail", I64, None),
                                                vi("cast_int", TensorProto.INT32, None)]
    inits = [
        init("shape0", np.array([0, -1, 4], np.int64)),
        init("shape_az", np.array([2, 3, 5, 4], np.int64)),
        init("ax_unsq", np.array([0, -1], np.int64)),
        init("ax_sq", np.array([-1], np.int64)),
        init("idx", np.array([[-1, 0], [2, -3]], np.int64)),
        init("starts", np.array([INT64_MAX, 1, -4], np.int64)),
        init("ends", np.array([INT64_MIN, INT64_MAX, 100], np.int64)),
        init("axes", np.array([0, -1, 2], np.int64)),
        init("steps", np.array([-1, 2, 1], np.int64)),
        init("starts2", np.array([1, 0], np.int64)),
        init("ends2", np.array([3, -1], np.int64)),
        init("pads", np.array([0, 1, 0, 2, 0, 0, 1, 1], np.int64)),
        init("pad_value", np.float32(0.25)),
        init("pads_r", np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64)),
        init("axes_red", np.array([1, -1], np.int64)),
        init("split", np.array([1, 2], np.int64)),
        init("expand_to", np.array([2, 1, 5, 4], np.int64)),
        init("reps", np.array([1, 2, 1, 2], np.int64)),
    ]
    m = model(nodes, [vi("x", F, [2, 3, 5, 4]), vi("dyn_idx", I64, [3]), vi("col", F, [3, 1, 1])], outs, inits,
              opset=18)
    return m, {"x": normal(r, 2, 3, 5, 4), "dyn_idx": np.array([3, -1, 0], np.int64),
               "col": normal(r, 3, 1, 1)}


def dynamic_flatten(r):
    """tf2onnx's flatten of a symbolic batch: Shape -> Gather -> Unsqueeze -> Concat -> Reshape."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["flat"]),
        helper.make_node("Reshape", ["x", "zero_keep"], ["kept"]),
        helper.make_node("MatMul", ["flat", "w"], ["y"]),
    ]
    m = model(nodes, [vi("x", F, ["batch", 3, 4])], [vi("y", F, ["batch", 2]), vi("kept", F, None)],
              [init("zero", np.int64(0)), init("ax0", np.array([0], np.int64)),
               init("minus_one", np.array([-1], np.int64)), init("zero_keep", np.array([0, 12], np.int64)),
               init("w", normal(r, 12, 2))], opset=16)
    return m, {"x": normal(r, 5, 3, 4)}


def mlp(r):
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h1"], transB=1),
        helper.make_node("Relu", ["h1"], ["a1"]),
        helper.make_node("MatMul", ["a1", "w2"], ["h2"]),
        helper.make_node("Add", ["h2", "b2"], ["h2b"]),
        helper.make_node("Tanh", ["h2b"], ["a2"]),
        helper.make_node("Gemm", ["a2", "w3", "b3"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=1),
    ]
    m = model(nodes, [vi("x", F, ["batch", 10])], [vi("probs", F, ["batch", 3]), vi("logits", F, ["batch", 3])],
              [init("w1", normal(r, 16, 10) / 3), init("b1", normal(r, 16)), init("w2", normal(r, 16, 8) / 4),
               init("b2", normal(r, 8)), init("w3", normal(r, 8, 3) / 3), init("b3", normal(r, 3))], opset=13)
    return m, {"x": normal(r, 3, 10)}


def small_cnn_model(r, opset=21):
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "s1", "o1", "m1", "v1"], ["bn1"]),
        helper.make_node("Relu", ["bn1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Clip", ["c2", "zero", "six"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"]),
        helper.make_node("Gemm", ["flat", "wd", "bd"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"]),
    ]
    inits = [init("w1", normal(r, 8, 3, 3, 3) / 4), init("b1", normal(r, 8)), init("s1", normal(r, 8)),
             init("o1", normal(r, 8)), init("m1", normal(r, 8)), init("v1", np.abs(normal(r, 8)) + 0.5),
             init("w2", normal(r, 16, 8, 3, 3) / 8), init("b2", normal(r, 16)), init("zero", np.float32(0)),
             init("six", np.float32(6)), init("wd", normal(r, 10, 16) / 4), init("bd", normal(r, 10))]
    return model(nodes, [vi("image", F, ["N", 3, 16, 16])], [vi("probs", F, ["N", 10])], inits, opset=opset)


def small_cnn(r):
    m = small_cnn_model(r)
    return m, {"image": normal(r, 2, 3, 16, 16)}


def max_opset(r):
    nodes = [helper.make_node("Add", ["x", "c"], ["y"]), helper.make_node("Relu", ["y"], ["z"])]
    m = model(nodes, [vi("x", F, [2, 3])], [vi("z", F, [2, 3])], [init("c", normal(r, 3))], opset=26)
    return m, {"x": normal(r, 2, 3)}


def keras_cnn_tf2onnx(r):
    import tensorflow as tf
    import tf2onnx
    tf.keras.utils.set_random_seed(0)
    k = tf.keras.layers
    inp = tf.keras.Input((12, 12, 3), name="image")
    x = k.Conv2D(8, 3, padding="same")(inp)
    x = k.BatchNormalization()(x)
    x = k.ReLU(6.0)(x)
    x = k.DepthwiseConv2D(3, strides=2, padding="same")(x)
    x = k.Conv2D(12, 1, activation="relu")(x)
    x = k.AveragePooling2D(2)(x)
    x = k.GlobalAveragePooling2D()(x)
    x = k.Dense(5, activation="softmax", name="probs")(x)
    km = tf.keras.Model(inp, x)
    for w in km.weights:
        if "moving_variance" in w.path:
            w.assign(r.uniform(0.5, 1.5, w.shape).astype(np.float32))
        else:
            w.assign(normal(r, *w.shape) / 3)
    spec = (tf.TensorSpec((None, 12, 12, 3), tf.float32, name="image"),)
    fn = tf.function(lambda image: km(image))
    proto, _ = tf2onnx.convert.from_function(fn, input_signature=spec, opset=17)
    return proto, {proto.graph.input[0].name: normal(r, 2, 12, 12, 3)}


MODELS = [
    ("elementwise", "Add/Sub/Mul/Div/Pow/Sqrt/Exp/Log/Neg/Abs/Reciprocal/Max/Min/Sum/Floor, broadcasting", elementwise),
    ("activations", "Relu, LeakyRelu, Sigmoid, Tanh, Softmax/LogSoftmax axes, Clip, HardSigmoid/Swish, Elu, PRelu",
     activations),
    ("convolutions", "Conv: pads, strides, dilations, groups, depthwise, SAME_UPPER/LOWER, VALID, 1-D", convolutions),
    ("conv_transpose", "ConvTranspose: pads with output_padding, SAME_UPPER/LOWER, output_shape, dilations",
     conv_transpose),
    ("pooling", "MaxPool/AveragePool pads, ceil_mode, count_include_pad, SAME; global pooling; 1-D", pooling),
    ("matmul_norm", "BatchNormalization, Gemm (alpha, beta, transA/B), MatMul 3-D, vector and batch", matmul_norm),
    ("layer_norm", "LayerNormalization: the last dim, the last two without B, all but the batch (opset 17)",
     layer_norm),
    ("shapes", "Reshape, Flatten, Transpose, Concat, (Un)Squeeze, Shape, Gather, Slice, Cast, Pad, Reduce*, Split",
     shapes),
    ("dynamic_flatten", "Shape/Gather/Unsqueeze/Concat/Reshape on a symbolic batch", dynamic_flatten),
    ("mlp", "an MLP with a symbolic batch (opset 13)", mlp),
    ("small_cnn", "Conv-BN-Relu-MaxPool-Conv-Relu6-GAP-Flatten-Gemm-Softmax (opset 21)", small_cnn),
    ("max_opset", "opset 26, the newest ONNX Runtime 1.31 runs", max_opset),
    ("external_data", "small_cnn with its initializers in weights.bin", small_cnn),
    ("keras_cnn_tf2onnx", "a Keras CNN (BN, ReLU6, depthwise, pooling, Dense) converted by tf2onnx", keras_cnn_tf2onnx),
]

# tf2onnx runs as a subprocess per model; two at a time keep a 2-core
# machine busy while the main process checks the results.
CONVERTERS = concurrent.futures.ThreadPoolExecutor(max_workers=2)
# By converted zoo model: output key -> (tolerance, why) from the zoo.
ZOO_TOLERANCES = {}


def zoo_models(zoo, workdir):
    """(name, what, build) for every zoo model's serving_default, converted
    by tf2onnx; those it refuses are skipped with its reason."""
    import tensorflow as tf
    from tensorflow.core.framework import tensor_pb2
    with open(os.path.join(zoo, "manifest.json")) as f:
        manifest = json.load(f)

    def read(rel):
        proto = tensor_pb2.TensorProto()
        with open(os.path.join(zoo, rel), "rb") as f:
            proto.ParseFromString(f.read())
        return tf.make_ndarray(proto)

    os.makedirs(workdir, exist_ok=True)
    out = []
    for m in manifest["models"]:
        sig = next((s for s in m["signatures"] if s["key"] == "serving_default"), None)
        if sig is None:
            continue
        path = os.path.join(zoo, m["path"])
        if not os.path.exists(os.path.join(path, "saved_model.pb")):
            versions = [d for d in os.listdir(path) if d.isdigit()]
            path = os.path.join(path, max(versions, key=int))
        feed = {k: read(rel) for k, rel in sig["inputs"].items()}
        # Outputs the zoo holds to a looser bound (float16 arithmetic) keep
        # it: ONNX Runtime's float16 kernels round as differently as TF's.
        ZOO_TOLERANCES["zoo_" + m["name"]] = {
            k: (o["tolerance"], o["why"]) for k, o in sig["outputs"].items() if o.get("tolerance", 1e-5) > 1e-5}
        target = os.path.join(workdir, m["name"] + ".onnx")
        cmd = [sys.executable, "-m", "tf2onnx.convert", "--saved-model", path, "--signature_def",
               "serving_default", "--opset", "17", "--output", target]
        conversion = CONVERTERS.submit(subprocess.run, cmd, capture_output=True, text=True)

        def build(r, feed=feed, target=target, conversion=conversion):
            done = conversion.result()
            if done.returncode != 0:
                lines = [l for l in done.stderr.splitlines() if "Error" in l or "error" in l]
                raise RuntimeError((lines or done.stderr.splitlines() or ["tf2onnx failed"])[-1])
            proto = onnx.load(target)
            # tf2onnx names inputs after the signature's tensors ("image:0" or "image").
            names = {i.name.split(":")[0]: i.name for i in proto.graph.input}
            return proto, {names.get(k, k): v for k, v in feed.items()}

        out.append(("zoo_" + m["name"], "the zoo's %s converted by tf2onnx (opset 17)" % m["name"], build))
    return out


# --- references ---------------------------------------------------------------

def tensor_file(path, value):
    """A serialized TensorFlow TensorProto, the zoo's format for inputs and references."""
    import tensorflow as tf
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(tf.make_tensor_proto(value).SerializeToString())


def run_reference(model_path, feed):
    """ONNX Runtime's outputs with its graph optimizations off: its Pad +
    MaxPool fusion moves a zero Pad into MaxPool's padding, which MaxPool
    fills with -inf, so a window over negative values and padding gives the
    negative maximum instead of 0 (ResNet50V2's stem, 1% of the logits).
    The optimizations are meant to keep the model's meaning; the reference
    is that meaning."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model_path, opts, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, feed)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--zoo", help="a generated model zoo, whose models tf2onnx converts")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    models = MODELS + (zoo_models(args.zoo, os.path.join(args.out, "scratch")) if args.zoo else [])
    entries, skipped = [], []
    for name, what, build in models:
        try:
            proto, feed = build(rng())
        except Exception as e:  # noqa: BLE001  (tf2onnx raises many kinds)
            if not name.startswith("zoo_"):
                raise
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
            skipped.append({"name": name, "reason": reason})
            print("onnx: skipped %s: %s" % (name, reason), file=sys.stderr)
            continue
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        model_path = os.path.join(folder, "model.onnx")
        if name == "external_data":
            onnx.save_model(proto, model_path, save_as_external_data=True, all_tensors_to_one_file=True,
                            location="weights.bin", size_threshold=0)
        else:
            onnx.save_model(proto, model_path)
        try:
            outputs = run_reference(model_path, feed)
        except Exception as e:  # noqa: BLE001  (ONNX Runtime raises its own kinds)
            if not name.startswith("zoo_"):
                raise
            # A conversion ONNX Runtime cannot run is not one tfhost is held to.
            reason = "ONNX Runtime cannot run the conversion: " + (str(e).strip().splitlines() or [""])[0][:300]
            skipped.append({"name": name, "reason": reason})
            print("onnx: skipped %s: %s" % (name, reason), file=sys.stderr)
            shutil.rmtree(folder)
            continue
        io = os.path.join(name, "io", "serving_default")
        sig = {"key": "serving_default", "inputs": {}, "outputs": {}}
        for i, (k, v) in enumerate(sorted(feed.items())):
            rel = os.path.join(io, "in_%d.pb" % i)
            tensor_file(os.path.join(args.out, rel), v)
            sig["inputs"][k] = rel
        for i, (k, v) in enumerate(sorted(outputs.items())):
            rel = os.path.join(io, "out_%d.pb" % i)
            tensor_file(os.path.join(args.out, rel), np.asarray(v))
            sig["outputs"][k] = {"file": rel, "tolerance": 1e-5}
            if k.split(":")[0] in ZOO_TOLERANCES.get(name, {}):
                tolerance, why = ZOO_TOLERANCES[name][k.split(":")[0]]
                sig["outputs"][k].update({"tolerance": tolerance, "why": why})
        opset = next(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx"))
        entries.append({"name": name, "family": "onnx", "what": what, "path": os.path.join(name, "model.onnx"),
                        "opset": opset, "signatures": [sig]})
        print("onnx: wrote %s (opset %d, %d nodes)" % (name, opset, len(proto.graph.node)), file=sys.stderr)
    scratch = os.path.join(args.out, "scratch")
    if os.path.isdir(scratch):
        for f in os.listdir(scratch):
            os.remove(os.path.join(scratch, f))
        os.rmdir(scratch)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"format": 1, "tensorflow": "onnxruntime " + ort.__version__, "onnx": onnx.__version__,
                   "models": entries, "skipped": skipped}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
