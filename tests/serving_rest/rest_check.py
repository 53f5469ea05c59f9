#!/usr/bin/env python3
"""Drives a real `tfhost serve` over TF Serving's REST API with plain HTTP
(urllib; no tfhost code on the client side), on a few zoo models
(tests/zoo/README.md) and tfhost's demo half_plus_two:

  GET  /v1/models/NAME             status: version AVAILABLE, error_code OK
  GET  /v1/models/NAME/metadata    the SavedModel's own signature defs, parsed
                                   by TensorFlow's protos
  POST /v1/models/NAME:predict     TensorFlow's recorded inputs in the row
                                   ("instances") and columnar ("inputs")
                                   formats, answers against TensorFlow's
                                   recorded outputs
  POST :classify / :regress        for signatures with those methods, the
                                   recorded tf.Examples written as JSON
  errors                           unknown model / version / signature /
                                   input, malformed JSON, a bad route:
                                   status code and TF Serving's {"error": ...}
                                   text naming the culprit
  limits                           a second server with small request limits
                                   (values, string length, body size): a
                                   request past each gets a 4xx naming the
                                   flag, and the server keeps serving

The server listens on 127.0.0.1 only, on a port picked free, and is stopped
with SIGTERM at the end (exit status 0). Every wait is bounded.

Run it with the project's Python: scripts/py rest_check.py --tfhost BINARY
The zoo comes from --zoo or $TFHOST_ZOO_DIR; without one, only the demo model
is checked and the script says the zoo pass was skipped.
"""
import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # the source tree stays as checked out
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serving_grpc"))
import serving_zoo  # noqa: E402  (sets TensorFlow's log level before TensorFlow loads)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import json_format  # noqa: E402
from tensorflow.core.example import example_pb2  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402
from tensorflow_serving.apis import get_model_metadata_pb2  # noqa: E402

FAILURES = []
DEMO = "tfhost_demo_half_plus_two"  # a name no zoo model takes

# Loopback requests must not go through an HTTP proxy from the environment.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr, flush=True)
    return cond


class Rest:
    def __init__(self, port):
        self.port = port
        self.base = "http://127.0.0.1:%d" % port

    def call(self, method, path, body=None, timeout=120):
        """(HTTP status, parsed JSON or None, body text); status None when no answer came."""
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with OPENER.open(req, timeout=timeout) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        except (urllib.error.URLError, OSError) as e:
            return None, None, str(e)
        text = raw.decode("utf-8", errors="replace")
        try:
            return status, json.loads(text), text
        except ValueError:
            return status, None, text


# ---------------------------------------------------------------- JSON <-> tensors

def to_json_value(array):
    """A numpy array as TF Serving's JSON: nested lists; strings as text when
    they are UTF-8, else {"b64": ...}."""
    if array.dtype == object:
        def enc(v):
            if isinstance(v, list):
                return [enc(x) for x in v]
            try:
                return v.decode("utf-8")
            except UnicodeDecodeError:
                return {"b64": base64.b64encode(v).decode()}
        return enc(array.tolist())
    if array.dtype.kind == "f" or array.dtype.name == "bfloat16":
        return array.astype(np.float64).tolist()
    return array.tolist()


def from_json_value(value, ref_proto):
    """An answer's JSON value as an array of TensorFlow's dtype kind (the
    shape is whatever the JSON nests)."""
    if ref_proto.dtype == types_pb2.DT_STRING:
        def dec(v):
            if isinstance(v, list):
                return [dec(x) for x in v]
            if isinstance(v, dict) and set(v) == {"b64"}:
                return base64.b64decode(v["b64"])
            return v.encode("utf-8") if isinstance(v, str) else v
        decoded = dec(value)
        arr = np.empty(np.shape(decoded) if isinstance(decoded, list) else (), dtype=object)
        if arr.ndim:
            arr[...] = decoded
        else:
            arr[()] = decoded
        return arr
    return np.array(value)


def compare_json(ref_proto, value, tolerance):
    try:
        got = from_json_value(value, ref_proto)
    except (ValueError, TypeError) as e:
        return "cannot read %r as a tensor: %s" % (str(value)[:200], e)
    return serving_zoo.compare_arrays(tf.make_ndarray(ref_proto), got, tolerance,
                                      serving_zoo.is_float_dtype(ref_proto.dtype))


