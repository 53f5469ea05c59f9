"""What every part of the peers benchmark agrees on: the models and their
inputs, the settings, the runtimes, where the cache lives, how outputs are
matched up and compared. Standard library and NumPy only, because the worker
imports it in every measured process and its import time counts in the cold
start of every runtime alike.
"""
import hashlib
import json
import os
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]

SEED = 20240917

# The runtimes in their base order; rounds rotate and mirror it (bench.py).
RUNTIMES = ["tfhost", "tensorflow", "onnxruntime", "openvino", "litert", "tfhost_onnx", "tfhost_tflite"]
# The runtimes that need a converted model, and the file each conversion leaves.
CONVERTED = {"onnxruntime": "model.onnx", "openvino": "openvino/model.xml", "litert": "model.tflite"}
# tfhost run on another runtime's converted file (the same file that runtime
# runs): runtime -> the runtime whose conversion it loads.
TFHOST_ON_CONVERSION = {"tfhost_onnx": "onnxruntime", "tfhost_tflite": "litert"}

# Inputs per model: key -> (dtype, shape without the batch, generator).
# Generators are named, not lambdas, so the spec stays plain data; ranges
# follow what each model's preprocessing hands it (MobileNetV2 wants [-1, 1],
# EfficientNet rescales 0..255 itself, ResNet-50 takes mean-subtracted pixels).
MODELS = {
    "mobilenet_v2": {"images": ("float32", (224, 224, 3), ("uniform", -1.0, 1.0))},
    "resnet50": {"images": ("float32", (224, 224, 3), ("uniform", -120.0, 135.0))},
    "efficientnet_b0": {"images": ("float32", (224, 224, 3), ("uniform", 0.0, 255.0))},
    "bert_base": {
        "token_ids": ("int32", (128,), ("tokens", 30522)),
        "segment_ids": ("int32", (128,), ("segments",)),
        "padding_mask": ("int32", (128,), ("mask",)),
    },
    "lstm": {"sequence": ("float32", (50, 64), ("normal", 0.0, 1.0))},
    "detector": {"images": ("float32", (320, 320, 3), ("uniform", 0.0, 1.0))},
}

# A runtime's output that differs from TensorFlow's by more than this
# (max |x - tf| / max |tf|) is flagged in the table.
REL_ERR_FLAG = 1e-4


def files_hash():
    """Names the cache: every bench/peers/*.py and the lock, so that a changed
    exporter or converter, or another library version, exports afresh."""
    h = hashlib.sha256()
    paths = sorted(HERE.glob("*.py")) + [ROOT / "requirements" / "peers.txt"]
    for p in paths:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cache_dir():
    base = pathlib.Path(os.environ.get("TFHOST_CACHE") or pathlib.Path.home() / ".cache" / "tfhost")
    return base / "peers" / files_hash()


