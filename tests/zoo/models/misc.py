"""Serving shapes that do not belong to one architecture: several signatures
on one TF2 module, multi-input/multi-output Keras models, a Keras 2 (tf_keras)
SavedModel, retrieval with top_k, and sparse features.
"""
import keras
import numpy as np
import tensorflow as tf

from zoo_lib import Io, export_keras, keras_io, liven_keras, model, strings

FAMILY = "misc"


class _MultiSig(tf.Module):
    """Independent entry points with different dtypes, as a model server sees
    them when one artifact carries a classifier plus its helpers."""

    def __init__(self):
        self.w = tf.Variable(tf.random.stateless_normal([5, 3], seed=[19, 20]))
        self.table = tf.Variable(tf.random.stateless_normal([20, 4], seed=[21, 22], dtype=tf.float64))

    @tf.function(input_signature=[tf.TensorSpec([None, 5], tf.float32, name="features")])
    def classify(self, features):
        logits = tf.matmul(features, self.w)
        return {"probabilities": tf.nn.softmax(logits), "top_class": tf.argmax(logits, -1)}

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32, name="ids")])
    def embed(self, ids):
        vectors = tf.gather(self.table, ids)
        return {"mean": tf.reduce_mean(vectors, 1), "norm": tf.norm(vectors, axis=-1)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="names"),
                                  tf.TensorSpec([None], tf.bool, name="shout")])
    def greet(self, names, shout):
        text = tf.strings.join(["hello, ", names])
        return {"greeting": tf.where(shout, tf.strings.upper(text), text)}

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.uint8, name="pixels"),
                                  tf.TensorSpec([None], tf.int16, name="offsets")])
    def stats(self, pixels, offsets):
        wide = tf.cast(pixels, tf.int32) + tf.cast(offsets, tf.int32)[:, None]
        return {"sum": tf.reduce_sum(wide, 1), "max": tf.reduce_max(pixels, 1),
                "is_bright": tf.reduce_mean(tf.cast(pixels, tf.float32), 1) > 127.5,
                "as_half": tf.cast(pixels, tf.float16) / 255.0}


@model("multi_signature", FAMILY,
       "TF2 module with four signatures (float classify with argmax, int32->float64 embed, string/bool "
       "greet, uint8/int16 stats with bool and float16 outputs)")
def multi_signature(ctx):
    m = _MultiSig()
    tf.saved_model.save(m, ctx.export_dir, signatures={
        "serving_default": m.classify, "embed": m.embed, "greet": m.greet, "stats": m.stats})
    return Io({
        "serving_default": {"features": ctx.normal((3, 5))},
        "embed": {"ids": ctx.ints((2, 6), 0, 20)},
        "greet": {"names": strings(["ada", "grace", "linus"]), "shout": np.array([False, True, False])},
        "stats": {"pixels": ctx.ints((3, 4), 0, 256, np.uint8), "offsets": np.array([-5, 0, 300], np.int16)},
    })


@model("keras_multi_io", FAMILY,
       "keras functional model with an image and a tabular input, and a class head plus a regression head")
def keras_multi_io(ctx):
    image = keras.Input((16, 16, 3), name="image")
    table = keras.Input((6,), name="tabular")
    h = keras.layers.Conv2D(8, 3, strides=2, activation="relu")(image)
    h = keras.layers.SeparableConv2D(8, 3, padding="same", activation="relu")(h)
    h = keras.layers.DepthwiseConv2D(3, depth_multiplier=2)(h)
    h = keras.layers.GlobalMaxPooling2D()(h)
    t = keras.layers.Dense(8, activation="elu")(keras.layers.BatchNormalization()(table))
    joint = keras.layers.Concatenate()([h, t])
    joint = keras.layers.Dropout(0.5)(keras.layers.Dense(16, activation="selu")(joint))
    net = keras.Model({"image": image, "tabular": table},
                      {"class_logits": keras.layers.Dense(5)(joint),
                       "value": keras.layers.Dense(1, activation="softplus")(joint)})
    export_keras(net, ctx)
    return keras_io({"image": ctx.uniform((2, 16, 16, 3), -1, 1), "tabular": ctx.normal((2, 6))})


@model("text_cnn", FAMILY,
       "keras text CNN: Embedding -> Conv1D(k=3, causal and same) -> GlobalMaxPooling1D -> Dense sigmoid")
