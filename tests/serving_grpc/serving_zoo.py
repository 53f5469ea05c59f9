"""What the gRPC and REST client checks share: starting `tfhost serve` on a
free loopback port, and the zoo (tests/zoo/README.md) -- which models to
serve, where their base paths are, what TensorFlow fed them and answered, and
the comparison rule for answers.

TensorFlow itself parses every TensorProto and SavedModel here, so that a
mistake shared between tfhost's own .proto files and its server cannot hide.
"""
import json
import os
import socket
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up banner would bury the results

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import tensor_pb2, types_pb2
from tensorflow.core.protobuf import saved_model_pb2

CLASSIFY = "tensorflow/serving/classify"
REGRESS = "tensorflow/serving/regress"
PREDICT = "tensorflow/serving/predict"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(tfhost, flags_for_port, log_path, ready, attempts=3, deadline_s=180):
    """Starts `tfhost serve` with flags_for_port(port) on a port picked free
    just before. ready(proc, port, deadline_s) polls until the server answers,
    it exits or the deadline passes. Another process can take the port before
    tfhost binds it; only a server that exited naming its port is retried on
    a new one. Returns (proc, port), or (None, None) with the log's tail
    printed."""
    for _ in range(attempts):
        port = free_port()
        with open(log_path, "w") as log:
            proc = subprocess.Popen([tfhost, "serve"] + flags_for_port(port), stdout=log, stderr=subprocess.STDOUT)
        if ready(proc, port, deadline_s):
            return proc, port
        exited = proc.poll() is not None
        stop(proc)
        with open(log_path) as f:
            text = f.read()
        print(text[-10000:], file=sys.stderr)
        if not (exited and ":%d" % port in text):
            break
    return None, None


def stop(proc, timeout_s=30):
    """SIGTERM, then SIGKILL when it does not exit in time. Returns the exit status (None when killed)."""
    if proc.poll() is not None:
        return proc.returncode
    proc.terminate()
    try:
        return proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def write_model_config(path, models):
    """models: [(name, base_path)] -> a ModelServerConfig text file."""
    with open(path, "w") as f:
        f.write("model_config_list {\n")
        for name, base in models:
            f.write('  config { name: "%s" base_path: "%s" model_platform: "tensorflow" }\n' % (name, base))
        f.write("}\n")


# ---------------------------------------------------------------- tensors

def read_tensor_proto(path):
    proto = tensor_pb2.TensorProto()
    with open(path, "rb") as f:
        proto.ParseFromString(f.read())
    return proto


def is_float_dtype(dtype_enum):
    dt = tf.dtypes.as_dtype(dtype_enum)
    return dt.is_floating or dt.is_complex


def compare_arrays(ref, got, tolerance, floating):
    """None when `got` matches TensorFlow's `ref` by the zoo's rule, else what
    differs: same shape; floats within tolerance * max|ref| (NaN matches NaN,
    an infinity only the same infinity); everything else exactly."""
    got = np.asarray(got)
    if got.shape != ref.shape:
        return "shape %s, TensorFlow's is %s" % (list(got.shape), list(ref.shape))
    if ref.size == 0:
        return None
    if floating:
        r = np.asarray(ref).astype(np.complex128 if np.iscomplexobj(ref) else np.float64)
        g = got.astype(r.dtype)
        r_nan, g_nan = np.isnan(r), np.isnan(g)
        if not np.array_equal(r_nan, g_nan):
            i = int(np.argmax(r_nan != g_nan))
            return "NaN mismatch at flat index %d: %r vs TensorFlow's %r" % (i, g.flat[i].item(), r.flat[i].item())
        r_inf = np.isinf(r)
        if not np.array_equal(r_inf, np.isinf(g)) or not np.array_equal(r[r_inf], g[r_inf]):
            return "infinities differ from TensorFlow's"
        finite = ~(r_nan | r_inf)
        scale = float(np.max(np.abs(r[finite]))) if finite.any() else 0.0
        with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity
            err = np.abs(g - r)
        err[~finite] = 0
        worst = int(np.argmax(err))
        if err.flat[worst] > tolerance * scale:
            return "flat index %d: %r vs TensorFlow's %r (|err| %.3g > %g x max|ref| %.3g)" % (
                worst, g.flat[worst].item(), r.flat[worst].item(), err.flat[worst], tolerance, scale)
        return None
    flat_r, flat_g = np.asarray(ref).reshape(-1), got.reshape(-1)
    differ = np.nonzero(np.asarray(flat_r != flat_g, dtype=bool))[0]
    if differ.size:
        i = int(differ[0])
        return "flat index %d: %r vs TensorFlow's %r (%d element(s) differ)" % (
            i, getattr(flat_g[i], "item", lambda: flat_g[i])(), getattr(flat_r[i], "item", lambda: flat_r[i])(),
            differ.size)
    return None