def example_to_json(example):
    """A tf.Example as TF Serving's REST writes examples: feature -> value or list."""
    out = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        if kind == "float_list":
            values = [float(v) for v in feature.float_list.value]
        elif kind == "int64_list":
            values = [int(v) for v in feature.int64_list.value]
        elif kind == "bytes_list":
            values = to_json_value(np.array(list(feature.bytes_list.value), dtype=object))
        else:
            values = []
        out[name] = values[0] if len(values) == 1 else values
    return out


def examples_of(proto):
    if proto.dtype != types_pb2.DT_STRING or len(proto.tensor_shape.dim) != 1:
        return None
    return [example_pb2.Example.FromString(s) for s in tf.make_ndarray(proto).reshape(-1)]


# ---------------------------------------------------------------- checks

def wait_available(rest, names, proc, deadline_s):
    end = time.time() + deadline_s
    pending = set(names)
    while pending and time.time() < end:
        if proc.poll() is not None:
            return False
        for name in list(pending):
            status, body, _ = rest.call("GET", "/v1/models/" + name, timeout=5)
            if status == 200 and isinstance(body, dict) and any(
                    v.get("state") == "AVAILABLE" for v in body.get("model_version_status", [])):
                pending.discard(name)
        if pending:
            time.sleep(0.2)
    for name in pending:
        print("model %s is not AVAILABLE" % name, file=sys.stderr)
    return not pending


def check_status(rest, name, version):
    status, body, text = rest.call("GET", "/v1/models/" + name)
    if not check(status == 200 and body is not None, "GET /v1/models/%s: %s %s" % (name, status, text)):
        return
    versions = body.get("model_version_status", [])
    check(len(versions) == 1 and versions[0].get("version") == str(version)
          and versions[0].get("state") == "AVAILABLE" and versions[0].get("status", {}).get("error_code") == "OK",
          "GET /v1/models/%s: %s" % (name, text))


def check_metadata(rest, name, version, signature_defs):
    status, body, text = rest.call("GET", "/v1/models/%s/metadata" % name)
    if not check(status == 200 and body is not None, "GET /v1/models/%s/metadata: %s %s" % (name, status, text[:500])):
        return
    check(body.get("model_spec", {}).get("name") == name and body["model_spec"].get("version") == str(version),
          "metadata of %s: model_spec %s" % (name, body.get("model_spec")))
    sigmap = get_model_metadata_pb2.SignatureDefMap()
    try:
        json_format.ParseDict(body.get("metadata", {}).get("signature_def", {}), sigmap)
    except json_format.ParseError as e:
        check(False, "metadata of %s is not a SignatureDefMap in proto JSON: %s" % (name, e))
        return
    got = dict(sigmap.signature_def)
    check(set(got) == set(signature_defs), "metadata of %s: signatures %s, the SavedModel has %s"
          % (name, sorted(got), sorted(signature_defs)))
    for key in set(got) & set(signature_defs):
        check(got[key] == signature_defs[key], "metadata of %s signature '%s': %s, the SavedModel has %s"
              % (name, key, json_format.MessageToDict(got[key]), json_format.MessageToDict(signature_defs[key])))


def batch_size(protos):
    """The shared first dimension of every tensor, or None (row format needs one)."""
    sizes = {p.tensor_shape.dim[0].size if p.tensor_shape.dim else None for p in protos}
    return sizes.pop() if len(sizes) == 1 and None not in sizes else None


