"""Reduced-precision models: Keras mixed_float16 / mixed_bfloat16 policies
(Cast ops around half-precision kernels, float32 variables), a graph that is
float16 throughout, a quantization-aware model from
tensorflow_model_optimization (FakeQuant ops), and TF's quantize ops.

generate.py puts the global policies back to float32 after every model.
"""
import os

import keras
import numpy as np
import tensorflow as tf

from zoo_lib import Io, export_keras, keras_io, liven_keras, model

FAMILY = "precision"
F16_WHY = ("Conv2D/MatMul/BiasAdd run in float16 under mixed_float16: every op rounds to an "
           "11-bit significand, and accumulation order changes which way")
BF16_WHY = ("MatMul/BiasAdd/Softmax run in bfloat16 under mixed_bfloat16: every op rounds to an "
            "8-bit significand, and accumulation order changes which way")
FAKEQUANT_WHY = ("FakeQuantWithMinMaxVars: a value within float32 rounding of a quantization "
                 "step boundary may land one step (range/255) away, and later layers carry it")


@model("mixed_float16", FAMILY,
       "keras mixed_float16 policy: Conv2D/BatchNorm/Dense in float16 with float32 variables, float32 output")
def mixed_float16(ctx):
    keras.mixed_precision.set_global_policy("mixed_float16")
    image = keras.Input((16, 16, 3), name="image")
    h = keras.layers.Conv2D(8, 3, padding="same")(image)
    h = keras.layers.ReLU()(keras.layers.BatchNormalization()(h))
    h = keras.layers.Conv2D(16, 3, strides=2, activation="relu")(h)
    h = keras.layers.GlobalAveragePooling2D()(h)
    h = keras.layers.Dense(10)(h)
    # The loss-facing output stays float32, as the mixed precision guide says.
    out = keras.layers.Activation("softmax", dtype="float32", name="probs")(h)
    export_keras(keras.Model(image, [out, h]), ctx)
    return keras_io({"image": ctx.uniform((2, 16, 16, 3), -1, 1)}, {"*": (2e-3, F16_WHY)})


@model("mixed_bfloat16", FAMILY,
       "keras mixed_bfloat16 policy: Dense, LayerNormalization, MultiHeadAttention in bfloat16, float32 output")
def mixed_bfloat16(ctx):
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    x = keras.Input((6, 16), name="tokens")
    h = keras.layers.Dense(16, activation="gelu")(x)
    h = keras.layers.LayerNormalization()(h)
    h = h + keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(h, h)
    h = keras.layers.GlobalAveragePooling1D()(h)
    out = keras.layers.Dense(4, dtype="float32", name="logits")(h)
    export_keras(keras.Model(x, out), ctx)
    return keras_io({"tokens": ctx.normal((2, 6, 16))}, {"*": (2e-2, BF16_WHY)})


@model("qat_mnist", FAMILY,
       "tensorflow_model_optimization quantize_model on a tf_keras Conv2D/Dense net (FakeQuant ops), "
       "ranges calibrated on 4 batches, saved with tf_keras model.save")
def qat_mnist(ctx):
    # tfmot only speaks tf_keras, and selects it through this variable on import.
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import tensorflow_model_optimization as tfmot
    import tf_keras

    tf_keras.utils.set_random_seed(ctx.seed)
    base = tf_keras.Sequential([
        tf_keras.Input((12, 12, 1), name="image"),
        tf_keras.layers.Conv2D(6, 3, activation="relu"),
        tf_keras.layers.MaxPooling2D(),
        tf_keras.layers.Conv2D(8, 3, activation="relu"),
        tf_keras.layers.Flatten(),
        tf_keras.layers.Dense(10, name="logits"),
    ])
    liven_keras(base, ctx.rng)
    qat = tfmot.quantization.keras.quantize_model(base)
    # training=True updates the moving-average activation ranges; without it
    # they keep their [-6, 6] initial values, which no deployed model has.
    for _ in range(4):
        qat(ctx.uniform((8, 12, 12, 1)), training=True)
    qat.save(ctx.export_dir, save_format="tf", include_optimizer=False)
    signatures = ("serving_default",)
    feed = {"image": ctx.uniform((2, 12, 12, 1))}
    return Io({k: feed for k in signatures}, {"*": (2e-2, FAKEQUANT_WHY)})



