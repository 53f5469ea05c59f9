"""Shared pieces of the zoo generator: the model registry, SavedModel export
helpers, and the step that runs TensorFlow on the exported model and writes
the TensorProto files and manifest entry the C++ zoo test reads (README.md).
"""
import dataclasses
import fnmatch
import json
import os
import shutil

import numpy as np
import tensorflow as tf

DEFAULT_TOLERANCE = 1e-5
VERSION = "1"  # every model is written as a TF Serving base path: <model>/1/
SERVE = tf.saved_model.SERVING


@dataclasses.dataclass
class Entry:
    name: str
    family: str
    what: str
    fn: object


REGISTRY = {}


def model(name, family, what):
    """Registers fn(ctx) -> Io as the zoo model `name`."""
    def register(fn):
        if name in REGISTRY:
            raise ValueError(f"zoo model {name} registered twice")
        REGISTRY[name] = Entry(name, family, what, fn)
        return fn
    return register


@dataclasses.dataclass
class Io:
    """What a model function hands back once its SavedModel is on disk.

    inputs: {signature key: {input key: numpy array}}; every signature of the
      exported model needs an entry, so nothing goes untested by accident.
    tolerances: {"<signature>/<output>" glob: (tolerance, why)}; the first
      matching pattern wins, outputs without a match get DEFAULT_TOLERANCE.
    """
    inputs: dict
    tolerances: dict = dataclasses.field(default_factory=dict)


class Ctx:
    """Per-model state: where to export, and a seeded generator for inputs."""

    def __init__(self, export_dir, seed):
        self.export_dir = export_dir
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def normal(self, shape, scale=1.0, dtype=np.float32):
        return (self.rng.standard_normal(shape) * scale).astype(dtype)

    def uniform(self, shape, lo=0.0, hi=1.0, dtype=np.float32):
        return self.rng.uniform(lo, hi, shape).astype(dtype)

    def ints(self, shape, lo, hi, dtype=np.int32):
        return self.rng.integers(lo, hi, shape).astype(dtype)

    def path(self, *parts):
        """A scratch path beside the export (for vocab files and the like)."""
        p = os.path.join(os.path.dirname(self.export_dir), "_scratch", *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p


def strings(values):
    """A numpy string array as tf.make_tensor_proto wants it (bytes objects)."""
    arr = np.array(values, dtype=object)
    flat = [v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1)]
    return np.array(flat, dtype=object).reshape(arr.shape)


def liven_keras(model, rng, he=False, gain=1.0):
    """Gives a freshly initialized Keras model (Keras 3 or tf_keras) the kind
    of values a trained one has, because the initial ones hide bugs: zero
    biases and BatchNorm/LayerNorm betas and unit gammas make a forgotten
    BiasAdd or scale invisible, and ConvNeXt's 1e-6 layer scale switches its
    blocks off.

    he=True redraws conv and dense kernels He-normal (std sqrt(2 / fan_in)).
    Keras's Glorot default shrinks the signal at every ReLU, and depthwise
    kernels by ~1/channels, so deep nets lose their input: MobileNetV3's
    logits came out near 1e-11 and MobileNetV2's softmax a flat 0.1 whatever
    the image. He scaling is the one
    under which a ReLU net neither loses its signal nor amplifies rounding
    errors; fitting BatchNorm statistics to the activations instead tips a
    random net into amplifying them (float32 vs float64 drift reached 1e-4).
    `gain` scales the He std for activations that keep less than ReLU's half
    of the variance (swish).
    """
    seen = set()

    def assign(var, values):
        if var is None or not hasattr(var, "assign") or id(var) in seen:
            return
        seen.add(id(var))
        var.assign(np.asarray(values, np.float32).reshape(tuple(var.shape)))

    for layer in model._flatten_layers(include_self=False):
        kind = type(layer).__name__
        if kind == "LayerScale":
            for var in layer.weights:
                assign(var, rng.uniform(0.1, 0.6, tuple(var.shape)))
            continue
        if he and kind in _HE_FAN_IN:
            for attr, fan_in in _HE_FAN_IN[kind].items():
                var = getattr(layer, attr, None)
                if var is not None:
                    shape = tuple(var.shape)
                    assign(var, rng.normal(0.0, gain * np.sqrt(2.0 / fan_in(shape)), shape))
        for attr, draw in (("bias", lambda n: rng.normal(0.0, 0.1, n)),
                           ("beta", lambda n: rng.normal(0.0, 0.1, n)),
                           ("gamma", lambda n: rng.uniform(0.6, 1.4, n))):
            var = getattr(layer, attr, None)
            if var is not None and hasattr(var, "shape"):
                assign(var, draw(tuple(var.shape)))


def _dense_fan_in(shape):
    return int(np.prod(shape[:-1]))


def _depthwise_fan_in(shape):
    return int(np.prod(shape[:-2]))  # each output sees one input channel


_HE_FAN_IN = {
    "Dense": {"kernel": _dense_fan_in},
    "Conv1D": {"kernel": _dense_fan_in},
    "Conv2D": {"kernel": _dense_fan_in},
    "DepthwiseConv2D": {"kernel": _depthwise_fan_in, "depthwise_kernel": _depthwise_fan_in},
    "SeparableConv2D": {"depthwise_kernel": _depthwise_fan_in, "pointwise_kernel": _dense_fan_in},
}


