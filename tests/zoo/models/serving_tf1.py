"""TF Serving's tf.Example APIs: SavedModels whose signatures carry the
classify and regress method names and take serialized tf.Example protos.
TF2's tf.saved_model.save writes every signature as predict, so these are
TF1 graphs written with SavedModelBuilder, as Estimator exports were.
"""
import numpy as np
import tensorflow as tf
# index_table_from_file/tensor are what tf.contrib.lookup and feature columns
# called when TF1 models were exported; TF 2.21 keeps them but no longer
# exports them under tf.compat.v1.lookup, and the graph they build is the point.
from tensorflow.python.ops import lookup_ops

from zoo_lib import Io, model, predict_sig, save_tf1, strings, tf1_graph

FAMILY = "serving_tf1"
OCCUPATIONS = ["engineer", "teacher", "nurse", "artist", "farmer"]
v1 = tf.compat.v1


def _example(**features):
    feats = {}
    for name, value in features.items():
        if isinstance(value[0], float):
            feats[name] = tf.train.Feature(float_list=tf.train.FloatList(value=value))
        elif isinstance(value[0], int):
            feats[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=value))
        else:
            feats[name] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[v.encode() for v in value]))
    # Map fields serialize in hash order unless asked not to; the inputs must be stable.
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString(deterministic=True)


def _dense(name, x, units, activation=None):
    w = v1.get_variable(f"{name}/kernel", [x.shape[-1], units])
    b = v1.get_variable(f"{name}/bias", [units], initializer=v1.constant_initializer(0.1))
    y = tf.nn.bias_add(tf.matmul(x, w), b)
    return activation(y) if activation else y


def _wide_and_deep(serialized):
    f = tf.io.parse_example(serialized, {
        "age": tf.io.FixedLenFeature([1], tf.float32, default_value=[35.0]),
        "hours": tf.io.FixedLenFeature([1], tf.float32, default_value=[40.0]),
        "occupation": tf.io.FixedLenFeature([1], tf.string, default_value=[""]),
        "education": tf.io.FixedLenFeature([1], tf.string, default_value=[""]),
        "tags": tf.io.VarLenFeature(tf.string),
    })
    occ_table = lookup_ops.index_table_from_tensor(tf.constant(OCCUPATIONS), num_oov_buckets=1)
    occ_ids = occ_table.lookup(f["occupation"][:, 0])
    tag_ids = tf.SparseTensor(f["tags"].indices, occ_table.lookup(f["tags"].values), f["tags"].dense_shape)
    # Old-style reference variables (VariableV2), as the Estimator era wrote them.
    with v1.variable_scope("wide_deep", use_resource=False):
        emb = v1.get_variable("occupation_embedding", [len(OCCUPATIONS) + 1, 4])
        deep_in = tf.concat([
            (f["age"] - 38.0) / 12.0, (f["hours"] - 40.0) / 10.0,
            tf.nn.embedding_lookup(emb, occ_ids),
            tf.nn.safe_embedding_lookup_sparse(emb, tag_ids, combiner="mean"),
        ], axis=1)
        deep = _dense("deep_out", _dense("deep_hidden", deep_in, 8, tf.nn.relu), 1)
        edu_bucket = tf.strings.to_hash_bucket_fast(f["education"][:, 0], 8)
        cross = tf.strings.to_hash_bucket_fast(
            tf.strings.join([f["education"][:, 0], f["occupation"][:, 0]], separator="_x_"), 16)
        wide_edu = v1.get_variable("wide_education", [8, 1])
        wide_cross = v1.get_variable("wide_cross", [16, 1])
        wide_bias = v1.get_variable("wide_bias", [1], initializer=v1.constant_initializer(-0.2))
        wide = tf.gather(wide_edu, edu_bucket) + tf.gather(wide_cross, cross) + wide_bias
    return wide + deep


@model("wide_deep_example", FAMILY,
       "TF1 wide & deep on serialized tf.Example: ParseExampleV2, vocab table, hash buckets and crosses, "
       "sparse embedding; classify, regress and predict signatures")
