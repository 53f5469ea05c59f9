#!/usr/bin/env python3
"""Writes the TFLite test models: small Keras and tf.function models
converted with TensorFlow's TFLiteConverter, and LiteRT's (ai-edge-litert)
outputs for fixed inputs, in the zoo's layout and manifest format
(tests/zoo/README.md) so that tests/tflite/tflite_zoo_test.cc can hold
tfhost to them.

    TFHOST_PYTHON_ENV=peers scripts/py tests/tflite/generate.py --out DIR [--zoo ZOO]

Runs in the `peers` environment (requirements/peers.in), the one that holds
both TensorFlow's converter and LiteRT. With --zoo (a generated model zoo,
tests/zoo/README.md), each zoo model whose serving_default takes float32
inputs is converted too (builtin operators only) and fed the zoo's own
inputs, as "zoo_<name>", and quantized to int8 after training
(representative inputs, int8 operators, inputs and outputs), as
"zoo_<name>_int8"; those the converter refuses are listed under "skipped"
in the manifest with its reason.

Layout:
    DIR/manifest.json
    DIR/<model>/model.tflite
    DIR/<model>/io/<signature>/in_<i>.pb, out_<i>.pb    serialized TensorProtos
Keys of a model without signature_defs are its tensor names, as TF Serving
names them.
"""
import argparse
import concurrent.futures
import json
import multiprocessing
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402
from ai_edge_litert import interpreter as litert  # noqa: E402
from ai_edge_litert import schema_py_generated as schema  # noqa: E402
import flatbuffers  # noqa: E402
from tensorflow.core.framework import tensor_pb2  # noqa: E402

SEED = 0
BATCH = 2


def set_seeds():
    keras.utils.set_random_seed(SEED)
    np.random.seed(SEED)


def liven(model, rng):
    """Random weights everywhere (Keras zero-initializes biases and batch
    norm statistics, which would hide a bias or normalization mapped wrong)."""
    for w in model.weights:
        shape = tuple(w.shape)
        if "moving_variance" in w.path or "variance" in w.name:
            w.assign(rng.uniform(0.5, 1.5, shape).astype(np.float32))
        else:
            fan_in = max(1, int(np.prod(shape[:-1])) if len(shape) > 1 else 1)
            w.assign((rng.normal(0, 1, shape) / np.sqrt(fan_in)).astype(np.float32))


def convert_keras(model, workdir, fp16=False):
    path = os.path.join(workdir, "saved_model")
    model.export(path, verbose=False)
    converter = tf.lite.TFLiteConverter.from_saved_model(path)
    if fp16:
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    return converter.convert()


