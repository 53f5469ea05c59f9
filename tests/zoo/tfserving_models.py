"""Equivalents of TensorFlow Serving's own test models
(tensorflow_serving/servables/tensorflow/testdata), written with TF 2.21 into
<zoo>/tfserving/<the same folder>/<the same version folder>, so the serving
tests run where the third-party fixtures' copies (TFHOST_FIXTURES) are absent
(src/base/test_tfserving_models.h: TfServingModelPath prefers those copies).

Each one keeps what the tests rely on: signature keys, method names, input
and output keys, tensor names, dtypes and shapes, variable values, assets,
init op collection and version folders. The TF1 models are TF1 graphs
written by SavedModelBuilder with reference variables (VariableV2) and the
v1 ParseExample op, as the TF 1.x exports hold; the TF2 model is a
tf.Module saved by tf.saved_model.save. What they compute:

  saved_model_half_plus_two_cpu/00000123      y = 0.5x + 2, y2 = 0.5x + 3, y3 = 0.5 x2 + 3
                                              (a2, c2 for y3); assets/foo.txt; main_op
  saved_model_half_plus_two_2_versions/00000123, /00000124   the same with classify_x2_to_y3,
                                              y3 = a x2 + c; legacy_init_op
  saved_model_half_plus_three/00000123        y = 0.5x + 3; a "tensorflow/serving/regress" key
                                              whose recorded input dtype is DT_FLOAT (TF 1.0's)
  saved_model_half_plus_two_tf2_cpu/00000123  TF2 functions, every method name predict
  saved_model_counter/00000123                get/incr/incr_by/reset a float_ref counter
  matrix_half_plus_two/1                      y = 0.5x + 2 on [N,3,3], constants only, no variables/
  bad_half_plus_two/00000123                  export.meta + a checkpoint: not a SavedModel

None of TF Serving's originals carries assets.extra/tf_serving_warmup_requests
(the tests that replay warm-up records write their own), so none is written.

    scripts/py tests/zoo/tfserving_models.py --out DIR    (generate.py calls write_all)
"""
import argparse
import os
import shutil
import sys

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import meta_graph_pb2, saved_model_pb2
from tensorflow.python.ops import gen_math_ops, gen_parsing_ops

v1 = tf.compat.v1
SERVE = tf.saved_model.SERVING
VERSION = "00000123"
ASSET_NAME = "foo.txt"
ASSET_CONTENTS = "asset-file-contents"  # 19 bytes, as upstream's
PREDICT = tf.saved_model.PREDICT_METHOD_NAME
REGRESS = tf.saved_model.REGRESS_METHOD_NAME
CLASSIFY = tf.saved_model.CLASSIFY_METHOD_NAME


def _info(tensor):
    return v1.saved_model.build_tensor_info(tensor)


def _sig(inputs, outputs, method):
    return v1.saved_model.build_signature_def(
        {k: _info(t) for k, t in inputs.items()}, {k: _info(t) for k, t in outputs.items()}, method)


def _parse_x_x2(serialized, with_x2=True):
    """tf.parse_example as TF 1.x built it: the v1 ParseExample op, dense x
    (required) and x2 (default 0.0), each FixedLen [1] float."""
    keys = ["x", "x2"] if with_x2 else ["x"]
    defaults = [tf.constant([], tf.float32)]
    if with_x2:
        defaults.append(tf.reshape(tf.constant(0.0), [1]))
    with tf.name_scope("ParseExample"):
        out = gen_parsing_ops.parse_example(
            serialized, names=tf.constant([], tf.string), sparse_keys=[],
            dense_keys=[tf.constant(k) for k in keys], dense_defaults=defaults,
            sparse_types=[], dense_shapes=[[1]] * len(keys))
    return list(out.dense_values)


def _asset(scratch):
    """An asset file and the TF1 plumbing upstream used: the file's path in
    ASSET_FILEPATHS and an op that assigns its name to a variable that is
    not saved (collections=[]), run as the init op."""
    os.makedirs(scratch, exist_ok=True)
    path = os.path.join(scratch, ASSET_NAME)
    with open(path, "w") as f:
        f.write(ASSET_CONTENTS)
    v1.add_to_collection(v1.GraphKeys.ASSET_FILEPATHS, tf.constant(path))
    filename = v1.Variable(ASSET_NAME, name="filename_tensor", trainable=False, collections=[],
                           use_resource=False)
    return filename.assign(ASSET_NAME)


