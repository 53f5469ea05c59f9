"""What every TensorFlow case family shares: running one op through
TensorFlow's raw op API (attrs from the NodeDef TensorFlow builds, outputs
from eager mode; see ../README.md), a seeded input stream per case, and the
JSON writer in the format tests/conformance/op_conformance_test.cc reads.
A call TensorFlow rejects is not a case (the format has no expected errors);
it is counted, and listed by generate.py --verbose.
"""
import inspect
import os
import re
import zlib

# TensorFlow's own Eigen CPU kernels are the oracle; its oneDNN rewrites sum
# in another order. Set before TensorFlow is imported.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.eager import context, execute  # noqa: E402
from tensorflow.python.framework import op_def_library, op_def_registry  # noqa: E402

from case_format import (FLOATS, QUANTIZED_STORAGE, REPO, Unsupported, as_np_dtype, attr_json,  # noqa: E402,F401
                         encode, write_cases)

SIGNED = ["int8", "int16", "int32", "int64"]
INTS = SIGNED + ["uint8", "uint16", "uint32", "uint64"]
COMPLEX = ["complex64", "complex128"]
# What an op registered for any type is checked with.
ALL_TYPES = FLOATS + INTS + COMPLEX + ["bool", "string"]


# --- tfhost's registry, as docs/ops.md renders it -----------------------------