def strip_signatures(tflite_bytes):
    """The same model without signature_defs, as older converters wrote."""
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(tflite_bytes, 0))
    model.signatureDefs = None
    builder = flatbuffers.Builder(len(tflite_bytes) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


# --- the models -------------------------------------------------------------

def small_cnn(rng, workdir):
    inputs = keras.Input((16, 16, 3), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
    x = keras.layers.MaxPooling2D(2)(x)
    x = keras.layers.Conv2D(12, 3, strides=2, padding="valid", activation="relu6")(x)
    x = keras.layers.AveragePooling2D(2, padding="same")(x)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(10)(x)
    outputs = keras.layers.Softmax(name="probs")(x)
    model = keras.Model(inputs, outputs)
    liven(model, rng)
    return convert_keras(model, workdir), {"image": rng.normal(0, 1, (BATCH, 16, 16, 3))}


def mobilenet_block(rng, workdir):
    inputs = keras.Input((24, 24, 8), name="x")
    x = keras.layers.Conv2D(16, 1, use_bias=False)(inputs)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Activation("hard_swish")(x)
    x = keras.layers.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.ReLU(6.0)(x)
    se = keras.layers.GlobalAveragePooling2D(keepdims=True)(x)
    se = keras.layers.Conv2D(4, 1, activation="relu")(se)
    se = keras.layers.Conv2D(16, 1, activation="hard_sigmoid")(se)
    x = keras.layers.Multiply()([x, se])
    x = keras.layers.DepthwiseConv2D(3, strides=2, depth_multiplier=2, padding="valid")(x)
    x = keras.layers.Conv2D(8, 1)(x)
    x = keras.layers.Activation("hard_swish")(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(5, name="logits")(x)
    model = keras.Model(inputs, outputs)
    liven(model, rng)
    return convert_keras(model, workdir), {"x": rng.normal(0, 1, (BATCH, 24, 24, 8))}


def mlp(rng, workdir):
    inputs = keras.Input((20,), name="features")
    x = keras.layers.Dense(32, activation="relu")(inputs)
    x = keras.layers.Dense(16, activation="tanh")(x)
    x = keras.layers.Dense(8, activation="sigmoid")(x)
    outputs = keras.layers.Dense(3, name="score")(x)
    model = keras.Model(inputs, outputs)
    liven(model, rng)
    return convert_keras(model, workdir), {"features": rng.normal(0, 1, (BATCH, 20))}


def mlp_no_signature(rng, workdir):
    model_bytes, feed = mlp(rng, workdir)
    return strip_signatures(model_bytes), feed


def cnn_fp16_weights(rng, workdir):
    inputs = keras.Input((12, 12, 4), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
    x = keras.layers.DepthwiseConv2D(3, padding="same")(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(6, name="out")(x)
    model = keras.Model(inputs, outputs)
    liven(model, rng)
    return convert_keras(model, workdir, fp16=True), {"image": rng.normal(0, 1, (BATCH, 12, 12, 4))}


def two_signatures(rng, workdir):
    """Two signature_defs, each with its own subgraph."""
    w = tf.constant(rng.normal(0, 1, (6, 4)).astype(np.float32))

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32, name="a")])
        def project(self, a):
            return {"y": tf.nn.gelu(tf.matmul(a, w)), "z": tf.nn.leaky_relu(a, 0.1)}

        @tf.function(input_signature=[tf.TensorSpec([None, 3, 4], tf.float32, name="a"),
                                      tf.TensorSpec([None, 4, 2], tf.float32, name="b")])
        def combine(self, a, b):
            p = tf.matmul(a, b)
            return {"sum": p - 1.5, "soft": tf.nn.softmax(p * 2.0)}

    m = M()
    path = os.path.join(workdir, "saved_model")
    tf.saved_model.save(m, path, signatures={"project": m.project.get_concrete_function(),
                                             "combine": m.combine.get_concrete_function()})
    converter = tf.lite.TFLiteConverter.from_saved_model(path, signature_keys=["project", "combine"])
    return converter.convert(), {
        "project": {"a": rng.normal(0, 1, (BATCH, 6))},
        "combine": {"a": rng.normal(0, 1, (BATCH, 3, 4)), "b": rng.normal(0, 1, (BATCH, 4, 2))},
    }


def array_ops(rng, workdir):
    """Shape and data-movement operators on one input."""
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 8, 8, 3], tf.float32, name="x")])
        def serve(self, x):
            up = tf.image.resize(x, (12, 12), method="bilinear")
            padded = tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]])
            mean = tf.reduce_mean(padded, axis=[1, 2])
            t = tf.transpose(x, [0, 3, 1, 2])
            sliced = t[:, 1:, ::2, 1:7:3]
            parts = tf.split(x, 3, axis=3)
            cat = tf.concat([parts[2], parts[0] * 2.0, tf.exp(-tf.square(parts[1]))], axis=3)
            g = tf.gather(mean, tf.constant([2, 0, 1, 1]), axis=1)
            flat = tf.reshape(cat, [-1, 8 * 8 * 3])
            return {"up": tf.reduce_max(up, axis=3), "mean": mean, "sliced": sliced,
                    "flat": tf.math.rsqrt(tf.abs(flat) + 1.0) + tf.reduce_sum(g, axis=1, keepdims=True),
                    "gathered": g,
                    "stack": tf.stack([tf.squeeze(x[:, :1, :1, :1], [1, 2]), mean[:, :1]], axis=1)}

    m = M()
    path = os.path.join(workdir, "saved_model")
    tf.saved_model.save(m, path, signatures={"serving_default": m.serve.get_concrete_function()})
    return tf.lite.TFLiteConverter.from_saved_model(path).convert(), {"x": rng.normal(0, 1, (BATCH, 8, 8, 3))}


def int8_keras(model, feed, workdir):
    """A Keras model quantized to int8 as the zoo's are."""
    path = os.path.join(workdir, "saved_model")
    model.export(path, verbose=False)
    return INT8_CONVERTER.convert(path, feed), feed