def check_predict_case(rest, m, key, inputs, outputs):
    what = "zoo %s signature '%s'" % (m.name, key)
    arrays = {alias: tf.make_ndarray(p) for alias, p in inputs.items()}
    if any(np.iscomplexobj(a) for a in arrays.values()):
        print("%s: complex inputs have no JSON form; REST skipped" % what)
        return
    path = "/v1/models/%s:predict" % m.name

    def compare_outputs(fmt, answer):
        if len(outputs) == 1 and (not isinstance(answer, dict) or set(answer) == {"b64"}):
            answer = {next(iter(outputs)): answer}  # one output comes bare
        if not check(isinstance(answer, dict) and set(answer) == set(outputs),
                     "%s %s: outputs %s, TensorFlow's %s" % (what, fmt, str(answer)[:300], sorted(outputs))):
            return
        for out_key, (ref, tol, why) in outputs.items():
            diff = compare_json(ref, answer[out_key], tol)
            check(diff is None, "%s %s output '%s': %s%s" % (what, fmt, out_key, diff,
                                                               " (tolerance: %s)" % why if why else ""))

    # Columnar: {"inputs": {alias: tensor}} -> {"outputs": ...}.
    body = {"signature_name": key, "inputs": {alias: to_json_value(a) for alias, a in arrays.items()}}
    status, answer, text = rest.call("POST", path, body)
    if check(status == 200 and answer is not None and "outputs" in answer,
             "%s columnar :predict: %s %s" % (what, status, text[:500])):
        compare_outputs("columnar", answer["outputs"])

    # Row: {"instances": [row, ...]} -> {"predictions": [row, ...]}, when every
    # input and output shares its first dimension (TF Serving's condition).
    n = batch_size(list(inputs.values()))
    if n is None or batch_size([ref for ref, _, _ in outputs.values()]) != n:
        print("%s: inputs or outputs share no batch dimension; row format skipped" % what)
        return
    if len(arrays) == 1:
        instances = to_json_value(next(iter(arrays.values())))
    else:
        columns = {alias: to_json_value(a) for alias, a in arrays.items()}
        instances = [{alias: columns[alias][i] for alias in columns} for i in range(n)]
    status, answer, text = rest.call("POST", path, {"signature_name": key, "instances": instances})
    if not check(status == 200 and answer is not None and isinstance(answer.get("predictions"), list),
                 "%s row :predict: %s %s" % (what, status, text[:500])):
        return
    rows = answer["predictions"]
    if len(outputs) == 1:
        compare_outputs("row", rows)
    elif check(all(isinstance(r, dict) for r in rows), "%s row: predictions are not objects: %s" % (what, text[:300])):
        compare_outputs("row", {k: [r.get(k) for r in rows] for k in rows[0]} if rows else {})


def check_classify_regress_case(rest, m, key, method, inputs, outputs):
    what = "zoo %s signature '%s'" % (m.name, key)
    examples = examples_of(next(iter(inputs.values()))) if len(inputs) == 1 else None
    if examples is None:
        print("%s: %s takes no 1-D batch of tf.Examples; REST :predict only" % (what, method))
        return
    verb = "classify" if method == serving_zoo.CLASSIFY else "regress"
    body = {"signature_name": key, "examples": [example_to_json(e) for e in examples]}
    status, answer, text = rest.call("POST", "/v1/models/%s:%s" % (m.name, verb), body)
    if not check(status == 200 and answer is not None and isinstance(answer.get("results"), list),
                 "%s :%s: %s %s" % (what, verb, status, text[:500])):
        return
    results = answer["results"]
    if verb == "regress":
        if "outputs" in outputs:
            # results are [batch]; TensorFlow's tensor may be [batch, 1].
            ref, tol, _ = outputs["outputs"]
            ref_shape = tf.make_ndarray(ref).shape
            if np.size(results) == int(np.prod(ref_shape)):
                results = np.array(results).reshape(ref_shape).tolist()
            diff = compare_json(ref, results, tol)
            check(diff is None, "%s :regress: %s" % (what, diff))
        return
    # classify: results[i] = [[label, score], ...]
    try:
        labels = [[pair[0] for pair in r] for r in results]
        scores = [[pair[1] for pair in r] for r in results]
    except (TypeError, IndexError):
        check(False, "%s :classify: results are not [[label, score], ...]: %s" % (what, text[:300]))
        return
    for out_key, got in (("classes", labels), ("scores", scores)):
        if out_key in outputs:
            ref, tol, _ = outputs[out_key]
            diff = compare_json(ref, got, tol)
            check(diff is None, "%s :classify %s: %s" % (what, out_key, diff))