def _registered():
    """{op: {type attr: [dtypes] or None for any}} from docs/ops.md's table."""
    ops = {}
    with open(os.path.join(REPO, "docs", "ops.md"), encoding="utf-8") as f:
        rows = [line for line in f if line.startswith("| ")]
    header = [c.strip() for c in rows[0].strip().strip("|").split("|")]
    col = header.index("Dtypes")
    for line in rows[1:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        attrs = {}
        if cells[col] != "—":
            for part in cells[col].split("; "):
                m = re.match(r"`(\w+)`: (.*)", part)
                allowed = m.group(2).split(", ")
                attrs[m.group(1)] = None if allowed == ["any"] else allowed
        ops[cells[0]] = attrs
    return ops


REGISTERED = _registered()


def _check_registered(op, json_attrs):
    """A case only for a node tfhost registers: each type attr's value must
    be one the op allows (docs/ops.md), else Unsupported."""
    for attr, allowed in REGISTERED.get(op, {}).items():
        value = json_attrs.get(attr, {})
        types = [value["type"]] if "type" in value else value.get("list_type", [])
        bad = [t for t in types if allowed is not None and t not in allowed]
        if bad:
            raise Unsupported(f"tfhost registers {op} without {attr}={bad[0]}")


def dtypes_of(op, attr="T", within=None):
    """The dtypes tfhost registers for `op`'s type attr `attr` (docs/ops.md);
    for an unrestricted attr, `within` (default: every numeric type)."""
    if attr not in REGISTERED[op]:
        return []
    allowed = REGISTERED[op][attr]
    if allowed is None:
        return list(within or FLOATS + INTS + COMPLEX + ["bool"])
    return [d for d in allowed if within is None or d in within]


def _eager_attr_value(av):
    """A NodeDef attr as the Python value eager `execute` takes."""
    which = av.WhichOneof("value")
    if which == "list":
        lst = av.list
        for field in ("i", "f", "s", "b", "type"):
            if len(getattr(lst, field)):
                return list(getattr(lst, field))
        if len(lst.shape):
            return [tf.TensorShape(s) for s in lst.shape]
        return []
    if which == "shape":
        return tf.TensorShape(av.shape)
    return getattr(av, which)


# --- running one op -------------------------------------------------------------

def _input_names(op):
    """The raw-op keyword of each input, in op-def order (tf.raw_ops renames a
    few: Sum's reduction_indices is `axis`, Select's t/e are `x`/`y`)."""
    fn = getattr(tf.raw_ops, op)
    params = list(inspect.signature(fn).parameters)
    return params[:len(op_def_registry.get(op).input_arg)]


def _widened(inputs):
    """float16/bfloat16 tensors as float32 (exactly), and their dtype."""
    flat = [t for x in inputs for t in (x if isinstance(x, list) else [x])]
    narrow = [t.dtype for t in flat if t.dtype in (tf.float16, tf.bfloat16)]
    widen = lambda t: tf.cast(t, tf.float32) if t.dtype in (tf.float16, tf.bfloat16) else t  # noqa: E731
    return [[widen(t) for t in x] if isinstance(x, list) else widen(x) for x in inputs], narrow[0]


def run_op(op, inputs, attrs, stateful=False, outputs_fn=None, in_float32=False):
    """Runs `op` eagerly; returns (node attrs as JSON, flat output tensors).
    With `outputs_fn`, only the node is built (its attrs are TensorFlow's) and
    the outputs are what outputs_fn computes. With `in_float32`, the node is
    the float16/bfloat16 one but the op runs on its inputs widened to float32
    and the outputs are rounded once to the narrow type."""
    op_def = op_def_registry.get(op)
    if op_def is None:
        raise Unsupported(f"TensorFlow registers no op {op}")
    public = hasattr(tf.raw_ops, op)
    names = _input_names(op) if public else [a.name for a in op_def.input_arg]
    if len(inputs) != len(names):
        raise ValueError(f"{op} takes {len(names)} inputs, got {len(inputs)}")

    graph = tf.Graph()
    with graph.as_default():
        placeholders = {}
        for name, x in zip(names, inputs):
            if isinstance(x, list):
                placeholders[name] = [tf.compat.v1.placeholder(t.dtype, t.shape) for t in x]
            else:
                placeholders[name] = tf.compat.v1.placeholder(x.dtype, x.shape)
        if public:
            getattr(tf.raw_ops, op)(**placeholders, **attrs)
        else:
            op_def_library._apply_op_helper(op, name="node", **placeholders, **attrs)
    node = [o for o in graph.get_operations() if o.type == op][-1]
    attr_types = {a.name: a.type for a in op_def.attr}
    json_attrs = {}
    for key in sorted(node.node_def.attr):
        if key.startswith("_"):
            continue
        json_attrs[key] = attr_json(node.node_def.attr[key], attr_types.get(key, ""))

    if outputs_fn is not None:
        return json_attrs, list(outputs_fn())
    if in_float32:
        wide, narrow = _widened(inputs)
        _, outputs = run_op(op, wide, attrs)
        return json_attrs, [tf.cast(t, narrow) if t.dtype == tf.float32 else t for t in outputs]
    if stateful:
        # Stateful kernels (RandomUniform with fixed seeds) continue their
        # stream across eager calls; a fresh kernel gives the first draw, as
        # tfhost's single-op run does.
        context.context().clear_kernel_cache()
    if public:
        result = getattr(tf.raw_ops, op)(**dict(zip(names, inputs)), **attrs)
    else:
        flat_in = [t for x in inputs for t in (x if isinstance(x, list) else [x])]
        eager_attrs = []
        for key in node.node_def.attr:
            eager_attrs += [key, _eager_attr_value(node.node_def.attr[key])]
        result = execute.execute(op.encode(), len(node.outputs), flat_in, tuple(eager_attrs),
                                 context.context())
    if result is None or isinstance(result, tf.Operation):
        outputs = []
    else:
        outputs = [t for t in tf.nest.flatten(result) if isinstance(t, tf.Tensor)]
    return json_attrs, outputs


# --- case lists ------------------------------------------------------------------

class Builder:
    """The cases of one family (tf_<family>.json). Each case draws its inputs
    from its own stream, seeded by its name, so adding or removing a case
    never changes another case's inputs."""

    def __init__(self, family):
        self.family = family
        self.cases = []
        self.skipped = []  # (case name, why TensorFlow or the format refused it)
        self.names = set()
        self.rng = np.random.default_rng(0)

    # Inputs. Call `seed(op, name)` before drawing a case's inputs; `add`
    # also reseeds from the name of the case it added, so a family that draws
    # without seeding stays deterministic.
    def seed(self, op, name=""):
        self.rng = np.random.default_rng(zlib.crc32(f"{op}/{name}".encode()))

    def rand(self, shape, dtype="float32", lo=None, hi=None):
        """Uniform values of `dtype`: floats in [lo, hi) (default [-2, 2)),
        integers in [lo, hi) (default a small range the type holds), bools,
        complex numbers with both parts in [lo, hi)."""
        shape = list(shape)
        n = int(np.prod(shape)) if shape else 1
        if dtype == "bool":
            return tf.constant(self.rng.random(n).reshape(shape) < 0.5)
        if dtype == "string":
            words = ["", "a", "tf", "host", "Hello", "x y", "42", "é"]
            return tf.constant(np.array([words[i] for i in self.rng.integers(0, len(words), n)],
                                        dtype=object).reshape(shape), dtype=tf.string)
        if dtype in COMPLEX:
            lo, hi = (-2 if lo is None else lo), (2 if hi is None else hi)
            re_, im = lo + (hi - lo) * self.rng.random(n), lo + (hi - lo) * self.rng.random(n)
            return tf.constant((re_ + 1j * im).reshape(shape).astype(as_np_dtype(dtype)))
        if dtype in QUANTIZED_STORAGE:  # small integers in the storage type
            info = np.iinfo(QUANTIZED_STORAGE[dtype])
            v = self.rng.integers(max(info.min, -100), min(info.max, 100), n).astype(QUANTIZED_STORAGE[dtype])
            return tf.constant(v.reshape(shape), dtype=dtype)
        np_t = as_np_dtype(dtype)
        if dtype in FLOATS:
            lo, hi = (-2 if lo is None else lo), (2 if hi is None else hi)
            v = (lo + (hi - lo) * self.rng.random(n)).astype(np.float32)
            return tf.constant(v.reshape(shape).astype(np_t), dtype=dtype)
        info = np.iinfo(np_t)
        lo = max(info.min, -10) if lo is None else lo
        hi = min(info.max, 10) if hi is None else hi
        v = self.rng.integers(lo, hi, n, dtype=np.int64 if dtype != "uint64" else np.uint64)
        return tf.constant(v.reshape(shape).astype(np_t), dtype=dtype)

    def const(self, values, dtype="float32", shape=None):
        if dtype == "string":
            t = tf.constant(values, dtype=tf.string)
        else:
            wide = np.float64 if dtype in FLOATS else np.complex128 if dtype in COMPLEX else None
            with np.errstate(invalid="ignore", over="ignore"):  # NaN and huge values on purpose
                t = tf.constant(np.asarray(values, dtype=wide).astype(as_np_dtype(dtype)), dtype=dtype)
        return tf.reshape(t, shape) if shape is not None else t

    def extremes(self, dtype):
        """Values at the edges of `dtype`: signed zero, NaN, infinities, the
        largest and smallest magnitudes; for integers min, max, 0, ±1."""
        if dtype in FLOATS:
            fi = tf.as_dtype(dtype)
            big, tiny = float(fi.max), float(np.finfo(as_np_dtype(dtype)).tiny)
            vals = [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, big, -big, tiny, -tiny, 1e-3, 65.5, -7.25]
            return self.const(vals, dtype)
        if dtype in COMPLEX:
            return self.const([0, 1 + 1j, complex(np.nan, 0), complex(np.inf, 1), -2.5 - 0.5j, 1e30j], dtype)
        if dtype == "bool":
            return self.const([True, False], dtype)
        info = np.iinfo(as_np_dtype(dtype))
        vals = sorted({int(info.min), int(info.max), 0, 1, int(info.max) - 1, int(info.min) + 1}
                      | ({-1} if info.min < 0 else set()))
        return self.const(vals, dtype)

    # Cases.
    def add(self, op, name, inputs, attrs=None, only_outputs=None, stateful=False, reference=None,
            outputs_fn=None, json_attrs=None, fallback_fn=None, in_float32=False):
        """One case: `op` on `inputs` (tensors; a list for a list input) with
        the raw-op keyword `attrs`. `outputs_fn`, when given, computes the
        reference outputs from other TensorFlow ops instead of running `op`
        (a mode TensorFlow's CPU kernel lacks, such as NCHW convolutions, or
        a tfhost op TensorFlow spells differently); `reference` then says
        which. `in_float32` makes the reference the op run in float32 and
        rounded once to the case's float16/bfloat16 type: TensorFlow's own
        half-precision convolutions round every partial sum (relative errors
        of several percent), which is no semantics a kernel should copy.
        `fallback_fn` is the same, used only where TensorFlow's own
        kernel refuses the call (a fusion its CPU kernel lacks). For a tfhost
        op TensorFlow does not have, `json_attrs` gives the node's attrs in
        the case format."""
        full = f"{op}/tf/{name}"
        # The C++ test is named after the case with every other character
        # made '_'; that form must be unique too.
        test_name = re.sub(r"[^0-9A-Za-z]", "_", full)
        if test_name in self.names:
            raise ValueError(f"case {full} repeats an earlier case's name")
        self.names.add(test_name)
        attrs = dict(attrs or {})
        case_reference = reference if json_attrs is not None else None
        try:
            if json_attrs is not None:
                outputs = list(outputs_fn())
            elif fallback_fn is not None:
                try:
                    json_attrs, outputs = run_op(op, inputs, attrs, stateful)
                except tf.errors.OpError:
                    json_attrs, outputs = run_op(op, inputs, attrs, stateful, fallback_fn)
                    case_reference = reference
            else:
                json_attrs, outputs = run_op(op, inputs, attrs, stateful, outputs_fn, in_float32)
                case_reference = reference if not in_float32 else f"TensorFlow {op} in float32, rounded once"
            _check_registered(op, json_attrs)
            case = {"name": full, "op": op, "attrs": json_attrs,
                    "inputs": [encode(t) for x in inputs for t in (x if isinstance(x, list) else [x])],
                    "outputs": [encode(t) for t in outputs]}
        except (tf.errors.OpError, Unsupported, TypeError, ValueError, NotImplementedError) as e:
            self.skipped.append((full, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"))
            return None
        finally:
            self.seed(full, "next")
        if only_outputs is not None:
            case["only_outputs"] = list(only_outputs)
            # Outputs left out are scratch (FusedBatchNorm's reserve spaces
            # may be uninitialized memory): written as zeros, so the file is
            # the same on every run.
            for k, out in enumerate(case["outputs"]):
                if k not in only_outputs and out["dtype"] != "string":
                    out["data"] = [0] * len(out["data"])
        if case_reference is not None:
            case["reference"] = case_reference
        self.cases.append(case)
        return case