def int8_convolutions(rng, workdir):
    L = keras.layers
    inputs = keras.Input((12, 12, 8), name="x")
    x = L.Conv2D(16, 3, padding="same", activation="relu6")(inputs)
    x = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu")(x)
    x = L.Conv2D(8, 1, padding="valid")(x)
    x = L.Flatten()(x)
    outputs = L.Dense(10, name="logits")(x)
    model = keras.Model(inputs, outputs)
    liven(model, rng)
    return int8_keras(model, {"x": rng.normal(0, 1, (BATCH, 12, 12, 8)).astype(np.float32)}, workdir)


def int8_residual(rng, workdir):
    L = keras.layers
    inputs = keras.Input((8, 8, 8), name="x")
    y = L.Conv2D(8, 3, padding="same")(inputs)
    x = L.Add()([inputs, y])
    x = L.MaxPooling2D(2)(x)
    x = L.Concatenate()([x, L.AveragePooling2D(2, strides=1, padding="same")(x)])
    outputs = L.Softmax(name="probs")(L.Dense(6)(L.Flatten()(x)))
    model = keras.Model(inputs, outputs)
    liven(model, rng)
    return int8_keras(model, {"x": rng.normal(0, 1, (BATCH, 8, 8, 8)).astype(np.float32)}, workdir)


def int8_activations(rng, workdir):
    L = keras.layers
    inputs = keras.Input((6, 6, 8), name="x")
    x = L.Multiply()([inputs, L.Activation("sigmoid")(inputs)])
    x = L.Activation("hard_swish")(x)
    x = L.Activation("tanh")(L.Conv2D(8, 1)(x))
    outputs = L.Reshape((6 * 6 * 8,), name="y")(x)
    model = keras.Model(inputs, outputs)
    liven(model, rng)
    return int8_keras(model, {"x": rng.normal(0, 1, (BATCH, 6, 6, 8)).astype(np.float32)}, workdir)


MODELS = [
    ("small_cnn", "Conv2D/pooling/dense CNN with softmax", small_cnn),
    ("mobilenet_block", "MobileNetV3-style block: depthwise, hard-swish, squeeze-excite", mobilenet_block),
    ("mlp", "dense layers with relu/tanh/sigmoid", mlp),
    ("mlp_no_signature", "the MLP without signature_defs (TF Serving's key convention)", mlp_no_signature),
    ("cnn_fp16_weights", "float16 weights dequantized at load", cnn_fp16_weights),
    ("two_signatures", "two signature_defs on two subgraphs", two_signatures),
    ("array_ops", "resize, pad, transpose, strided slice, split, concat, gather, reductions", array_ops),
    ("convolutions_int8", "int8: convolution with RELU6, depthwise with RELU, 1x1, fully connected",
     int8_convolutions),
    ("residual_int8", "int8: add of different scales, max and average pooling, concatenation, softmax",
     int8_residual),
    ("activations_int8", "int8: logistic and mul, hard-swish, tanh, reshape", int8_activations),
]


def zoo_models(zoo):
    """(name, what, build) for each zoo model to convert; build returns the
    model bytes and the zoo's recorded serving_default inputs."""
    with open(os.path.join(zoo, "manifest.json")) as f:
        manifest = json.load(f)

    def read(rel):
        proto = tensor_pb2.TensorProto()
        with open(os.path.join(zoo, rel), "rb") as f:
            proto.ParseFromString(f.read())
        return tf.make_ndarray(proto)

    out = []
    for m in manifest["models"]:
        sig = next((s for s in m["signatures"] if s["key"] == "serving_default"), None)
        if sig is None:
            continue
        feed = {k: read(rel) for k, rel in sig["inputs"].items()}
        if not feed or any(v.dtype != np.float32 for v in feed.values()):
            continue
        path = os.path.join(zoo, m["path"])
        if not os.path.exists(os.path.join(path, "saved_model.pb")):
            versions = [d for d in os.listdir(path) if d.isdigit()]
            path = os.path.join(path, max(versions, key=int))

        def build(rng, workdir, path=path, feed=feed):
            converter = tf.lite.TFLiteConverter.from_saved_model(path, signature_keys=["serving_default"])
            return converter.convert(), feed

        def build_int8(rng, workdir, path=path, feed=feed):
            return INT8_CONVERTER.convert(path, feed), feed

        out.append(("zoo_" + m["name"], "the zoo's %s converted to TFLite" % m["name"], build))
        out.append(("zoo_%s_int8" % m["name"], "the zoo's %s quantized to int8 after training" % m["name"],
                    build_int8))
    return out


CALIBRATION_SAMPLES = 8