def check_zoo_model(rest, m):
    check_status(rest, m.name, m.version)
    check_metadata(rest, m.name, m.version, m.signature_defs)
    for key, method, inputs, outputs in m.cases:
        check_predict_case(rest, m, key, inputs, outputs)
        if method in (serving_zoo.CLASSIFY, serving_zoo.REGRESS):
            check_classify_regress_case(rest, m, key, method, inputs, outputs)


def expect_error(rest, method, path, body, status, words, what):
    """The answer is `status` with TF Serving's {"error": "..."} body, and the
    message contains every one of `words` (what names the culprit)."""
    got_status, answer, text = rest.call(method, path, body)
    ok = got_status == status and isinstance(answer, dict) and set(answer) == {"error"}
    message = answer.get("error", "") if isinstance(answer, dict) else ""
    check(ok and all(w in message for w in words),
          "%s: expected %d with an error naming %s, got %s %s" % (what, status, words, got_status, text[:300]))


def check_demo(rest, version):
    """tfhost's demo half_plus_two (y = 0.5 x + 2): known answers and the error cases."""
    check_status(rest, DEMO, version)
    status, answer, text = rest.call("POST", "/v1/models/%s:predict" % DEMO, {"instances": [1.0, 2.0, 5.0]})
    check(status == 200 and answer == {"predictions": [2.5, 3.0, 4.5]}, "demo row :predict: %s %s" % (status, text))
    status, answer, text = rest.call("POST", "/v1/models/%s/versions/%d:predict" % (DEMO, version),
                                     {"inputs": {"x": [1.0, 2.0]}})
    check(status == 200 and answer == {"outputs": [2.5, 3.0]}, "demo columnar :predict: %s %s" % (status, text))
    status, answer, text = rest.call("POST", "/v1/models/%s:classify" % DEMO,
                                     {"signature_name": "classify_x_to_y", "examples": [{"x": 1.0}, {"x": 6.0}]})
    check(status == 200 and [[p[1] for p in r] for r in answer.get("results", [])] == [[2.5], [5.0]],
          "demo :classify: %s %s" % (status, text))
    status, answer, text = rest.call("POST", "/v1/models/%s:regress" % DEMO,
                                     {"signature_name": "regress_x_to_y", "examples": [{"x": 4.0}]})
    check(status == 200 and answer == {"results": [4.0]}, "demo :regress: %s %s" % (status, text))

    # TF Serving's own texts where it has them; otherwise the words that name the culprit.
    expect_error(rest, "GET", "/v1/models/nosuch_model", None, 404,
                 ["Could not find any versions of model nosuch_model"], "status of an unknown model")
    expect_error(rest, "GET", "/v1/models/nosuch_model/metadata", None, 404,
                 ["Servable not found for request: Latest(nosuch_model)"], "metadata of an unknown model")
    expect_error(rest, "POST", "/v1/models/nosuch_model:predict", {"instances": [1.0]}, 404,
                 ["Servable not found for request: Latest(nosuch_model)"], ":predict on an unknown model")
    expect_error(rest, "POST", "/v1/models/nosuch_model:classify", {"examples": [{"x": 1.0}]}, 404,
                 ["Servable not found for request: Latest(nosuch_model)"], ":classify on an unknown model")
    expect_error(rest, "POST", "/v1/models/%s/versions/999:predict" % DEMO, {"instances": [1.0]}, 404,
                 ["Servable not found for request: Specific(%s, 999)" % DEMO], ":predict on an unknown version")
    expect_error(rest, "POST", "/v1/models/%s:predict" % DEMO, b'{"instances": [1.0,', 400,
                 ["JSON Parse error", "at offset: 19"], "malformed JSON (cut short)")
    expect_error(rest, "POST", "/v1/models/%s:predict" % DEMO, b"instances", 400,
                 ["JSON Parse error", "at offset: 0"], "a body that is no JSON")
    expect_error(rest, "POST", "/v1/models/%s:classify" % DEMO, b'{"examples": [{"x": 1.0}]', 400,
                 ["JSON Parse error"], "malformed JSON to :classify")
    expect_error(rest, "POST", "/v1/models/%s:predict" % DEMO, {"inputs": {"no_such_input": [1.0]}}, 400,
                 ["no_such_input"], "columnar :predict with a wrong input name")
    expect_error(rest, "POST", "/v1/models/%s:predict" % DEMO, {"instances": [{"no_such_input": 1.0}]}, 400,
                 ["no_such_input"], "row :predict with a wrong input name")
    expect_error(rest, "POST", "/v1/models/%s:predict" % DEMO, {"signature_name": "nope", "instances": [1.0]}, 400,
                 ['Serving signature name: "nope" not found'], ":predict with an unknown signature")
    expect_error(rest, "POST", "/v1/models/%s:predict" % DEMO, {"instances": ["text"]}, 400, ['"text"', "float"],
                 ":predict with a string for a float input")
    expect_error(rest, "POST", "/v1/models/%s:predict" % DEMO, {"instances": [1.0], "inputs": [1.0]}, 400,
                 ["only one of 'inputs' or 'instances'"], ":predict with both formats")
    expect_error(rest, "POST", "/v1/models/%s:predict" % DEMO, {"signature_name": "serving_default"}, 400,
                 ["Missing 'inputs' or 'instances' key"], ":predict with neither format")
    expect_error(rest, "POST", "/v1/models/%s:regress" % DEMO,
                 {"signature_name": "classify_x_to_y", "examples": [{"x": 1.0}]}, 400,
                 ["No regression outputs found", "classify_x_to_y"], ":regress on a classification signature")
    expect_error(rest, "POST", "/v1/models/%s:frobnicate" % DEMO, {"instances": [1.0]}, 400, ["frobnicate"],
                 "an unknown verb")