def _save(sess, export_dir, signatures, main_op=None, legacy_init_op=None, assets_collection=None):
    """SavedModelBuilder with one MetaGraph tagged "serve". TF 2.21 files a
    legacy_init_op under saved_model_main_op; TF 1.x exports hold it under
    its own collection, which loaders must still find, so it is moved back."""
    builder = v1.saved_model.Builder(export_dir)
    builder.add_meta_graph_and_variables(sess, [SERVE], signature_def_map=signatures,
                                         assets_collection=assets_collection, strip_default_attrs=True,
                                         main_op=main_op if legacy_init_op is None else legacy_init_op)
    builder.save()
    if legacy_init_op is not None:
        path = os.path.join(export_dir, "saved_model.pb")
        model = saved_model_pb2.SavedModel()
        with open(path, "rb") as f:
            model.ParseFromString(f.read())
        collections = model.meta_graphs[0].collection_def
        collections["legacy_init_op"].CopyFrom(collections["saved_model_main_op"])
        del collections["saved_model_main_op"]
        with open(path, "wb") as f:
            f.write(model.SerializeToString(deterministic=True))


def _add(x, y, name=None):
    """The Add op TF 1.x's tf.add wrote (TF 2's writes AddV2)."""
    return gen_math_ops.add(x, y, name=name)


def _var(name, value):
    return v1.Variable(value, name=name, use_resource=False)


def _affine(w, x, bias, name, identity):
    """w * x + bias named `name`: TF 1.14's export names an Identity after the
    Add, TF 1.1's the Add itself."""
    if identity:
        return tf.identity(_add(tf.multiply(w, x), bias), name=name)
    return _add(tf.multiply(w, x), bias, name=name)


def half_plus_two_tf1(export_dir, scratch, variant):
    """variant "cpu": TF 1.14's export (a2/c2 for y3, five signatures, main_op,
    ops pinned to the CPU); "2_versions": TF 1.1's (y3 = a x2 + c, six
    signatures with classify_x2_to_y3, legacy_init_op)."""
    cpu = variant == "cpu"
    g = tf.Graph()
    with g.as_default(), v1.Session(graph=g) as sess:
        with tf.device("/cpu:0" if cpu else None):
            a, b, c = _var("a", 0.5), _var("b", 2.0), _var("c", 3.0)
            serialized = v1.placeholder(tf.string, name="tf_example")  # unknown rank, as TF 1.x recorded it
            px, px2 = _parse_x_x2(serialized)
            x = tf.identity(px, name="x")
            y = _affine(a, x, b, "y", cpu)
            y2 = _affine(a, x, c, "y2", cpu)
            x2 = tf.identity(px2, name="x2")
            if cpu:  # separate a2, c2 for y3, as upstream added for TF-TRT
                y3 = _affine(_var("a2", 0.5), x2, _var("c2", 3.0), "y3", cpu)
            else:
                y3 = _affine(a, x2, c, "y3", cpu)
        assign_filename = _asset(scratch)
        signatures = {
            "serving_default": _sig({"x": x}, {"y": y}, PREDICT),
            "regress_x_to_y": _sig({"inputs": serialized}, {"outputs": y}, REGRESS),
            "regress_x_to_y2": _sig({"inputs": serialized}, {"outputs": y2}, REGRESS),
            "regress_x2_to_y3": _sig({"inputs": x2}, {"outputs": y3}, REGRESS),
            "classify_x_to_y": _sig({"inputs": serialized}, {"scores": y}, CLASSIFY),
        }
        if not cpu:
            signatures["classify_x2_to_y3"] = _sig({"inputs": x2}, {"scores": y3}, CLASSIFY)
        init = tf.group(assign_filename)
        sess.run(v1.global_variables_initializer())
        assets = v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS)
        if cpu:
            _save(sess, export_dir, signatures, assets_collection=assets, main_op=init)
        else:
            _save(sess, export_dir, signatures, assets_collection=assets, legacy_init_op=init)