def wide_deep_example(ctx):
    g = tf1_graph(ctx.seed)
    with g.as_default():
        serialized = v1.placeholder(tf.string, [None], name="input_example_tensor")
        logits = _wide_and_deep(serialized)
        prob = tf.sigmoid(logits)
        scores = tf.concat([1.0 - prob, prob], axis=1)
        classes = tf.tile(tf.constant([["0", "1"]]), [tf.shape(logits)[0], 1])
        sigs = v1.saved_model
        classify = sigs.classification_signature_def(serialized, classes, scores)
        signatures = {
            "serving_default": classify,
            "classification": classify,
            "regression": sigs.regression_signature_def(serialized, prob),
            "predict": predict_sig({"examples": serialized},
                                   {"logits": logits, "probabilities": prob,
                                    "class_ids": tf.cast(prob > 0.5, tf.int64)}),
        }
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            save_tf1(sess, ctx.export_dir, signatures, legacy_init_op=v1.tables_initializer())
    examples = strings([
        _example(age=[29.0], hours=[45.0], occupation=["nurse"], education=["masters"], tags=["artist", "farmer"]),
        _example(age=[61.0], occupation=["pilot"], education=["phd"]),  # OOV occupation, default hours
        _example(hours=[20.0], tags=["teacher"]),
        _example(age=[45.0], hours=[60.0], occupation=["engineer"], education=["bachelors"],
                 tags=["engineer", "nurse", "unknown"]),
    ])
    return Io({k: {"inputs" if k != "predict" else "examples": examples} for k in signatures})


@model("multi_method_signatures", FAMILY,
       "TF1 SavedModel with four independent subgraphs: predict (serving_default), regress, classify "
       "(scores only) and an int64 predict; no signature shares an input or variable")
def multi_method_signatures(ctx):
    g = tf1_graph(ctx.seed)
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        y = _dense("predict_net", x, 2, tf.tanh)

        reg_in = v1.placeholder(tf.string, [None], name="regress_examples")
        f = tf.io.parse_example(reg_in, {"f": tf.io.FixedLenFeature([3], tf.float32)})["f"]
        reg_out = _dense("regress_net", f, 1)

        cls_in = v1.placeholder(tf.string, [None], name="classify_examples")
        words = tf.io.parse_example(cls_in, {"words": tf.io.VarLenFeature(tf.string)})["words"]
        table = lookup_ops.index_table_from_tensor(tf.constant(OCCUPATIONS), default_value=-1)
        ids = table.lookup(words)
        # Out-of-vocabulary words (-1) and padding (-1) one-hot to zeros.
        counts = tf.reduce_sum(tf.one_hot(tf.sparse.to_dense(ids, default_value=-1), len(OCCUPATIONS)), 1)
        cls_scores = tf.nn.softmax(_dense("classify_net", counts, 3))

        ids_in = v1.placeholder(tf.int64, [None], name="ids")
        ids_out = tf.math.cumsum(ids_in * ids_in, exclusive=True)

        sigs = v1.saved_model
        signatures = {
            "serving_default": predict_sig({"x": x}, {"y": y}),
            "score": sigs.regression_signature_def(reg_in, reg_out),
            "label": sigs.classification_signature_def(cls_in, None, cls_scores),
            "squares": predict_sig({"ids": ids_in}, {"cumsum": ids_out}),
        }
        with v1.Session(graph=g) as sess:
            sess.run(v1.global_variables_initializer())
            save_tf1(sess, ctx.export_dir, signatures, main_op=v1.tables_initializer())
    reg = strings([_example(f=[0.5, -1.0, 2.0]), _example(f=[3.0, 0.0, -0.25])])
    cls = strings([_example(words=["nurse", "nurse", "artist"]), _example(words=["pilot"]),
                   _example(words=["farmer", "engineer", "teacher", "nurse"])])
    return Io({
        "serving_default": {"x": ctx.normal((4, 3))},
        "score": {"inputs": reg},
        "label": {"inputs": cls},
        "squares": {"ids": np.array([3, -4, 1000000, 7], np.int64)},
    })
