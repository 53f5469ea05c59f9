"""TF1-era SavedModels written with SavedModelBuilder from tf.compat.v1 graphs:
asset files, lookup tables and init ops; a graph that still holds its
training step; and v1 control flow (Switch/Merge/Enter/Exit).

Variables here are reference variables (VariableV2) where it matters, since
that is what graphs exported by TF 1.x contain.
"""
import numpy as np
import tensorflow as tf
# index_table_from_file/tensor are what tf.contrib.lookup and feature columns
# called when TF1 models were exported; TF 2.21 keeps them but no longer
# exports them under tf.compat.v1.lookup, and the graph they build is the point.
from tensorflow.python.ops import lookup_ops

from zoo_lib import Io, model, predict_sig, save_tf1, strings, tf1_graph

FAMILY = "tf1"
v1 = tf.compat.v1
VOCAB = ["<unk>", "apple", "banana", "cherry", "date", "elderberry", "fig"]


@model("tf1_lookup_assets", FAMILY,
       "TF1: index_table_from_file on an asset vocab, index_to_string_table_from_file, a local variable; "
       "initialized by main_op (tables + local variables)")
def tf1_lookup_assets(ctx):
    vocab = ctx.path("fruits.txt")
    with open(vocab, "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    g = tf1_graph(ctx.seed)
    with g.as_default():
        words = v1.placeholder(tf.string, [None], name="words")
        ids_in = v1.placeholder(tf.int64, [None], name="ids")
        to_id = lookup_ops.index_table_from_file(vocab, num_oov_buckets=2, default_value=-1)
        to_word = lookup_ops.index_to_string_table_from_file(vocab, default_value="<none>")
        # A local variable: restored by nothing, only main_op gives it a value.
        offset = v1.Variable(100, dtype=tf.int64, trainable=False, name="offset",
                             collections=[v1.GraphKeys.LOCAL_VARIABLES])
        with v1.variable_scope("scores", use_resource=False):
            weights = v1.get_variable("word_weights", [len(VOCAB) + 2, 1])
        ids = to_id.lookup(words)
        signatures = {
            "serving_default": predict_sig(
                {"words": words},
                {"ids": ids, "shifted": ids + offset, "score": tf.gather(weights, ids)}),
            "reverse": predict_sig({"ids": ids_in}, {"words": to_word.lookup(ids_in)}),
        }
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            save_tf1(sess, ctx.export_dir, signatures, main_op=v1.saved_model.main_op.main_op(),
                     assets=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS))
    return Io({
        "serving_default": {"words": strings(["banana", "kiwi", "fig", "", "apple", "mango"])},
        "reverse": {"ids": np.array([1, 6, 7, 0, -3], np.int64)},
    })


@model("tf1_training_graph", FAMILY,
       "TF1 MLP saved with its training graph in the MetaGraph: AdamOptimizer minimize (slots, ApplyAdam, "
       "gradients, global_step) after 5 steps; the predict signature reaches none of it")
def tf1_training_graph(ctx):
    g = tf1_graph(ctx.seed)
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        labels = v1.placeholder(tf.float32, [None, 1], name="labels")
        with v1.variable_scope("mlp", use_resource=False):
            w1 = v1.get_variable("w1", [4, 8])
            b1 = v1.get_variable("b1", [8], initializer=v1.zeros_initializer())
            w2 = v1.get_variable("w2", [8, 1])
            b2 = v1.get_variable("b2", [1], initializer=v1.zeros_initializer())
            hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
            # Dropout is only in the training path; serving reads `prediction`.
            train_hidden = tf.nn.dropout(hidden, rate=0.2, seed=1)
            prediction = tf.identity(tf.matmul(hidden, w2) + b2, name="prediction")
            train_out = tf.matmul(train_hidden, w2) + b2
        loss = v1.losses.mean_squared_error(labels, train_out)
        global_step = v1.train.get_or_create_global_step()
        train_op = v1.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
        v1.add_to_collection(v1.GraphKeys.TRAIN_OP, train_op)
        rng = np.random.default_rng(ctx.seed + 1)
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            # Trained a little so the Adam slots and beta powers are not their initial values.
            for _ in range(5):
                xb = rng.standard_normal((16, 4)).astype(np.float32)
                sess.run(train_op, {x: xb, labels: xb.sum(1, keepdims=True)})
            sig = predict_sig({"x": x}, {"prediction": prediction})
            save_tf1(sess, ctx.export_dir, {"serving_default": sig})
    return Io({"serving_default": {"x": ctx.normal((3, 4))}})


@model("tf1_control_flow", FAMILY,
       "TF1 v1 control flow: tf.cond (Switch/Merge) both ways, tf.while_loop (Enter/Exit/NextIteration) "
       "with a cond inside, on reference variables")
def tf1_control_flow(ctx):
    v1.disable_control_flow_v2()
    g = tf1_graph(ctx.seed)
    with g.as_default():
        x = v1.placeholder(tf.float32, [2, 3], name="x")
        n = v1.placeholder(tf.int32, [], name="n")
        with v1.variable_scope("cf", use_resource=False):
            w = v1.get_variable("w", [3, 3])
        rows = tf.unstack(x, num=2)
        branch = [tf.cond(tf.reduce_sum(r) > 0, lambda r=r: r * 2.0 + 1.0, lambda r=r: tf.abs(r) - 3.0)
                  for r in rows]

        def body(i, h, total):
            h = tf.tanh(tf.matmul(h, w))
            extra = tf.cond(tf.equal(i % 2, 0), lambda: tf.reduce_sum(h), lambda: -tf.reduce_max(h))
            return i + 1, h, total + extra
        _, h, total = tf.while_loop(lambda i, h, t: i < n, body, [tf.constant(0), x, tf.constant(0.0)])
        sig = predict_sig({"x": x, "n": n}, {"row0": branch[0], "row1": branch[1], "h": h, "total": total})
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            save_tf1(sess, ctx.export_dir, {"serving_default": sig})
    xs = np.array([[0.5, -0.25, 1.0], [-2.0, 0.5, -0.75]], np.float32)
    return Io({"serving_default": {"x": xs, "n": np.array(5, np.int32)}})