def half_plus_three_tf1(export_dir, scratch):
    """TF 1.0's export: y = 0.5x + 3. Its signatures carry no shapes, and the
    regress signature, keyed by the method name itself, records its string
    input as DT_FLOAT; both are kept, since tfhost must cope with them."""
    g = tf.Graph()
    with g.as_default(), v1.Session(graph=g) as sess:
        a, b, c = _var("a", 0.5), _var("b", 3.0), _var("c", 3.0)
        serialized = v1.placeholder(tf.string, name="tf_example")
        (px,) = _parse_x_x2(serialized, with_x2=False)
        x = tf.identity(px, name="x")
        y = _add(tf.multiply(a, x), b, name="y")
        x2 = v1.placeholder(tf.float32, name="x2")  # unused, as upstream's
        _add(tf.multiply(a, x2), c, name="y2")
        assign_filename = _asset(scratch)
        regress_out = tf.identity(y)

        def bare(tensor, dtype):  # name and dtype only: TF 1.0 wrote no shapes
            return meta_graph_pb2.TensorInfo(name=tensor.name, dtype=dtype.as_datatype_enum)

        predict = meta_graph_pb2.SignatureDef(method_name=PREDICT)
        predict.inputs["x"].CopyFrom(bare(x, tf.float32))
        predict.outputs["y"].CopyFrom(bare(y, tf.float32))
        regress = meta_graph_pb2.SignatureDef(method_name=REGRESS)
        regress.inputs["inputs"].CopyFrom(bare(serialized, tf.float32))
        regress.outputs["outputs"].CopyFrom(bare(regress_out, tf.float32))
        init = tf.group(assign_filename)
        sess.run(v1.global_variables_initializer())
        _save(sess, export_dir, {"serving_default": predict, REGRESS: regress},
              assets_collection=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS), legacy_init_op=init)


def counter_tf1(export_dir):
    """A float_ref counter read, incremented and reset by four predict
    signatures (get_counter, incr_counter, incr_counter_by, reset_counter)."""
    g = tf.Graph()
    with g.as_default(), v1.Session(graph=g) as sess:
        counter = _var("counter", 0.0)
        with tf.name_scope("incr_counter_op"):
            incr = counter.assign_add(1.0)
        delta = v1.placeholder(tf.float32, name="delta")
        with tf.name_scope("incr_counter_by_op"):
            incr_by = counter.assign_add(delta)
        with tf.name_scope("reset_counter_op"):
            reset = counter.assign(0.0)
        sess.run(v1.global_variables_initializer())
        # The variable itself (counter:0, DT_FLOAT_REF), as upstream's signature names it.
        get = meta_graph_pb2.SignatureDef(method_name=PREDICT)
        get.outputs["output"].CopyFrom(meta_graph_pb2.TensorInfo(
            name=counter.name, dtype=counter.dtype.as_datatype_enum, tensor_shape=tf.TensorShape([]).as_proto()))
        _save(sess, export_dir, {
            "get_counter": get,
            "incr_counter": _sig({}, {"output": incr}, PREDICT),
            "incr_counter_by": _sig({"delta": delta}, {"output": incr_by}, PREDICT),
            "reset_counter": _sig({}, {"output": reset}, PREDICT),
        })


def matrix_half_plus_two_tf1(export_dir):
    """Constants only, so no variables/ folder and no saver: the
    SavedModel proto is written by hand, as SavedModelBuilder always adds a
    saver."""
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 3, 3], name="x")
        y = _add(tf.multiply(tf.constant(0.5), x), tf.constant(2.0), name="y")
        meta = v1.train.export_meta_graph(graph=g, clear_devices=True, strip_default_attrs=True)
        meta.meta_info_def.tags.append(SERVE)
        meta.signature_def["serving_default"].CopyFrom(_sig({"x": x}, {"y": y}, PREDICT))
    os.makedirs(export_dir, exist_ok=True)
    model = saved_model_pb2.SavedModel(saved_model_schema_version=1, meta_graphs=[meta])
    with open(os.path.join(export_dir, "saved_model.pb"), "wb") as f:
        f.write(model.SerializeToString(deterministic=True))