def convert_int8(path, feed):
    """Full-integer post-training quantization of a SavedModel's
    serving_default: int8 operators, inputs and outputs."""
    rng = np.random.default_rng(SEED)
    converter = tf.lite.TFLiteConverter.from_saved_model(path, signature_keys=["serving_default"])
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = lambda: representative(feed, rng)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = tf.int8
    converter.inference_output_type = tf.int8
    return converter.convert()


class Int8Converter:
    """Runs convert_int8 in a worker process: the quantizer crashes on some
    graphs (a segmentation fault on a scan), which must skip that model, not
    end the generation."""

    def __init__(self):
        self.pool = None

    def convert(self, path, feed):
        if self.pool is None:
            self.pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        try:
            return self.pool.submit(convert_int8, path, feed).result()
        except concurrent.futures.process.BrokenProcessPool:
            self.pool = None
            raise RuntimeError("TensorFlow's int8 quantizer crashed on this model (its worker process died)")

    def close(self):
        if self.pool is not None:
            self.pool.shutdown()


INT8_CONVERTER = Int8Converter()


def representative(feed, rng):
    """Calibration inputs: the zoo's own, then copies with noise of a tenth
    of each input's spread, so the ranges the converter records cover the
    test inputs without being fitted to them alone."""
    yield {k: np.asarray(v, np.float32) for k, v in feed.items()}
    for _ in range(CALIBRATION_SAMPLES - 1):
        sample = {}
        for k, v in feed.items():
            v = np.asarray(v, np.float32)
            sample[k] = (v + rng.normal(0, 0.1 * (float(np.std(v)) or 1.0), v.shape)).astype(np.float32)
        yield sample


# --- references ---------------------------------------------------------------

def as_float32(feeds):
    """The feeds (by signature, then key) as float32 arrays."""
    return {k: as_float32(v) if isinstance(v, dict) else np.asarray(v, np.float32) for k, v in feeds.items()}