def compare_protos(ref_proto, got_proto, tolerance):
    """Both TensorProtos decoded by TensorFlow (tf.make_ndarray); dtypes must match."""
    if got_proto.dtype != ref_proto.dtype:
        return "dtype %s, TensorFlow's is %s" % (types_pb2.DataType.Name(got_proto.dtype),
                                                 types_pb2.DataType.Name(ref_proto.dtype))
    try:
        got = tf.make_ndarray(got_proto)
    except Exception as e:  # a malformed answer is a failure to report, not a crash
        return "TensorFlow cannot decode the answer: %s" % e
    return compare_arrays(tf.make_ndarray(ref_proto), got, tolerance, is_float_dtype(ref_proto.dtype))


# ---------------------------------------------------------------- the zoo

class ZooModel:
    """One manifest entry with what the serving checks need to know about it.
    TensorFlow's recorded tensors are read only for models that are served."""

    def __init__(self, zoo_dir, entry, workdir):
        self.zoo_dir = zoo_dir
        self.entry = entry
        self.name = entry["name"]
        path = os.path.join(zoo_dir, entry["path"])
        if os.path.exists(os.path.join(path, "saved_model.pb")):
            # A bare SavedModel: TF Serving wants a base path with numbered
            # versions, so a link makes it version 1.
            self.base_path = os.path.join(workdir, "zoo_bases", self.name)
            os.makedirs(self.base_path, exist_ok=True)
            link = os.path.join(self.base_path, "1")
            if not os.path.lexists(link):
                os.symlink(os.path.abspath(path), link)
        else:
            self.base_path = os.path.abspath(path)
        versions = [d for d in os.listdir(self.base_path) if d.isdigit()]
        self.version = max(int(v) for v in versions) if versions else None
        self.size = 0
        for root, _, files in os.walk(path):
            self.size += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        self.signature_defs = {}
        if self.version is not None:
            self.signature_defs = saved_model_signature_defs(os.path.join(self.base_path, str(self.version)))
        self._cases = None

    @property
    def cases(self):
        """[(signature key, method name, {input: TensorProto}, {output: (TensorProto, tolerance, why)})]"""
        if self._cases is None:
            self._cases = []
            for sig in self.entry["signatures"]:
                inputs = {k: read_tensor_proto(os.path.join(self.zoo_dir, f)) for k, f in sig["inputs"].items()}
                outputs = {k: (read_tensor_proto(os.path.join(self.zoo_dir, o["file"])),
                               float(o.get("tolerance", 1e-5)), o.get("why", "")) for k, o in sig["outputs"].items()}
                self._cases.append((sig["key"], self.method(sig["key"]), inputs, outputs))
        return self._cases

    def method(self, key):
        sigdef = self.signature_defs.get(key)
        return sigdef.method_name if sigdef else ""

    def keys(self):
        return [sig["key"] for sig in self.entry["signatures"]]

    def input_infos(self, key):
        sigdef = self.signature_defs.get(key)
        return list(sigdef.inputs.values()) if sigdef else []

    def text(self):
        return " ".join([self.name, self.entry.get("family", ""), self.entry.get("what", "")]).lower()

    def methods(self):
        return {self.method(k) for k in self.keys()}

    def has_image_input(self):
        return any(i.dtype in (types_pb2.DT_FLOAT, types_pb2.DT_HALF, types_pb2.DT_BFLOAT16)
                   and not i.tensor_shape.unknown_rank and len(i.tensor_shape.dim) == 4
                   for k in self.keys() for i in self.input_infos(k))

    def has_string_predict_input(self):
        return any(self.method(k) == PREDICT and i.dtype == types_pb2.DT_STRING
                   for k in self.keys() for i in self.input_infos(k))

    def classify_and_regress_share_input(self):
        """Whether TensorFlow fed a classify and a regress signature the same
        examples (then one MultiInference can run both)."""
        fed = {}
        for key, method, inputs, _ in self.cases:
            if method in (CLASSIFY, REGRESS) and len(inputs) == 1:
                fed.setdefault(method, set()).add(next(iter(inputs.values())).SerializeToString())
        return len(fed) == 2 and bool(fed[CLASSIFY] & fed[REGRESS])


