"""TF2 control flow written as tf.functions on a tf.Module and saved with
tf.saved_model.save: If/Case/While ops with function-valued attributes,
TensorArrays, and ragged tensors passed as (values, row_splits).

Each input is chosen so that every branch runs at least once in one call.
"""
import numpy as np
import tensorflow as tf

from zoo_lib import Io, model

FAMILY = "control_flow"


def _spec(shape, dtype=tf.float32, name=None):
    return tf.TensorSpec(shape, dtype, name=name)


def _save(module, ctx, **signatures):
    tf.saved_model.save(module, ctx.export_dir, signatures=signatures)


class _Cond(tf.Module):
    def __init__(self):
        self.scale = tf.Variable([[1.5, -0.5, 2.0, 0.25]])

    @tf.function(input_signature=[_spec([2, 4], name="x")])
    def __call__(self, x):
        def row(r):
            # A nested cond inside the true branch, and a variable read in each.
            return tf.cond(tf.reduce_sum(r) > 0.0,
                           lambda: tf.cond(r[0, 0] > 0.0, lambda: r * self.scale, lambda: r + self.scale),
                           lambda: tf.square(r) - self.scale)
        return {"row0": row(x[0:1]), "row1": row(x[1:2])}


@model("tf_cond", FAMILY, "tf.cond (If op) per row, nested cond in one branch, variables read in branches")
def tf_cond(ctx):
    m = _Cond()
    _save(m, ctx, serving_default=m.__call__)
    x = np.array([[0.5, 1.0, -0.25, 2.0], [-1.0, -2.0, 0.5, -0.75]], np.float32)
    return Io({"serving_default": {"x": x}})


class _Switch(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.random.stateless_normal([4, 4], seed=[1, 2]))

    @tf.function(input_signature=[_spec([4], tf.int32, "index"), _spec([1, 4], name="x")])
    def __call__(self, index, x):
        branches = [lambda: tf.matmul(x, self.w),
                    lambda: tf.nn.relu(x) * 3.0,
                    lambda: tf.reverse(x, [1]) - 1.0]
        # An index outside [0, 3) takes the last branch (Case's default).
        outs = [tf.switch_case(index[i], branches) for i in range(4)]
        return {f"out{i}": o for i, o in enumerate(outs)}


@model("switch_case", FAMILY,
       "tf.switch_case (Case op) four times: indices 1, 0, 7 and -3 (out of range -> default branch 2)")
def switch_case(ctx):
    m = _Switch()
    _save(m, ctx, serving_default=m.__call__)
    return Io({"serving_default": {"index": np.array([1, 0, 7, -3], np.int32), "x": ctx.normal((1, 4))}})


class _While(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.random.stateless_normal([6, 6], seed=[3, 4]) * 0.5)

    @tf.function(input_signature=[_spec([None, 6], name="x"), _spec([], tf.int32, "steps"),
                                  _spec([None], tf.int64, "start")])
    def __call__(self, x, steps, start):
        i0 = tf.constant(0)
        _, h = tf.while_loop(lambda i, h: i < steps,
                             lambda i, h: (i + 1, tf.tanh(tf.matmul(h, self.w) + 0.1)),
                             [i0, x])

        # Collatz stopping times: a data-dependent trip count per element, all integer.
        def body(n, count):
            active = n > 1
            step = tf.where(n % 2 == 0, n // 2, 3 * n + 1)
            return tf.where(active, step, n), count + tf.cast(active, tf.int32)
        _, counts = tf.while_loop(lambda n, c: tf.reduce_any(n > 1), body,
                                  [start, tf.zeros_like(start, tf.int32)])
        return {"state": h, "collatz_steps": counts}


@model("while_loop", FAMILY,
       "tf.while_loop (While op): an RNN-like loop for `steps` iterations, and an int64 Collatz loop")
def while_loop(ctx):
    m = _While()
    _save(m, ctx, serving_default=m.__call__)
    return Io({"serving_default": {"x": ctx.normal((3, 6)), "steps": np.array(5, np.int32),
                                   "start": np.array([1, 6, 27, 97], np.int64)}})


class _TensorArray(tf.Module):
    @tf.function(input_signature=[_spec([None, 3], name="sequence")])
    def __call__(self, seq):
        n = tf.shape(seq)[0]
        reads = tf.TensorArray(tf.float32, size=n, element_shape=[3]).unstack(seq)
        out = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[3])
        acc = tf.zeros([3])
        for i in tf.range(n):
            # Reversed running sum: read from the end, write at the front.
            acc = acc + reads.read(n - 1 - i)
            out = out.write(i, acc)
        grown = out.stack()
        scattered = tf.TensorArray(tf.float32, size=n, element_shape=[3]).scatter(
            tf.range(n - 1, -1, -1), seq).gather(tf.range(0, n, 2))
        return {"reverse_cumsum": grown, "gathered": scattered, "size": out.size()}


@model("tensor_array", FAMILY,
       "TensorArray unstack/read/write (dynamic_size) in an autograph loop, plus scatter/gather/size")
def tensor_array(ctx):
    m = _TensorArray()
    _save(m, ctx, serving_default=m.__call__)
    return Io({"serving_default": {"sequence": ctx.normal((7, 3))}})


class _Ragged(tf.Module):
    def __init__(self):
        self.proj = tf.Variable(tf.random.stateless_normal([2, 4], seed=[5, 6]))

    @tf.function(input_signature=[_spec([None, 2], name="values"), _spec([None], tf.int64, "row_splits")])
    def __call__(self, values, row_splits):
        rt = tf.RaggedTensor.from_row_splits(values, row_splits, validate=True)
        projected = tf.ragged.map_flat_values(lambda v: tf.matmul(v, self.proj), rt)
        return {
            "row_sum": tf.reduce_sum(projected, axis=1),
            "row_mean": tf.reduce_mean(rt, axis=1),
            "row_max": tf.reduce_max(rt, axis=1),
            "padded": projected.to_tensor(default_value=-1.0),
            "row_lengths": rt.row_lengths(),
            "last": tf.gather(rt, [2, 0]).to_tensor(),
        }


@model("ragged", FAMILY,
       "tf.RaggedTensor.from_row_splits inside the signature: map_flat_values, ragged reductions, to_tensor")
def ragged(ctx):
    m = _Ragged()
    _save(m, ctx, serving_default=m.__call__)
    return Io({"serving_default": {"values": ctx.normal((9, 2)),
                                   "row_splits": np.array([0, 3, 4, 9], np.int64)}})


class _Scan(tf.Module):
    @tf.function(input_signature=[_spec([None, 4], name="x")])
    def __call__(self, x):
        cum = tf.scan(lambda a, r: 0.5 * a + r, x)
        mapped = tf.map_fn(lambda r: tf.reduce_sum(tf.sort(r) * tf.range(4, dtype=tf.float32)), x)
        return {"scan": cum, "map_fn": mapped}


@model("scan_map_fn", FAMILY, "tf.scan (leaky cumulative sum) and tf.map_fn (per-row sort) over a batch")
def scan_map_fn(ctx):
    m = _Scan()
    _save(m, ctx, serving_default=m.__call__)
    return Io({"serving_default": {"x": ctx.normal((5, 4))}})