# The request limits of the limits pass: small enough for a test to cross.
LIMIT_FLAGS = ["--max_request_elements=8", "--max_request_string_bytes=64", "--rest_api_max_body_mb=1"]


def check_limits(rest):
    """Each limit crossed by a little, each answer a 4xx naming its flag, and
    the same request within the limits served right after."""
    predict = "/v1/models/%s:predict" % DEMO
    classify = "/v1/models/%s:classify" % DEMO

    def served(what):
        status, answer, text = rest.call("POST", predict, {"instances": [float(i) for i in range(8)]})
        check(status == 200 and len(answer.get("predictions", [])) == 8,
              "after %s: 8 instances (at --max_request_elements) are served: %s %s" % (what, status, text[:200]))

    served("start-up")
    expect_error(rest, "POST", predict, {"instances": [float(i) for i in range(9)]}, 400,
                 ["input 'x'", "hold 9 values", "(--max_request_elements=8)"], "9 instances past 8 values")
    served("a request past --max_request_elements")
    long_note = {"signature_name": "classify_x_to_y", "examples": [{"x": 1.0, "note": "n" * 100}]}
    expect_error(rest, "POST", classify, long_note, 400,
                 ["string value 0 is", "(--max_request_string_bytes=64)"], "an example longer than 64 bytes")
    status, answer, text = rest.call("POST", classify, {"signature_name": "classify_x_to_y", "examples": [{"x": 1.0}]})
    check(status == 200 and "results" in answer, "a short example is classified: %s %s" % (status, text[:200]))
    # Only the head goes out: the server answers from Content-Length alone,
    # so no unread body makes the close a reset before the answer is read.
    with socket.create_connection(("127.0.0.1", rest.port), timeout=30) as conn:
        conn.sendall(("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      "Content-Length: %d\r\n\r\n" % (predict, (1 << 20) + 1)).encode())
        raw = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    check(head.startswith(b"HTTP/1.1 413 ") and b"request body larger than the limit of 1048576 bytes "
          b"(--rest_api_max_body_mb)" in body, "a body past --rest_api_max_body_mb=1: %r" % raw[:300])
    served("a body past --rest_api_max_body_mb")


def run_limits_pass(tfhost, work, demo):
    """A server of the demo model alone with LIMIT_FLAGS; True when it started."""
    rests = []

    def ready(proc, port, deadline_s, models):
        rests.append(Rest(port))
        return wait_available(rests[-1], [DEMO], proc, deadline_s)

    proc, _, _, log_path = serving_zoo.serve_zoo(
        tfhost, ZeroPicker(), os.path.join(work, "limits"), lambda port, config: [
            "--port=0", "--rest_api_address=127.0.0.1", "--rest_api_port=%d" % port,
            "--model_config_file=" + config, "--file_system_poll_wait_seconds=0", "--max_num_load_retries=0",
            "--shutdown_timeout_ms=10000"] + LIMIT_FLAGS, ready, also_served=demo)
    if not check(proc is not None, "tfhost serve %s did not start" % " ".join(LIMIT_FLAGS)):
        return False
    failures = len(FAILURES)
    try:
        check_limits(rests[-1])
    finally:
        rc = serving_zoo.stop(proc)
    check(rc == 0, "tfhost serve (limits pass) exit status after SIGTERM: %r" % rc)
    print("limits pass: %s" % ("ok" if len(FAILURES) == failures else "FAILED"))
    if len(FAILURES) != failures:
        with open(log_path) as f:
            print(f.read()[-10000:], file=sys.stderr)
    return True


class ZeroPicker:
    """No zoo: only the demo model is served."""
    explicit = True

    def pick(self, excluded=()):
        return [], []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfhost", required=True)
    ap.add_argument("--zoo", default=os.environ.get("TFHOST_ZOO_DIR", ""),
                    help="zoo folder (default $TFHOST_ZOO_DIR; none skips the zoo pass)")
    ap.add_argument("--zoo_models", default=os.environ.get("TFHOST_SERVING_ZOO_MODELS", ""),
                    help="comma list of zoo model names, or 'all' (default: one model of each kind)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="tfhost_rest_") as work:
        demo_dir = os.path.join(work, "demo")
        run = subprocess.run([args.tfhost, "demo-models", demo_dir], capture_output=True, text=True, timeout=120)
        if not check(run.returncode == 0, "tfhost demo-models: %s %s" % (run.stdout, run.stderr)):
            return 1
        demo = [(DEMO, os.path.join(demo_dir, "half_plus_two"))]
        picker = ZeroPicker()
        if not args.zoo:
            print("zoo pass skipped: TFHOST_ZOO_DIR is not set (the ctest sets it from tests/zoo/zoo_dir.sh --ensure)")
        elif check(os.path.isfile(os.path.join(args.zoo, "manifest.json")), "no manifest.json in %s" % args.zoo):
            picker = serving_zoo.ZooPicker(args.zoo, work, args.zoo_models)
            check(picker.models, "%s/manifest.json lists no models" % args.zoo)
        rests = []

        def ready(proc, port, deadline_s, models):
            rests.append(Rest(port))
            return wait_available(rests[-1], [DEMO] + [m.name for m in models], proc, deadline_s)

        # Loopback only. No load retries: a model that does not load fails at once.
        proc, port, models, log_path = serving_zoo.serve_zoo(
            args.tfhost, picker, work, lambda port, config: [
                "--port=0", "--rest_api_address=127.0.0.1", "--rest_api_port=%d" % port,
                "--model_config_file=" + config, "--file_system_poll_wait_seconds=0", "--max_num_load_retries=0",
                "--shutdown_timeout_ms=10000"], ready, also_served=demo)
        if not check(proc is not None, "tfhost serve did not make every model AVAILABLE over REST"):
            print("%d failure(s)" % len(FAILURES))
            return 1
        rest = rests[-1]
        try:
            check_demo(rest, 1)
            for m in models:
                t0 = time.time()
                failures = len(FAILURES)
                check_zoo_model(rest, m)
                print("zoo %s: %d signature(s), %s (%.1f s)" % (m.name, len(m.cases),
                                                                "ok" if len(FAILURES) == failures else "FAILED",
                                                                time.time() - t0))
        finally:
            rc = serving_zoo.stop(proc)
        check(rc == 0, "tfhost serve's exit status after SIGTERM: %r" % rc)
        with open(log_path) as f:
            text = f.read()
        check("REST API listening on 127.0.0.1:%d" % port in text, "startup log names the loopback REST port")
        if FAILURES:
            print(text[-20000:], file=sys.stderr)
        os.makedirs(os.path.join(work, "limits"))
        run_limits_pass(args.tfhost, work, demo)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