def _lengths(rng, batch, seq):
    # Real batches are padded to the longest sentence; lengths between half
    # and all of the sequence keep the attention masks non-trivial.
    return rng.integers(seq // 2, seq + 1, size=batch)


def make_inputs(model, batch):
    """The model's inputs for `batch` items, identical on every call: the
    first `batch` rows of one seeded draw of the largest batch, so the batch-1
    input is the first item of the batch-32 one."""
    rng = np.random.default_rng([SEED, sum(map(ord, model))])
    full = max(64, batch)
    lengths = None
    out = {}
    for key, (dtype, shape, gen) in MODELS[model].items():
        kind = gen[0]
        if kind == "uniform":
            a = rng.uniform(gen[1], gen[2], size=(full, *shape))
        elif kind == "normal":
            a = rng.normal(gen[1], gen[2], size=(full, *shape))
        elif kind in ("tokens", "segments", "mask"):
            seq = shape[0]
            if lengths is None:
                lengths = _lengths(rng, full, seq)
            pos = np.arange(seq)[None, :]
            valid = pos < lengths[:, None]
            if kind == "tokens":
                # 0 is BERT's [PAD]; real ids start above the special tokens.
                a = np.where(valid, rng.integers(1000, gen[1], size=(full, seq)), 0)
            elif kind == "segments":
                a = np.where(valid & (pos >= lengths[:, None] // 2), 1, 0)
            else:
                a = valid
        else:
            raise ValueError(f"unknown input generator {gen}")
        out[key] = np.ascontiguousarray(a[:batch].astype(dtype))
    return out


def model_dir(model):
    return cache_dir() / model


def inputs_dir(model, batch):
    return model_dir(model) / f"inputs_b{batch}"


def reference_dir(model, batch):
    return model_dir(model) / f"tf_reference_b{batch}"


def load_npy_dir(d):
    return {p.stem: np.load(p) for p in sorted(pathlib.Path(d).glob("*.npy"))}


def save_npy_dir(d, arrays):
    d = pathlib.Path(d)
    d.mkdir(parents=True, exist_ok=True)
    for k, v in arrays.items():
        np.save(d / f"{k}.npy", np.ascontiguousarray(v))


def _norm(name):
    """A tensor name as converters write it ("serving_default_x:0", "x:0",
    "x") reduced to what a signature key looks like."""
    n = name.split(":")[0].lower()
    return n[len("serving_default_"):] if n.startswith("serving_default_") else n


def match_names(wanted, offered):
    """Pairs each wanted signature key with one of the offered tensors (each
    a list of its names): by name, and what no name matches in order.
    Returns ({key: offered index}, note); the note is non-empty when order
    decided anything, since then a cross-check could pair the wrong tensors."""
    result, used = {}, set()
    for key in wanted:
        for i, names in enumerate(offered):
            if i not in used and any(_norm(n) == key.lower() for n in names):
                result[key] = i
                used.add(i)
                break
    rest = [k for k in wanted if k not in result]
    free = [i for i in range(len(offered)) if i not in used]
    result.update(zip(rest, free))
    return result, ("names of " + ", ".join(rest) + " matched by order") if rest else ""


def compare(outputs, reference):
    """max over outputs of max|x - tf| / max|tf|, and a note for any output
    that is missing or shaped differently (those count as failures)."""
    worst, worst_key, problems = 0.0, None, []
    for key, ref in reference.items():
        got = outputs.get(key)
        if got is None:
            problems.append(f"no output {key}")
            continue
        got = np.asarray(got)
        if got.shape != ref.shape:
            if got.size == ref.size:
                got = got.reshape(ref.shape)
            else:
                problems.append(f"{key} shape {list(got.shape)} != TF {list(ref.shape)}")
                continue
        r = ref.astype(np.float64)
        g = got.astype(np.float64)
        if not np.all(np.isfinite(g)):
            problems.append(f"{key} has non-finite values")
            continue
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        diff = float(np.max(np.abs(g - r))) if r.size else 0.0
        err = diff / scale if scale > 0 else diff
        if err >= worst:
            worst, worst_key = err, key
    return worst, worst_key, "; ".join(problems)


def write_json(path, obj):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def read_json(path):
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))


# What converters and runtimes say when they cannot handle an op, most
# telling first: (pattern, how the table puts it).
_REASONS = [
    (r"No conversion rule found for operations?: ([^\n]+)", "no conversion rule for {0}"),
    (r"TF Select ops: ([^\n]+)", "needs TF Select (Flex) ops: {0}"),
    (r"'(tf\.\w+)' op (requires [^\n]+?)(?: during [^\n]*)?$", "{0} {1}"),
    (r"Unsupported ops: ([^\n]+)", "unsupported ops: {0}"),
    (r"(?:Op type not registered|No kernel registered|no kernel for|unsupported op)[^\n]*", "{whole}"),
]


def short_reason(text, limit=160):
    """The part of a converter's or runtime's error output that says what
    went wrong, cut to fit a table cell."""
    import re
    for pattern, template in _REASONS:
        m = re.search(pattern, text, re.MULTILINE | re.IGNORECASE)
        if m:
            picked = template.format(*[g.strip() for g in m.groups()], whole=m.group(0).strip())
            break
    else:
        lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
        keys = ("Error", "error:", "Exception", "not supported", "Unsupported", "unsupported", "failed")
        picked = next((l for l in reversed(lines) if any(k in l for k in keys) and not l.startswith("Traceback")),
                      lines[-1] if lines else "no output")
    picked = " ".join(picked.replace("|", "/").split())
    return picked if len(picked) <= limit else picked[: limit - 1] + "…"
