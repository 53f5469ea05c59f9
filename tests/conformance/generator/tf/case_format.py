"""The case format tests/conformance/op_conformance_test.cc reads: tensors
({dtype, shape, data}), attrs ({"i": ...}, {"list_s": [...]}, ...) and the
case file writer. Float32 values are the shortest decimal that reads back
(through a double, as the C++ loader reads it) to the same float;
float16/bfloat16 values are exact; complex values are interleaved (real,
imag) pairs; non-finite values are "NaN"/"Infinity"/"-Infinity"; strings
that are not UTF-8 are {"hex": ...}.
"""
import json
import os

import numpy as np
import tensorflow as tf  # imported first by case_builder, which sets TensorFlow's environment

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
REFERENCE = f"TensorFlow {tf.__version__} (tf.raw_ops, eager, CPU, TF_ENABLE_ONEDNN_OPTS=0)"
FLOATS = ["float16", "bfloat16", "float32", "float64"]


class Unsupported(Exception):
    """A call the case format cannot hold (a func attr, a variant)."""


# --- tensors -------------------------------------------------------------------

def as_np_dtype(name):
    return tf.as_dtype(name).as_numpy_dtype


def _short_float(x, width):
    """The shortest decimal that reads back (via double, as the C++ loader
    reads it) to the same float of `width`; keeps the JSON small."""
    x = float(x)
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if width == "float64":
        return x
    np_t = as_np_dtype(width)
    short = float(str(np_t(x)))
    return short if float(np_t(np.float32(short))) == x else x


def _string_json(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": b.hex()}


QUANTIZED_STORAGE = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16, "quint16": np.uint16,
                      "qint32": np.int32}


def encode(t):
    """A tensor (eager or numpy) in the case format."""
    dtype = tf.as_dtype(t.dtype)
    a = t.numpy() if hasattr(t, "numpy") else t
    # An object array keeps strings' trailing NUL bytes, which NumPy's fixed
    # width bytes type (what a bare scalar would become) drops.
    a = np.array(a, dtype=object) if isinstance(a, bytes) else np.asarray(a)
    flat = a.reshape(-1)
    name = dtype.name
    if name in ("resource", "variant"):
        raise Unsupported(f"{name} tensor")
    if name == "string":
        data = [_string_json(x) for x in flat]
    elif name in ("complex64", "complex128"):
        part = "float32" if name == "complex64" else "float64"
        data = []
        for z in flat:
            data += [_short_float(z.real, part), _short_float(z.imag, part)]
    elif name in FLOATS:
        data = [_short_float(x, name) for x in flat]
    elif name == "bool":
        data = [bool(x) for x in flat]
    elif name in QUANTIZED_STORAGE:  # quantized: the integer of its storage type
        data = [int(x) for x in flat.view(QUANTIZED_STORAGE[name])]
    else:
        data = [int(x) for x in flat]
    return {"dtype": name, "shape": [int(d) for d in a.shape], "data": data}


# --- attrs -----------------------------------------------------------------------

def attr_json(av, attr_type):
    which = av.WhichOneof("value")
    if which == "i":
        return {"i": av.i}
    if which == "f":
        return {"f": _short_float(av.f, "float32")}
    if which == "s":
        return {"s": av.s.decode("utf-8")}
    if which == "b":
        return {"b": av.b}
    if which == "type":
        return {"type": tf.as_dtype(av.type).name}
    if which == "tensor":  # Const's value
        return {"tensor": encode(tf.constant(tf.make_ndarray(av.tensor), dtype=tf.as_dtype(av.tensor.dtype)))}
    if which == "shape":
        if av.shape.unknown_rank:
            raise Unsupported("shape attr of unknown rank")
        return {"shape": [d.size for d in av.shape.dim]}
    if which == "list" or which is None:
        lst = av.list
        kind = attr_type[len("list("):-1] if attr_type.startswith("list(") else None
        if kind == "int":
            return {"list_i": list(lst.i)}
        if kind == "float":
            return {"list_f": [_short_float(x, "float32") for x in lst.f]}
        if kind == "string":
            return {"list_s": [s.decode("utf-8") for s in lst.s]}
        if kind == "type":
            return {"list_type": [tf.as_dtype(t).name for t in lst.type]}
        if kind == "shape":
            if any(s.unknown_rank for s in lst.shape):
                raise Unsupported("shape attr of unknown rank")
            return {"list_shape": [[d.size for d in s.dim] for s in lst.shape]}
    raise Unsupported(f"{which} attr")



def write_cases(family, cases):
    """tests/conformance/cases/tf_<family>.json: one case per line, so a
    regenerated file diffs case by case."""
    path = os.path.join(REPO, "tests", "conformance", "cases", f"tf_{family}.json")
    head = json.dumps({"generator": f"tests/conformance/generator/tf/{family}.py", "reference": REFERENCE})
    with open(path, "w", encoding="utf-8") as f:
        f.write(head[:-1] + ',"cases":[\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
                           for c in cases))
        f.write("\n]}\n")
    return path