def bad_half_plus_two_tf1(export_dir):
    """Not a SavedModel on purpose: a MetaGraph (export.meta) and a checkpoint
    (export) without signatures, as TF Serving's fault-tolerance tests want."""
    g = tf.Graph()
    with g.as_default(), v1.Session(graph=g) as sess:
        a, b = _var("Variable", 0.5), _var("Variable_1", 2.0)
        x = v1.placeholder(tf.float32)
        _add(tf.multiply(a, x), b)
        sess.run(v1.global_variables_initializer())
        saver = v1.train.Saver()
        os.makedirs(export_dir, exist_ok=True)
        saver.export_meta_graph(filename=os.path.join(export_dir, "export.meta"))
        saver.save(sess, os.path.join(export_dir, "export"), write_meta_graph=False)


class _HalfPlusTwoTf2(tf.Module):
    def __init__(self, asset_path):
        super().__init__()
        self.a = tf.Variable(0.5, name="a")
        self.b = tf.Variable(2.0, name="b")
        self.c = tf.Variable(3.0, name="c")
        self.asset = tf.saved_model.Asset(asset_path)

    def _x(self, serialized):
        return tf.io.parse_example(serialized, {"x": tf.io.FixedLenFeature([1], tf.float32)})["x"]

    @tf.function(input_signature=[tf.TensorSpec([1], tf.float32)])
    def predict(self, x=tf.constant([0.0])):  # the default becomes the signature's "defaults"
        return {"y": self.a * x + self.b}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def regress_xy(self, inputs):
        return {"outputs": self.a * self._x(inputs) + self.b}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def regress_xy2(self, inputs):
        return {"outputs": self.a * self._x(inputs) + self.c}

    @tf.function(input_signature=[tf.TensorSpec([1], tf.float32)])
    def regress_x2y3(self, inputs):
        return {"outputs": self.a * inputs + self.c}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def classify_xy(self, inputs):
        return {"scores": self.a * self._x(inputs) + self.b}

    @tf.function(input_signature=[tf.TensorSpec([1], tf.float32)])
    def classify_x2y3(self, inputs):
        return {"scores": self.a * inputs + self.c}


def half_plus_two_tf2(export_dir, scratch):
    """tf.saved_model.save of a tf.Module: every signature's method name is
    predict, serving_default's x is [1] with default [0.0], and an asset."""
    os.makedirs(scratch, exist_ok=True)
    path = os.path.join(scratch, ASSET_NAME)
    with open(path, "w") as f:
        f.write(ASSET_CONTENTS)
    m = _HalfPlusTwoTf2(path)
    tf.saved_model.save(m, export_dir, signatures={
        "serving_default": m.predict,
        "regress_x_to_y": m.regress_xy,
        "regress_x_to_y2": m.regress_xy2,
        "regress_x2_to_y3": m.regress_x2y3,
        "classify_x_to_y": m.classify_xy,
        "classify_x2_to_y3": m.classify_x2y3,
    })


# ------------------------------------------------------------- TensorFlow's check

def _example(**features):
    return tf.train.Example(features=tf.train.Features(feature={
        k: tf.train.Feature(float_list=tf.train.FloatList(value=[v])) for k, v in features.items()
    })).SerializeToString()


def _run_tf1(export_dir, fetches_by_sig):
    """Loads a TF1 SavedModel with TensorFlow and runs {signature: feed} ->
    {signature: {output key: value}}."""
    g = tf.Graph()
    with g.as_default(), v1.Session(graph=g) as sess:
        meta = v1.saved_model.loader.load(sess, [SERVE], export_dir)
        out = {}
        for sig, feed in fetches_by_sig:
            sd = meta.signature_def[sig]
            out.setdefault(sig, []).append(sess.run(
                {k: v.name for k, v in sd.outputs.items()},
                {sd.inputs[k].name: v for k, v in feed.items()}))
        return out


def _expect(what, got, want):
    if not np.allclose(np.asarray(got, np.float32).reshape(-1), np.asarray(want, np.float32).reshape(-1)):
        raise AssertionError(f"{what}: TensorFlow gives {np.asarray(got).tolist()}, want {want}")