def export_keras(model, ctx, he=False, gain=1.0):
    """Keras 3's own export path (ExportArchive), what `model.export` users
    ship, after liven_keras."""
    liven_keras(model, ctx.rng, he, gain)
    model.export(ctx.export_dir, verbose=False)


def keras_io(feed, tolerances=None):
    """Io for a model.export model: Keras 3 writes the same endpoint twice,
    as "serve" and "serving_default", and both get tested."""
    return Io({"serve": feed, "serving_default": feed}, tolerances or {})


def save_tf1(sess, path, signatures, main_op=None, legacy_init_op=None, assets=None):
    """SavedModelBuilder with one MetaGraph tagged "serve" (TF Serving's tag).

    signatures: {key: SignatureDef}. main_op (or the older legacy_init_op)
    runs after the variables are restored: table and local-variable
    initializers. assets is the ASSET_FILEPATHS collection.
    """
    builder = tf.compat.v1.saved_model.Builder(path)
    builder.add_meta_graph_and_variables(
        sess, [SERVE], signature_def_map=signatures, assets_collection=assets,
        main_op=main_op, legacy_init_op=legacy_init_op, strip_default_attrs=True)
    builder.save()


def tf1_graph(seed):
    """A fresh tf.compat.v1 Graph with its graph-level seed set, so op-level
    random initializers draw the same values on every run."""
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.set_random_seed(seed)
    return g


def predict_sig(inputs, outputs):
    info = tf.compat.v1.saved_model.build_tensor_info
    return tf.compat.v1.saved_model.build_signature_def(
        {k: info(v) for k, v in inputs.items()},
        {k: info(v) for k, v in outputs.items()},
        tf.saved_model.PREDICT_METHOD_NAME)


def tensor_bytes(value, dtype=None):
    return tf.make_tensor_proto(value, dtype=dtype).SerializeToString()


def _tolerance(io, sig, out, dtype):
    for pattern, (tol, why) in io.tolerances.items():
        if fnmatch.fnmatchcase(f"{sig}/{out}", pattern):
            if tol > DEFAULT_TOLERANCE and not why:
                raise ValueError(f"tolerance for {pattern} needs a why")
            if dtype.is_floating or dtype.is_complex:
                return tol, why
    return DEFAULT_TOLERANCE, ""


def _feed(fn, sig, given):
    """Converts the given arrays to the dtypes the signature declares, and
    refuses inputs that do not match its keys exactly."""
    specs = fn.structured_input_signature[1]
    if set(specs) != set(given):
        raise ValueError(f"signature {sig}: inputs {sorted(specs)}, given {sorted(given)}")
    feed = {}
    for key, spec in specs.items():
        value = given[key]
        feed[key] = tf.constant(value, dtype=spec.dtype)
        if not spec.shape.is_compatible_with(feed[key].shape):
            raise ValueError(f"signature {sig} input {key}: shape {feed[key].shape}, wants {spec.shape}")
    return feed


def write_reference(zoo, entry, io):
    """Loads the exported model, runs each signature on io.inputs, writes the
    TensorProto files, and returns the model's manifest entry."""
    export_dir = os.path.join(zoo, entry.name, VERSION)
    loaded = tf.saved_model.load(export_dir, tags=[SERVE])
    have = set(loaded.signatures.keys())
    if have != set(io.inputs):
        raise ValueError(f"{entry.name}: signatures {sorted(have)}, inputs given for {sorted(io.inputs)}")
    sigs = []
    for sig in sorted(have):
        fn = loaded.signatures[sig]
        feed = _feed(fn, sig, io.inputs[sig])
        outputs = fn(**feed)
        rel_io = os.path.join(entry.name, "io", sig)
        os.makedirs(os.path.join(zoo, rel_io), exist_ok=True)
        sig_entry = {"key": sig, "inputs": {}, "outputs": {}}
        for key in sorted(feed):
            rel = os.path.join(rel_io, f"in_{key}.pb")
            with open(os.path.join(zoo, rel), "wb") as f:
                f.write(tensor_bytes(feed[key].numpy(), feed[key].dtype))
            sig_entry["inputs"][key] = rel
        for key in sorted(outputs):
            t = outputs[key]
            value = t.numpy()
            if t.dtype.is_floating and not np.all(np.isfinite(value.astype(np.float32))):
                print(f"  note: {entry.name} {sig}/{key} holds NaN or Inf")
            rel = os.path.join(rel_io, f"out_{key}.pb")
            with open(os.path.join(zoo, rel), "wb") as f:
                f.write(tensor_bytes(value, t.dtype))
            tol, why = _tolerance(io, sig, key, t.dtype)
            sig_entry["outputs"][key] = {"file": rel, "tolerance": tol, "why": why}
        sigs.append(sig_entry)
    return {"name": entry.name, "family": entry.family, "what": entry.what,
            "path": entry.name, "signatures": sigs}


def clean_scratch(zoo, name):
    shutil.rmtree(os.path.join(zoo, name, "_scratch"), ignore_errors=True)


def write_manifest(zoo, models):
    manifest = {"format": 1, "tensorflow": tf.__version__, "models": models}
    with open(os.path.join(zoo, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