def tensor_file(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(tf.make_tensor_proto(value).SerializeToString())


def quantize_feeds(model_path, feeds):
    """Float feeds as the int8/uint8 integers a quantized model's inputs
    take (TFLite's rounding: half away from zero), by signature key."""
    interp = litert.Interpreter(model_path=model_path)
    out = {}
    for key in interp.get_signature_list():
        runner = interp.get_signature_runner(key)
        feed = feeds[key] if key in feeds else feeds
        quantized = {}
        for name, detail in runner.get_input_details().items():
            value = feed[name]
            scale, zero = detail["quantization"]
            if detail["dtype"] in (np.int8, np.uint8) and scale > 0:
                info = np.iinfo(detail["dtype"])
                q = np.sign(value / scale) * np.floor(np.abs(value / scale) + 0.5) + zero
                value = np.clip(q, info.min, info.max).astype(detail["dtype"])
            quantized[name] = value
        out[key] = quantized
    return out if len(out) > 1 else next(iter(out.values()))


def output_steps(model_path):
    """For each signature output of integer type: its quantization scale
    (the value of one step), else None."""
    interp = litert.Interpreter(model_path=model_path)
    steps = {}
    for key in interp.get_signature_list():
        runner = interp.get_signature_runner(key)
        for name, detail in runner.get_output_details().items():
            scale, _ = detail["quantization"]
            if detail["dtype"] in (np.int8, np.uint8, np.int16) and scale > 0:
                steps[(key, name)] = scale
    return steps


# LiteRT's kernel sets. Quantized models are held to TFLite's reference
# kernels, the definition of its integer arithmetic: the optimized kernels
# and XNNPACK (the default delegate) round differently, and on deep networks
# their outputs drift many steps apart from each other and from the reference.
KERNELS = {"default": litert.OpResolverType.AUTO,
           "builtin": litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
           "reference": litert.OpResolverType.BUILTIN_REF}


def run_reference(model_path, feeds, kernels="default"):
    """LiteRT's outputs: by signature when the model has signature_defs,
    else by tensor name through the plain input/output lists."""
    interp = litert.Interpreter(model_path=model_path, experimental_op_resolver_type=KERNELS[kernels])
    sigs = interp.get_signature_list()
    results = {}
    if sigs:
        for key in sigs:
            feed = feeds[key] if key in feeds else feeds
            runner = interp.get_signature_runner(key)
            results[key] = (feed, runner(**feed))
        return results
    feed = feeds
    for detail in interp.get_input_details():
        interp.resize_tensor_input(detail["index"], feed[detail["name"]].shape)
    interp.allocate_tensors()
    for detail in interp.get_input_details():
        interp.set_tensor(detail["index"], feed[detail["name"]])
    interp.invoke()
    out = {d["name"]: interp.get_tensor(d["index"]) for d in interp.get_output_details()}
    results["serving_default"] = (feed, out)
    return results


def loads(model_path, kernels):
    """Whether LiteRT's kernel set `kernels` has every operator of the
    model (the reference set lacks a few, HASHTABLE among them)."""
    try:
        litert.Interpreter(model_path=model_path, experimental_op_resolver_type=KERNELS[kernels])
        return True
    except ValueError:
        return False


def kernel_spread(model_path, feeds):
    """How far apart LiteRT's kernel sets put each integer output, by
    (signature, key): the context for holding tfhost to one of them."""
    runs = [run_reference(model_path, feeds, k) for k in KERNELS if loads(model_path, k)]
    spread = {}
    for key, (_, outputs) in runs[0].items():
        for k in outputs:
            values = [np.asarray(run[key][1][k], np.int64) for run in runs]
            spread[(key, k)] = int(max(np.abs(a - b).max() for a in values for b in values))
    return spread


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--zoo", help="a generated model zoo whose models are converted too")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    entries, skipped = [], []
    models = MODELS + (zoo_models(args.zoo) if args.zoo else [])
    for name, what, build in models:
        set_seeds()
        rng = np.random.default_rng(SEED)
        workdir = os.path.join(args.out, name, "scratch")
        try:
            model_bytes, feeds = build(rng, workdir)
        except Exception as e:  # noqa: BLE001  (the converter raises many kinds)
            if not name.startswith("zoo_"):
                raise
            # The converter's first line names the TensorFlow op it cannot lower.
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
            skipped.append({"name": name, "reason": reason})
            print("tflite: skipped %s: %s" % (name, reason), file=sys.stderr)
            if tf.io.gfile.exists(os.path.join(args.out, name)):
                tf.io.gfile.rmtree(os.path.join(args.out, name))
            continue
        os.makedirs(os.path.join(args.out, name), exist_ok=True)
        model_path = os.path.join(args.out, name, "model.tflite")
        with open(model_path, "wb") as f:
            f.write(model_bytes)
        if tf.io.gfile.exists(workdir):
            tf.io.gfile.rmtree(workdir)
        if name == "mlp_no_signature":
            # Keys are tensor names: rename the feed by the model's input list.
            interp = litert.Interpreter(model_path=model_path)
            (detail,) = interp.get_input_details()
            feeds = {detail["name"]: feeds["features"]}
        feeds = as_float32(feeds)
        if name.endswith("_int8"):
            feeds = quantize_feeds(model_path, feeds)
        steps = output_steps(model_path)
        quantized = name.endswith("_int8")
        kernels = "reference" if quantized and loads(model_path, "reference") else "default"
        references = run_reference(model_path, feeds, kernels)
        spread = kernel_spread(model_path, feeds) if quantized else {}
        sigs = []
        for key, (feed, outputs) in references.items():
            io = os.path.join(name, "io", key)
            sig = {"key": key, "inputs": {}, "outputs": {}}
            for i, (k, v) in enumerate(sorted(feed.items())):
                rel = os.path.join(io, "in_%d.pb" % i)
                tensor_file(os.path.join(args.out, rel), v)
                sig["inputs"][k] = rel
            for i, (k, v) in enumerate(sorted(outputs.items())):
                rel = os.path.join(io, "out_%d.pb" % i)
                tensor_file(os.path.join(args.out, rel), np.asarray(v))
                sig["outputs"][k] = {"file": rel, "tolerance": 1e-5}
                if (key, k) in steps:
                    # A quantized output is held to one quantization step.
                    sig["outputs"][k].update({
                        "max_steps": 1,
                        "why": "int8 model: LiteRT's %s kernels are the reference; operators tfhost does "
                               "not compute in TFLite's integer arithmetic may round a value to the neighbouring "
                               "integer. LiteRT's own kernel sets differ by up to %d steps on this output"
                               % (kernels, spread.get((key, k), 0))})
            sigs.append(sig)
        entries.append({"name": name, "family": "tflite", "what": what,
                        "path": os.path.join(name, "model.tflite"), "signatures": sigs})
        print("tflite: wrote %s (%d bytes, signatures %s)" % (name, len(model_bytes), [s["key"] for s in sigs]),
              file=sys.stderr)
    INT8_CONVERTER.close()
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"format": 1, "tensorflow": tf.__version__, "models": entries, "skipped": skipped}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