def check_with_tensorflow(root):
    """The numbers TF Serving's tests expect of the originals, from TensorFlow
    running the written models."""
    two = os.path.join(root, "saved_model_half_plus_two_cpu", VERSION)
    examples = np.array([_example(x=2.0), _example(x=80.0, x2=1.0)], dtype=object)
    for model_dir in (two, os.path.join(root, "saved_model_half_plus_two_2_versions", "00000124")):
        r = _run_tf1(model_dir, [
            ("serving_default", {"x": np.array([[1.0], [2.0], [5.0]], np.float32)}),
            ("regress_x_to_y", {"inputs": examples}),
            ("regress_x_to_y2", {"inputs": examples}),
            ("regress_x2_to_y3", {"inputs": np.array([[1.0]], np.float32)}),
            ("classify_x_to_y", {"inputs": examples}),
        ])
        _expect(f"{model_dir} predict", r["serving_default"][0]["y"], [2.5, 3.0, 4.5])
        _expect(f"{model_dir} regress_x_to_y", r["regress_x_to_y"][0]["outputs"], [3.0, 42.0])
        _expect(f"{model_dir} regress_x_to_y2", r["regress_x_to_y2"][0]["outputs"], [4.0, 43.0])
        _expect(f"{model_dir} regress_x2_to_y3", r["regress_x2_to_y3"][0]["outputs"], [3.5])
        _expect(f"{model_dir} classify_x_to_y", r["classify_x_to_y"][0]["scores"], [3.0, 42.0])
    three = _run_tf1(os.path.join(root, "saved_model_half_plus_three", VERSION), [
        ("serving_default", {"x": np.array([[1.0], [2.0], [5.0]], np.float32)}),
        (REGRESS, {"inputs": np.array([_example(x=1.0), _example(x=2.0)], dtype=object)}),
    ])
    _expect("half_plus_three predict", three["serving_default"][0]["y"], [3.5, 4.0, 5.5])
    _expect("half_plus_three regress", three[REGRESS][0]["outputs"], [3.5, 4.0])
    counter = _run_tf1(os.path.join(root, "saved_model_counter", VERSION), [
        ("get_counter", {}), ("incr_counter", {}), ("reset_counter", {}), ("incr_counter", {}),
        ("incr_counter_by", {"delta": np.float32(3.0)}),
    ])
    _expect("counter sequence", [counter["get_counter"][0]["output"], counter["incr_counter"][0]["output"],
                                 counter["reset_counter"][0]["output"], counter["incr_counter"][1]["output"],
                                 counter["incr_counter_by"][0]["output"]], [0, 1, 0, 1, 4])
    matrix = _run_tf1(os.path.join(root, "matrix_half_plus_two", "1"), [
        ("serving_default", {"x": np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3)})])
    _expect("matrix_half_plus_two", matrix["serving_default"][0]["y"], np.arange(1, 10) * 0.5 + 2)
    loaded = tf.saved_model.load(os.path.join(root, "saved_model_half_plus_two_tf2_cpu", VERSION))
    sigs = loaded.signatures
    _expect("tf2 predict", sigs["serving_default"](x=tf.constant([2.0]))["y"], [3.0])
    _expect("tf2 regress_x_to_y", sigs["regress_x_to_y"](inputs=tf.constant([_example(x=2.0)]))["outputs"], [3.0])
    _expect("tf2 classify_x2_to_y3", sigs["classify_x2_to_y3"](inputs=tf.constant([1.0]))["scores"], [3.5])


def write_all(out):
    """Writes every model under `out` (replacing what is there) and checks
    them with TensorFlow. Returns the folder names written."""
    shutil.rmtree(out, ignore_errors=True)
    scratch = os.path.join(out, "_scratch")

    def version(name, v=VERSION):
        return os.path.join(out, name, v)

    half_plus_two_tf1(version("saved_model_half_plus_two_cpu"), scratch, "cpu")
    for v in ("00000123", "00000124"):
        half_plus_two_tf1(version("saved_model_half_plus_two_2_versions", v), scratch, "2_versions")
    half_plus_three_tf1(version("saved_model_half_plus_three"), scratch)
    half_plus_two_tf2(version("saved_model_half_plus_two_tf2_cpu"), scratch)
    counter_tf1(version("saved_model_counter"))
    matrix_half_plus_two_tf1(version("matrix_half_plus_two", "1"))
    bad_half_plus_two_tf1(version("bad_half_plus_two"))
    # The models must not point at the scratch asset: it goes before TensorFlow loads them.
    shutil.rmtree(scratch)
    check_with_tensorflow(out)
    return sorted(os.listdir(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder to write (its contents are replaced)")
    args = ap.parse_args()
    names = write_all(args.out)
    print(f"[tfserving] {len(names)} models written to {args.out}: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    sys.exit(main())
