"""Recurrent models: Keras 3 LSTM/GRU/ConvLSTM2D (While loops over time) and a
TF1 dynamic_rnn graph with the v1 control-flow ops (Enter/Exit/Switch/Merge,
TensorArrayV3) that models exported before TF2 still carry.
"""
import keras
import numpy as np
import tensorflow as tf

from zoo_lib import export_keras, keras_io, model, predict_sig, save_tf1, Io

FAMILY = "rnn"
BATCH, STEPS, FEATURES = 2, 10, 8


def _seq_model(ctx, body, name="sequence"):
    x = keras.Input((STEPS, FEATURES), name=name)
    export_keras(keras.Model(x, body(x)), ctx)
    return keras_io({name: ctx.normal((BATCH, STEPS, FEATURES))})


@model("lstm", FAMILY, "keras LSTM(16, return_sequences) -> LSTM(16) -> Dense(4), 10 steps x 8 features")
def lstm(ctx):
    return _seq_model(ctx, lambda x: keras.layers.Dense(4)(
        keras.layers.LSTM(16)(keras.layers.LSTM(16, return_sequences=True)(x))))


@model("gru_reset_after", FAMILY, "keras GRU(16, reset_after=True) (the cuDNN-compatible variant, two biases)")
def gru_reset_after(ctx):
    return _seq_model(ctx, lambda x: keras.layers.GRU(16, reset_after=True, return_sequences=True)(x))


@model("gru_reset_before", FAMILY, "keras GRU(16, reset_after=False) (reset gate applied before the matmul)")
def gru_reset_before(ctx):
    return _seq_model(ctx, lambda x: keras.layers.GRU(16, reset_after=False)(x))


@model("bidirectional", FAMILY,
       "keras Bidirectional(LSTM(8), concat, return_sequences) -> Bidirectional(GRU(8), sum) -> Dense(3)")
def bidirectional(ctx):
    def body(x):
        h = keras.layers.Bidirectional(keras.layers.LSTM(8, return_sequences=True))(x)
        h = keras.layers.Bidirectional(keras.layers.GRU(8), merge_mode="sum")(h)
        return keras.layers.Dense(3)(h)
    return _seq_model(ctx, body)


@model("masking_lstm", FAMILY,
       "keras Masking(0.0) -> LSTM(12, return_sequences) -> LSTM(12); rows zero-padded after 6 and 9 steps")
def masking_lstm(ctx):
    x = keras.Input((STEPS, FEATURES), name="sequence")
    h = keras.layers.Masking(mask_value=0.0)(x)
    h = keras.layers.LSTM(12, return_sequences=True)(h)
    out = keras.layers.LSTM(12)(h)
    export_keras(keras.Model(x, out), ctx)
    seq = ctx.normal((BATCH, STEPS, FEATURES))
    seq[0, 6:] = 0.0
    seq[1, 9:] = 0.0
    return keras_io({"sequence": seq})


@model("embedding_gru", FAMILY,
       "keras Embedding(50, 8, mask_zero=True) -> GRU(12) -> Dense(2): a padded-token text classifier")
def embedding_gru(ctx):
    tokens = keras.Input((STEPS,), dtype="int32", name="tokens")
    h = keras.layers.Embedding(50, 8, mask_zero=True)(tokens)
    h = keras.layers.GRU(12)(h)
    export_keras(keras.Model(tokens, keras.layers.Dense(2)(h)), ctx)
    ids = ctx.ints((BATCH, STEPS), 1, 50)
    ids[0, 4:] = 0
    return keras_io({"tokens": ids})


@model("conv_lstm2d", FAMILY, "keras ConvLSTM2D(4, 3x3, same) over 4 frames of 8x8x2 -> Conv2D(1)")
def conv_lstm2d(ctx):
    frames = keras.Input((4, 8, 8, 2), name="frames")
    h = keras.layers.ConvLSTM2D(4, 3, padding="same")(frames)
    out = keras.layers.Conv2D(1, 1)(h)
    export_keras(keras.Model(frames, out), ctx)
    return keras_io({"frames": ctx.normal((BATCH, 4, 8, 8, 2))})


class _Tf1LstmCell:
    """The LSTMCell contract dynamic_rnn expects (state_size, output_size,
    zero_state, __call__), written against tf.compat.v1 variables; TF 2.21
    routes tf.compat.v1.nn.rnn_cell to Keras, which no longer provides it."""

    def __init__(self, units):
        self.units = units

    @property
    def state_size(self):
        return (self.units, self.units)

    @property
    def output_size(self):
        return self.units

    def zero_state(self, batch_size, dtype):
        z = tf.zeros(tf.stack([batch_size, self.units]), dtype)
        return (z, z)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return self.zero_state(batch_size, dtype)

    def __call__(self, x, state, scope=None):
        c, h = state
        with tf.compat.v1.variable_scope("lstm_cell", reuse=tf.compat.v1.AUTO_REUSE):
            kernel = tf.compat.v1.get_variable("kernel", [x.shape[-1] + self.units, 4 * self.units])
            bias = tf.compat.v1.get_variable("bias", [4 * self.units], initializer=tf.zeros_initializer())
        z = tf.nn.bias_add(tf.matmul(tf.concat([x, h], 1), kernel), bias)
        i, j, f, o = tf.split(z, 4, axis=1)
        c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(j)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, (c, h)


@model("tf1_dynamic_rnn", FAMILY,
       "TF1 graph: tf.compat.v1.nn.dynamic_rnn LSTM with sequence_length, v1 control flow, SavedModelBuilder")
def tf1_dynamic_rnn(ctx):
    tf.compat.v1.disable_control_flow_v2()
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.set_random_seed(ctx.seed)
        x = tf.compat.v1.placeholder(tf.float32, [None, None, FEATURES], name="x")
        lengths = tf.compat.v1.placeholder(tf.int32, [None], name="lengths")
        outputs, (c, h) = tf.compat.v1.nn.dynamic_rnn(
            _Tf1LstmCell(12), x, sequence_length=lengths, dtype=tf.float32)
        w = tf.compat.v1.get_variable("logits/kernel", [12, 3])
        logits = tf.identity(tf.matmul(h, w), name="logits")
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sig = predict_sig({"x": x, "lengths": lengths},
                              {"outputs": outputs, "final_c": c, "logits": logits})
            save_tf1(sess, ctx.export_dir, {"serving_default": sig})
    return Io({"serving_default": {"x": ctx.normal((3, STEPS, FEATURES)),
                                   "lengths": np.array([10, 4, 7], np.int32)}})