def text_cnn(ctx):
    tokens = keras.Input((20,), dtype="int32", name="tokens")
    e = keras.layers.Embedding(64, 12)(tokens)
    a = keras.layers.Conv1D(16, 3, padding="causal", activation="relu")(e)
    b = keras.layers.Conv1D(16, 5, padding="same", dilation_rate=2, activation="relu")(e)
    h = keras.layers.Concatenate()([keras.layers.GlobalMaxPooling1D()(a), keras.layers.GlobalMaxPooling1D()(b)])
    out = keras.layers.Dense(3, activation="sigmoid")(h)
    export_keras(keras.Model(tokens, out), ctx)
    return keras_io({"tokens": ctx.ints((3, 20), 0, 64)})


@model("tf_keras_cnn", FAMILY,
       "tf_keras (Keras 2) functional CNN saved with model.save(save_format='tf'): BatchNorm, "
       "SeparableConv2D, LeakyReLU, AveragePooling, Dropout, softmax")
def tf_keras_cnn(ctx):
    import tf_keras

    tf_keras.utils.set_random_seed(ctx.seed)
    image = tf_keras.Input((20, 20, 3), name="image")
    h = tf_keras.layers.Conv2D(8, 3, use_bias=False)(image)
    h = tf_keras.layers.LeakyReLU(0.1)(tf_keras.layers.BatchNormalization()(h))
    h = tf_keras.layers.SeparableConv2D(12, 3, padding="same", activation="relu")(h)
    h = tf_keras.layers.AveragePooling2D(3, strides=2)(h)
    h = tf_keras.layers.Dropout(0.3)(tf_keras.layers.Flatten()(h))
    out = tf_keras.layers.Dense(6, activation="softmax", name="probs")(h)
    net = tf_keras.Model(image, out)
    liven_keras(net, ctx.rng)
    net.save(ctx.export_dir, save_format="tf", include_optimizer=False)
    return Io({"serving_default": {"image": ctx.uniform((2, 20, 20, 3), -1, 1)}})


class _Retrieval(tf.Module):
    def __init__(self):
        self.users = tf.Variable(tf.random.stateless_normal([30, 8], seed=[23, 24]))
        self.items = tf.Variable(tf.random.stateless_normal([50, 8], seed=[25, 26]))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int64, name="user_id"),
                                  tf.TensorSpec([None, 8], tf.float32, name="context")])
    def __call__(self, user_id, context):
        query = tf.math.l2_normalize(tf.gather(self.users, user_id) + context, axis=-1)
        scores = tf.einsum("bd,nd->bn", query, self.items)
        top = tf.math.top_k(scores, k=5)
        return {"scores": top.values, "item_ids": top.indices,
                "ranked": tf.argsort(scores[:, :10], direction="DESCENDING", stable=True)}


@model("retrieval_topk", FAMILY,
       "two-tower retrieval: embedding gather, l2_normalize, einsum against 50 items, top_k and argsort")
def retrieval_topk(ctx):
    m = _Retrieval()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    return Io({"serving_default": {"user_id": np.array([3, 17, 29], np.int64),
                                   "context": ctx.normal((3, 8), 0.1)}})


class _Sparse(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.random.stateless_normal([10, 4], seed=[27, 28]))

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.int64, name="indices"),
                                  tf.TensorSpec([None], tf.float32, name="values"),
                                  tf.TensorSpec([2], tf.int64, name="dense_shape")])
    def __call__(self, indices, values, dense_shape):
        sp = tf.sparse.reorder(tf.SparseTensor(indices, values, dense_shape))
        return {"matmul": tf.sparse.sparse_dense_matmul(sp, self.w),
                "row_sum": tf.sparse.reduce_sum(sp, axis=1),
                "dense": tf.sparse.to_dense(sp),
                "nnz_per_row": tf.math.bincount(tf.cast(sp.indices[:, 0], tf.int32),
                                                minlength=tf.cast(dense_shape[0], tf.int32))}


@model("sparse_features", FAMILY,
       "SparseTensor from (indices, values, dense_shape) inputs: reorder, sparse_dense_matmul, "
       "sparse reduce_sum, to_dense, bincount")
def sparse_features(ctx):
    m = _Sparse()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    indices = np.array([[2, 7], [0, 1], [2, 0], [0, 9], [3, 3]], np.int64)  # unsorted on purpose
    return Io({"serving_default": {"indices": indices, "values": ctx.normal(5),
                                   "dense_shape": np.array([4, 10], np.int64)}})