class _Half(tf.Module):
    """A graph converted to float16 end to end (variables too), as some
    exporters do to halve a model's size; not Keras's mixed policy."""

    def __init__(self, dtype):
        def var(shape, seed, scale):
            return tf.Variable(tf.cast(tf.random.stateless_normal(shape, seed=seed) * scale, dtype))
        self.kernel = var([3, 3, 3, 8], [29, 30], 0.3)
        self.w = var([8, 4], [31, 32], 0.5)
        self.b = var([4], [33, 34], 0.1)
        self.dtype = dtype

    def run(self, image):
        h = tf.nn.relu(tf.nn.conv2d(image, self.kernel, 1, "SAME"))
        logits = tf.nn.bias_add(tf.matmul(tf.reduce_mean(h, [1, 2]), self.w), self.b)
        return {"logits": logits, "probs": tf.nn.softmax(logits)}


@model("float16_graph", FAMILY,
       "a tf.Module entirely in float16 (variables, input, Conv2D, Mean, MatMul, BiasAdd, Softmax)")
def float16_graph(ctx):
    m = _Half(tf.float16)
    sig = tf.function(m.run, input_signature=[tf.TensorSpec([None, 8, 8, 3], tf.float16, name="image")])
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": sig})
    return Io({"serving_default": {"image": ctx.uniform((2, 8, 8, 3), -1, 1, np.float16)}},
              {"*": (5e-3, F16_WHY.replace("under mixed_float16", "in a float16 graph"))})


class _Quantize(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def __call__(self, x):
        q = tf.quantization.quantize(x, -4.0, 4.0, tf.quint8, mode="MIN_COMBINED")
        s = tf.quantization.quantize(x, -4.0, 4.0, tf.qint8, mode="SCALED")
        return {
            # Quantized dtypes stay inside the graph; the outputs are their bits.
            "quint8_bits": tf.bitcast(q.output, tf.uint8),
            "qint8_bits": tf.bitcast(s.output, tf.int8),
            "dequantized": tf.quantization.dequantize(q.output, q.output_min, q.output_max),
            "dequantized_scaled": tf.quantization.dequantize(s.output, s.output_min, s.output_max,
                                                             mode="SCALED"),
            "fake_quant": tf.quantization.fake_quant_with_min_max_args(x, -3.0, 3.0, num_bits=8),
            "quantize_dequantize": tf.quantization.quantize_and_dequantize_v2(
                x, -4.0, 4.0, range_given=True, num_bits=6),
        }


@model("quantize_ops", FAMILY,
       "QuantizeV2 (MIN_COMBINED quint8, SCALED qint8) and Dequantize, FakeQuantWithMinMaxArgs, "
       "QuantizeAndDequantizeV4 (6 bits); quantized outputs as their raw bits")
def quantize_ops(ctx):
    m = _Quantize()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    # Rounding makes these ops step functions: keep only inputs whose every
    # output stays put when the input moves by 1e-5, so that no correct
    # implementation's rounding can land on the other side of a step.
    candidates = ctx.uniform((64,), -4.5, 4.5)

    def outputs(v):
        out = m(tf.constant(v.reshape(-1, 4)))
        return np.stack([np.asarray(o, np.float64).reshape(-1) for o in out.values()])
    base = outputs(candidates)
    stable = np.all([np.all(outputs(candidates + d) == base, axis=0) for d in (-1e-5, 1e-5)], axis=0)
    x = candidates[stable][:12].reshape(3, 4)
    return Io({"serving_default": {"x": x}})