def saved_model_signature_defs(version_dir):
    """The `serve` MetaGraphDef's signature defs, as TensorFlow's protos read them."""
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(version_dir, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    for mg in sm.meta_graphs:
        if "serve" in mg.meta_info_def.tags:
            return dict(mg.signature_def)
    return dict(sm.meta_graphs[0].signature_def) if sm.meta_graphs else {}


def _example_model_rank(m):
    if not {CLASSIFY, REGRESS} <= m.methods():
        return 2
    return 0 if m.classify_and_regress_share_input() else 1


# What a few models should cover between them. (what, predicate, rank: lower
# is preferred; the smallest model breaks ties, which keeps the run short.)
# Each kind takes a model no earlier kind took when there is one, so the
# general "several signatures" comes last.
KINDS = (
    ("a Keras CNN", ZooModel.has_image_input,
     lambda m: 0 if m.entry.get("family") == "keras_applications" or "cnn" in m.name else
     1 if "keras" in m.text() else 2),
    ("tf.Example classify/regress", lambda m: bool(m.methods() & {CLASSIFY, REGRESS}), _example_model_rank),
    ("a string input", ZooModel.has_string_predict_input, lambda m: 0),
    ("several signatures", lambda m: len(m.keys()) >= 2, lambda m: 0),
)


class ZooPicker:
    """Which zoo models to serve. wanted: "" picks one model per KINDS entry
    (whatever the manifest has), "all" every model, else a comma list of
    names."""

    def __init__(self, zoo_dir, workdir, wanted=""):
        with open(os.path.join(zoo_dir, "manifest.json")) as f:
            manifest = json.load(f)
        entries = manifest.get("models", [])
        self.header = "zoo %s: %d model(s), TensorFlow %s" % (zoo_dir, len(entries), manifest.get("tensorflow", "?"))
        self.explicit = bool(wanted)
        if wanted and wanted != "all":
            names = [n.strip() for n in wanted.split(",") if n.strip()]
            by_name = {e["name"]: e for e in entries}
            missing = [n for n in names if n not in by_name]
            if missing:
                raise ValueError("zoo models not in %s/manifest.json: %s" % (zoo_dir, ", ".join(missing)))
            entries = [by_name[n] for n in names]
        self.models = [ZooModel(zoo_dir, e, workdir) for e in entries]

    def pick(self, excluded=()):
        """([ZooModel], [lines saying what was picked and why]), leaving out
        the names in `excluded` (models tfhost failed to load)."""
        notes = [self.header]
        models = [m for m in self.models if m.name not in excluded]
        if self.explicit:
            return models, notes + ["serving: " + ", ".join(m.name for m in models)]
        picked = []
        for what, has, rank in KINDS:
            candidates = sorted((m for m in models if has(m)), key=lambda m: (rank(m), m.size))
            if not candidates:
                notes.append("no zoo model has %s" % what)
                continue
            chosen = next((m for m in candidates if m not in picked), candidates[0])
            if chosen not in picked:
                picked.append(chosen)
            notes.append("%s: %s (%s)" % (what, chosen.name, chosen.entry.get("what", "")))
        if not picked and models:
            smallest = min(models, key=lambda m: m.size)
            picked.append(smallest)
            notes.append("none of the kinds; the smallest model: %s" % smallest.name)
        return picked, notes


def load_failures(log_text):
    """{model: error} for the versions tfhost serve's log says failed to load."""
    failed = {}
    for line in log_text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") == "model_version_state" and event.get("state") == "END" and event.get("error"):
            failed[event.get("model")] = event["error"]
    return failed


def serve_zoo(tfhost, picker, workdir, flags_for_port, ready, also_served=()):
    """Starts `tfhost serve` on the picked zoo models (plus `also_served`,
    [(name, base_path)]). Loading every zoo model is zoo_test's business, so a
    picked model tfhost cannot load is replaced by the next of its kind, with
    a printed note (not when the models were named explicitly).
    flags_for_port(port, config_file) -> flags.
    Returns (proc, port, [ZooModel], log path); proc None when it failed."""
    excluded = {}
    log_path = os.path.join(workdir, "zoo_serve.log")
    config = os.path.join(workdir, "zoo.config")
    while True:
        models, notes = picker.pick(excluded)
        for line in notes:
            print(line)
        write_model_config(config, list(also_served) + [(m.name, m.base_path) for m in models])
        proc, port = start_serve(tfhost, lambda p: flags_for_port(p, config), log_path,
                                 lambda proc, p, deadline: ready(proc, p, deadline, models))
        if proc is not None or picker.explicit:
            return proc, port, models, log_path
        with open(log_path) as f:
            failed = {k: v for k, v in load_failures(f.read()).items() if k in {m.name for m in models}}
        if not failed:
            return None, None, models, log_path
        for name, error in failed.items():
            print("zoo model %s does not load in tfhost (zoo_test covers loading), serving another: %s"
                  % (name, error))
        excluded.update(failed)
