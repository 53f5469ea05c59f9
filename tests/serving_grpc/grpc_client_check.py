#!/usr/bin/env python3
"""Drives a real `tfhost serve` over gRPC as a TF Serving user's client would:
with TF Serving's own Python package (tensorflow_serving.apis stubs) and
TensorFlow's protos (tf.make_tensor_proto / tf.make_ndarray,
tensorflow.core.example). None of tfhost's .proto files is involved, so a
mistake shared between them and the server shows up here.

Checks every PredictionService and ModelService method, the cases of
grpc_cases.json (where the shared fixtures are), error codes and texts, the
message size limit, a short run of the load generator and the SIGTERM drain,
on TF Serving's test models (the fixtures' copies, else the zoo's generated
equivalents in <zoo>/tfserving); then, on a second server, a few
zoo models (tests/zoo/README.md): TensorFlow's recorded inputs through
Predict (and Classify / Regress / MultiInference where the signature's method
is that), answers against TensorFlow's recorded outputs, and
GetModelMetadata against the SavedModel's own signature defs.

Run it with the project's Python: scripts/py grpc_client_check.py ...
Exit status 0 when every check passes; failures are listed on stderr.
"""
import argparse
import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # the source tree stays as checked out
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving_zoo  # noqa: E402  (sets TensorFlow's log level before TensorFlow loads)

import grpc  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import json_format  # noqa: E402
from tensorflow.core.example import example_pb2  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402
from tensorflow_serving.apis import (classification_pb2, get_model_metadata_pb2, get_model_status_pb2,  # noqa: E402
                                     inference_pb2, model_management_pb2, model_service_pb2_grpc, predict_pb2,
                                     prediction_service_pb2_grpc, regression_pb2)

FAILURES = []

# method -> (request class, response class, service)
METHODS = {
    "Predict": (predict_pb2.PredictRequest, predict_pb2.PredictResponse, "prediction"),
    "Classify": (classification_pb2.ClassificationRequest, classification_pb2.ClassificationResponse, "prediction"),
    "Regress": (regression_pb2.RegressionRequest, regression_pb2.RegressionResponse, "prediction"),
    "MultiInference": (inference_pb2.MultiInferenceRequest, inference_pb2.MultiInferenceResponse, "prediction"),
    "GetModelMetadata": (get_model_metadata_pb2.GetModelMetadataRequest,
                         get_model_metadata_pb2.GetModelMetadataResponse, "prediction"),
    "GetModelStatus": (get_model_status_pb2.GetModelStatusRequest, get_model_status_pb2.GetModelStatusResponse,
                       "model"),
    "HandleReloadConfigRequest": (model_management_pb2.ReloadConfigRequest,
                                  model_management_pb2.ReloadConfigResponse, "model"),
}


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr, flush=True)
    return cond


def partially_equal(expected, actual, path="$"):
    """Every field the expectation gives must match (floats approximately)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return "%s: expected an object, got %r" % (path, actual)
        for k, v in expected.items():
            if k not in actual:
                return "%s.%s missing" % (path, k)
            err = partially_equal(v, actual[k], path + "." + k)
            if err:
                return err
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return "%s: expected %d items, got %r" % (path, len(expected), actual)
        for i, (e, a) in enumerate(zip(expected, actual)):
            err = partially_equal(e, a, "%s[%d]" % (path, i))
            if err:
                return err
        return None
    if isinstance(expected, float) or isinstance(actual, float):
        try:
            if abs(float(expected) - float(actual)) <= 1e-5 * max(1.0, abs(float(expected))):
                return None
        except (TypeError, ValueError):
            pass
        return "%s: expected %r, got %r" % (path, expected, actual)
    return None if expected == actual else "%s: expected %r, got %r" % (path, expected, actual)


def to_dict(message):
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


class Client:
    """TF Serving's generated stubs over one channel."""

    def __init__(self, port, timeout=30):
        options = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
        self.channel = grpc.insecure_channel("127.0.0.1:%d" % port, options=options)
        self.stubs = {"prediction": prediction_service_pb2_grpc.PredictionServiceStub(self.channel),
                      "model": model_service_pb2_grpc.ModelServiceStub(self.channel)}
        self.timeout = timeout

    @staticmethod
    def request(method, json_obj=None):
        req = METHODS[method][0]()
        if json_obj is not None:
            json_format.ParseDict(json_obj, req)
        return req

    def call(self, method, req, timeout=None):
        """(response, None) or (None, grpc.RpcError)."""
        try:
            return getattr(self.stubs[METHODS[method][2]], method)(req, timeout=timeout or self.timeout), None
        except grpc.RpcError as e:
            return None, e

    def close(self):
        self.channel.close()


def float_predict(model, values, shape, alias="x", signature=""):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = model
    req.model_spec.signature_name = signature
    req.inputs[alias].CopyFrom(tf.make_tensor_proto(np.asarray(values, dtype=np.float32).reshape(shape)))
    return req


def wait_available(client, names, proc, deadline_s):
    """Polls GetModelStatus until every model in `names` has an AVAILABLE
    version. Returns {name: why it is not available} ({} when all are)."""
    end = time.time() + deadline_s
    pending = {name: "no answer to GetModelStatus" for name in names}
    while pending and time.time() < end:
        if proc.poll() is not None:
            pending = {name: "tfhost serve exited with %s" % proc.returncode for name in pending}
            break
        for name in list(pending):
            resp, err = client.call("GetModelStatus", client.request("GetModelStatus", {"model_spec": {"name": name}}),
                                    timeout=2)
            if err is not None:
                pending[name] = "GetModelStatus: %s %s" % (err.code().name, err.details())
                continue
            states = [v.state for v in resp.model_version_status]
            if get_model_status_pb2.ModelVersionStatus.AVAILABLE in states:
                del pending[name]
                continue
            pending[name] = "versions: %s" % to_dict(resp)
            ended = [v for v in resp.model_version_status if v.state == get_model_status_pb2.ModelVersionStatus.END]
            if ended and ended[0].status.error_code != 0:
                return {name: "failed to load: %s" % ended[0].status.error_message}
        if pending:
            time.sleep(0.2)
    return pending


def replay_cases(client, cases):
    for case in cases:
        rpc = case["rpc"]
        name = "grpc_cases.json %s on %s" % (rpc, case["model_dir"])
        if rpc.startswith("Predict (sequence"):
            for sig, inputs, value in case["sequence"]:
                req = client.request("Predict", {"model_spec": {"name": case["served_as"], "signature_name": sig}})
                for alias, v in inputs.items():
                    req.inputs[alias].CopyFrom(tf.make_tensor_proto(v, dtype=tf.float32))
                resp, err = client.call("Predict", req)
                if not check(err is None, "%s step %s: %s" % (name, sig, err)):
                    break
                out = tf.make_ndarray(resp.outputs["output"])
                check(out.shape == () and out.dtype == np.float32 and float(out) == value,
                      "%s step %s: got %s" % (name, sig, to_dict(resp.outputs["output"])))
            continue
        method = rpc.split(".")[-1]
        req = client.request(method, case["request"])
        resp, err = client.call(method, req)
        if not check(err is None, "%s: %s" % (name, err)):
            continue
        expected = to_dict(json_format.ParseDict(case["expected"], METHODS[method][1]()))
        diff = partially_equal(expected, to_dict(resp))
        check(diff is None, "%s: %s" % (name, diff))


def tfserving_model_path(fixtures, zoo_dir, name):
    """TF Serving's test model `name`: the shared fixtures' copy when present,
    else the equivalent the zoo generator writes (tests/zoo/tfserving_models.py),
    as src/base/test_tfserving_models.h chooses for the C++ tests."""
    fixture = os.path.join(fixtures, "models", "tfserving", name)
    generated = os.path.join(zoo_dir, "tfserving", name) if zoo_dir else ""
    return generated if not os.path.isdir(fixture) and generated and os.path.isdir(generated) else fixture


def check_methods(client, model_path):
    # GetModelMetadata: a SignatureDefMap packed in an Any.
    req = client.request("GetModelMetadata", {"model_spec": {"name": "default"}, "metadata_field": ["signature_def"]})
    resp, err = client.call("GetModelMetadata", req)
    if check(err is None, "GetModelMetadata: %s" % err):
        check(resp.model_spec.version.value == 123, "GetModelMetadata version: %s" % resp.model_spec)
        anyv = resp.metadata["signature_def"]
        check(anyv.type_url == "type.googleapis.com/tensorflow.serving.SignatureDefMap",
              "GetModelMetadata type_url %r" % anyv.type_url)
        sigmap = get_model_metadata_pb2.SignatureDefMap()
        check(anyv.Unpack(sigmap), "GetModelMetadata's Any unpacks as a SignatureDefMap")
        check({"serving_default", "classify_x_to_y", "regress_x_to_y"} <= set(sigmap.signature_def.keys()),
              "GetModelMetadata signatures: %s" % sorted(sigmap.signature_def.keys()))
        check(sigmap.signature_def["serving_default"].inputs["x"].dtype == types_pb2.DT_FLOAT,
              "serving_default input x is DT_FLOAT")

    # Predict with a batch (tensor_content, as tf.make_tensor_proto packs it), version pinned.
    req = float_predict("default", [1.0, 2.0, 5.0], [3, 1])
    req.model_spec.version.value = 123
    resp, err = client.call("Predict", req)
    if check(err is None, "Predict batch: %s" % err):
        y = tf.make_ndarray(resp.outputs["y"])
        check(y.shape == (3, 1) and y.reshape(-1).tolist() == [2.5, 3.0, 4.5], "Predict batch values %s" % y)
        check(resp.model_spec.signature_name == "serving_default", "Predict model_spec %s" % resp.model_spec)

    # Errors: codes and texts as TF Serving.
    _, err = client.call("Predict", float_predict("half", [1.0], [1]))
    check(err is not None and err.code() == grpc.StatusCode.NOT_FOUND
          and err.details() == "Servable not found for request: Latest(half)", "unknown model: %s" % err)
    req = float_predict("default", [1.0], [1])
    req.model_spec.version.value = 999
    _, err = client.call("Predict", req)
    check(err is not None and err.code() == grpc.StatusCode.NOT_FOUND
          and err.details() == "Servable not found for request: Specific(default, 999)", "unknown version: %s" % err)
    _, err = client.call("Predict", float_predict("default", [1.0], [1], signature="nope"))
    check(err is not None and err.code() == grpc.StatusCode.FAILED_PRECONDITION
          and 'Serving signature key "nope" not found.' in err.details(), "unknown signature: %s" % err)
    _, err = client.call("Predict", float_predict("default", [1.0], [1], alias="z"))
    check(err is not None and err.code() == grpc.StatusCode.INVALID_ARGUMENT
          and "input tensor alias not found in signature: z" in err.details(), "unknown input: %s" % err)
    _, err = client.call("GetModelStatus", client.request("GetModelStatus", {"model_spec": {"name": "nosuch"}}))
    check(err is not None and err.code() == grpc.StatusCode.NOT_FOUND, "status of unknown model: %s" % err)

    # Message size limit (the server runs with --grpc_max_message_bytes=1048576).
    big = [0.5] * (300 * 1024)  # ~1.2 MB packed
    _, err = client.call("Predict", float_predict("default", big, [len(big), 1]))
    check(err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, "request over the limit: %s" % err)
    ok = [0.5] * (64 * 1024)
    resp, err = client.call("Predict", float_predict("default", ok, [len(ok), 1]))
    check(err is None and tf.make_ndarray(resp.outputs["y"]).size == len(ok), "request under the limit: %s" % err)

    # HandleReloadConfigRequest: add a model, then serve it.
    reload_req = client.request("HandleReloadConfigRequest", {"config": {"model_config_list": {"config": [
        {"name": "default", "base_path": model_path("saved_model_half_plus_two_cpu"), "model_platform": "tensorflow"},
        {"name": "half_plus_three", "base_path": model_path("saved_model_half_plus_three"),
         "model_platform": "tensorflow"},
        {"name": "counter", "base_path": model_path("saved_model_counter"), "model_platform": "tensorflow"},
        {"name": "added", "base_path": model_path("saved_model_half_plus_two_tf2_cpu"),
         "model_platform": "tensorflow"},
    ]}}})
    resp, err = client.call("HandleReloadConfigRequest", reload_req, timeout=120)
    if check(err is None, "HandleReloadConfigRequest: %s" % err):
        check(resp.status.error_code == 0, "reload status %s" % to_dict(resp))
        resp, err = client.call("Predict", float_predict("added", [2.0], [1]))
        check(err is None and abs(tf.make_ndarray(resp.outputs["y"]).reshape(-1)[0] - 3.0) < 1e-6,
              "Predict on the added model: %s" % err)
    bad = client.request("HandleReloadConfigRequest", {"config": {"custom_model_config": {}}})
    _, err = client.call("HandleReloadConfigRequest", bad)
    check(err is not None and err.code() == grpc.StatusCode.INVALID_ARGUMENT
          and "Only ModelConfigList" in err.details(), "reload with a custom config: %s" % err)


def check_sigterm_drain(client, proc):
    """Requests running when SIGTERM arrives finish or are refused cleanly."""
    stop = threading.Event()
    outcomes = {}
    lock = threading.Lock()

    def load():
        while not stop.is_set():
            _, err = client.call("Predict", float_predict("default", [1.0], [1]), timeout=10)
            key = "OK" if err is None else "%s (%s)" % (err.code().name, err.details())
            with lock:
                outcomes[key] = outcomes.get(key, 0) + 1
            if err is not None:
                return

    threads = [threading.Thread(target=load) for _ in range(8)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = None
    stop.set()
    for t in threads:
        t.join(timeout=30)
    check(rc == 0, "tfhost serve exit status after SIGTERM: %r" % rc)
    check(outcomes.get("OK", 0) > 0, "requests before SIGTERM succeeded: %s" % outcomes)
    # UNAVAILABLE: refused once shutdown began. CANCELLED: grpc had received the
    # call but no handler had taken it yet when shutdown began; grpc cancels
    # those (they never ran). Calls that were running must all have finished,
    # which main() checks in the log ("all requests finished").
    unexpected = {k: v for k, v in outcomes.items()
                  if k != "OK" and not k.startswith("UNAVAILABLE") and not k.startswith("CANCELLED")}
    check(not unexpected, "only OK, UNAVAILABLE or CANCELLED around SIGTERM, got %s" % outcomes)
    return outcomes


# ---------------------------------------------------------------- the zoo pass

def examples_of(proto):
    """A 1-D DT_STRING tensor of serialized tf.Examples as Example messages, or None."""
    if proto.dtype != types_pb2.DT_STRING or len(proto.tensor_shape.dim) != 1:
        return None
    return [example_pb2.Example.FromString(s) for s in tf.make_ndarray(proto).reshape(-1)]


def classification_arrays(result):
    """ClassificationResult -> (labels [batch, n] of bytes, scores [batch, n] float32)."""
    labels = np.array([[c.label.encode() for c in cl.classes] for cl in result.classifications], dtype=object)
    scores = np.array([[c.score for c in cl.classes] for cl in result.classifications], dtype=np.float32)
    return labels, scores


def compare_reshaped(ref_proto, got, tolerance):
    """Classify and Regress answer in their own shape ([batch, n] / [batch]);
    TensorFlow's tensors may carry the same elements as e.g. [batch, 1]."""
    ref = tf.make_ndarray(ref_proto)
    got = np.asarray(got)
    if got.size != ref.size:
        return "%d elements, TensorFlow's %s has %d" % (got.size, list(ref.shape), ref.size)
    return serving_zoo.compare_arrays(ref, got.reshape(ref.shape), tolerance,
                                      serving_zoo.is_float_dtype(ref_proto.dtype))


def check_classification(what, result, outputs):
    labels, scores = classification_arrays(result)
    for key, got in (("classes", labels), ("scores", scores)):
        if key in outputs:
            ref, tol, _ = outputs[key]
            diff = compare_reshaped(ref, got, tol)
            check(diff is None, "%s: %s: %s" % (what, key, diff))


def check_regression(what, result, outputs):
    if "outputs" not in outputs:
        return
    ref, tol, _ = outputs["outputs"]
    diff = compare_reshaped(ref, [r.value for r in result.regressions], tol)
    check(diff is None, "%s: outputs: %s" % (what, diff))


def check_zoo_metadata(client, m):
    req = client.request("GetModelMetadata", {"model_spec": {"name": m.name}, "metadata_field": ["signature_def"]})
    resp, err = client.call("GetModelMetadata", req)
    if not check(err is None, "zoo %s GetModelMetadata: %s" % (m.name, err)):
        return
    sigmap = get_model_metadata_pb2.SignatureDefMap()
    if not check(resp.metadata["signature_def"].Unpack(sigmap), "zoo %s metadata is a SignatureDefMap" % m.name):
        return
    check(resp.model_spec.version.value == m.version, "zoo %s metadata version %s" % (m.name, resp.model_spec))
    # TF Serving answers the MetaGraphDef's map as it is, the init-op
    # signature of TF2 SavedModels included.
    got, want = dict(sigmap.signature_def), m.signature_defs
    check(set(got) == set(want), "zoo %s metadata signatures %s, the SavedModel has %s"
          % (m.name, sorted(got), sorted(want)))
    for key in set(got) & set(want):
        check(got[key] == want[key], "zoo %s metadata of '%s': %s, the SavedModel has %s"
              % (m.name, key, to_dict(got[key]), to_dict(want[key])))


def check_zoo_model(client, m):
    check_zoo_metadata(client, m)
    examples_by_method = {}
    for key, method, inputs, outputs in m.cases:
        what = "zoo %s signature '%s'" % (m.name, key)
        req = predict_pb2.PredictRequest()
        req.model_spec.name = m.name
        req.model_spec.signature_name = key
        for alias, proto in inputs.items():
            req.inputs[alias].CopyFrom(proto)
        resp, err = client.call("Predict", req, timeout=120)
        if check(err is None, "%s Predict: %s" % (what, err)):
            check(resp.model_spec.name == m.name and resp.model_spec.signature_name == key
                  and resp.model_spec.version.value == m.version, "%s Predict model_spec %s" % (what, resp.model_spec))
            check(set(resp.outputs) == set(outputs), "%s Predict outputs %s, TensorFlow's %s"
                  % (what, sorted(resp.outputs), sorted(outputs)))
            for out_key in set(resp.outputs) & set(outputs):
                ref, tol, why = outputs[out_key]
                diff = serving_zoo.compare_protos(ref, resp.outputs[out_key], tol)
                check(diff is None, "%s Predict output '%s': %s%s" % (what, out_key, diff,
                                                                       " (tolerance: %s)" % why if why else ""))
        if method not in (serving_zoo.CLASSIFY, serving_zoo.REGRESS):
            continue
        examples = examples_of(next(iter(inputs.values()))) if len(inputs) == 1 else None
        if examples is None:
            print("%s: %s takes no 1-D batch of tf.Examples; Predict only" % (what, method))
            continue
        examples_by_method[method] = (key, examples, outputs)
        name = "Classify" if method == serving_zoo.CLASSIFY else "Regress"
        req = client.request(name, {"model_spec": {"name": m.name, "signature_name": key}})
        req.input.example_list.examples.extend(examples)
        resp, err = client.call(name, req, timeout=120)
        if check(err is None, "%s %s: %s" % (what, name, err)):
            check(resp.model_spec.signature_name == key, "%s %s model_spec %s" % (what, name, resp.model_spec))
            if method == serving_zoo.CLASSIFY:
                check_classification("%s Classify" % what, resp.result, outputs)
            else:
                check_regression("%s Regress" % what, resp.result, outputs)
    # MultiInference runs both heads on one input, when TensorFlow fed them the same one.
    if len(examples_by_method) == 2:
        (ckey, cex, cout), (rkey, rex, rout) = (examples_by_method[serving_zoo.CLASSIFY],
                                                examples_by_method[serving_zoo.REGRESS])
        if cex == rex:
            req = inference_pb2.MultiInferenceRequest()
            for key, method in ((ckey, serving_zoo.CLASSIFY), (rkey, serving_zoo.REGRESS)):
                task = req.tasks.add()
                task.model_spec.name = m.name
                task.model_spec.signature_name = key
                task.method_name = method
            req.input.example_list.examples.extend(cex)
            resp, err = client.call("MultiInference", req, timeout=120)
            what = "zoo %s MultiInference" % m.name
            if check(err is None and len(resp.results) == 2, "%s: %s" % (what, err or to_dict(resp))):
                check_classification(what + " classification", resp.results[0].classification_result, cout)
                check_regression(what + " regression", resp.results[1].regression_result, rout)


def check_zoo(tfhost, zoo_dir, wanted, work):
    if not zoo_dir:
        print("zoo pass skipped: TFHOST_ZOO_DIR is not set (the ctest sets it from tests/zoo/zoo_dir.sh --ensure)")
        return
    if not check(os.path.isfile(os.path.join(zoo_dir, "manifest.json")), "zoo: no manifest.json in %s" % zoo_dir):
        return
    picker = serving_zoo.ZooPicker(zoo_dir, work, wanted)
    if not check(picker.models, "zoo: %s/manifest.json lists no models" % zoo_dir):
        return
    clients = []

    def ready(proc, port, deadline_s, models):
        clients.append(Client(port, timeout=120))
        not_available = wait_available(clients[-1], [m.name for m in models], proc, deadline_s)
        if proc.poll() is None:  # an exited server's log, printed next, says why
            for name, why in not_available.items():
                print("zoo model %s is not available: %s" % (name, why), file=sys.stderr)
        return not not_available

    # Default message limits: zoo tensors may be larger than the first
    # server's limit. No load retries: a model that does not load fails at once.
    proc, _, models, log_path = serving_zoo.serve_zoo(
        tfhost, picker, work, lambda port, config: [
            "--port=%d" % port, "--rest_api_port=0", "--model_config_file=" + config,
            "--file_system_poll_wait_seconds=0", "--max_num_load_retries=0"], ready)
    if not check(proc is not None, "zoo: tfhost serve did not make the zoo models %s available"
                 % [m.name for m in models]):
        for c in clients:
            c.close()
        return
    try:
        for m in models:
            t0 = time.time()
            failures = len(FAILURES)
            check_zoo_model(clients[-1], m)
            print("zoo %s: %d signature(s), %s (%.1f s)" % (m.name, len(m.cases),
                                                            "ok" if len(FAILURES) == failures else "FAILED",
                                                            time.time() - t0))
    finally:
        rc = serving_zoo.stop(proc)
        for c in clients:
            c.close()
    check(rc == 0, "zoo server's exit status after SIGTERM: %r" % rc)
    if FAILURES:
        with open(log_path) as f:
            print(f.read()[-20000:], file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfhost", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--load", help="serving_grpc_load binary: 64 streams for 2 s must all succeed")
    ap.add_argument("--zoo", default=os.environ.get("TFHOST_ZOO_DIR", ""),
                    help="zoo folder (default $TFHOST_ZOO_DIR; none skips the zoo pass)")
    ap.add_argument("--zoo_models", default=os.environ.get("TFHOST_SERVING_ZOO_MODELS", ""),
                    help="comma list of zoo model names, or 'all' (default: one model of each kind)")
    args = ap.parse_args()
    model_path = functools.partial(tfserving_model_path, args.fixtures, args.zoo)
    cases_path = os.path.join(args.fixtures, "tfserving-configs", "derived", "grpc_cases.json")
    cases = []
    if os.path.isfile(cases_path):
        with open(cases_path) as f:
            cases = json.load(f)["cases"]
    else:
        print("grpc_cases.json replay skipped: %s is absent (it comes with the shared fixtures)" % cases_path)
    print("TF Serving test models from %s" % os.path.dirname(model_path("saved_model_half_plus_two_cpu")))

    with tempfile.TemporaryDirectory(prefix="tfhost_grpc_client_") as work:
        config = os.path.join(work, "models.config")
        serving_zoo.write_model_config(config, [(name, model_path(d)) for name, d in (
            ("default", "saved_model_half_plus_two_cpu"), ("half_plus_three", "saved_model_half_plus_three"),
            ("counter", "saved_model_counter"))])
        log_path = os.path.join(work, "serve.log")
        clients = []

        def ready(proc, port, deadline_s):
            clients.append(Client(port))
            return not wait_available(clients[-1], ["default"], proc, deadline_s)

        proc, port = serving_zoo.start_serve(
            args.tfhost, lambda port: ["--port=%d" % port, "--rest_api_port=0", "--model_config_file=" + config,
                                       "--file_system_poll_wait_seconds=0", "--grpc_max_message_bytes=1048576",
                                       "--shutdown_timeout_ms=10000"], log_path, ready)
        if proc is None:
            check(False, "tfhost serve never answered GetModelStatus")
            return 1
        client = clients[-1]
        try:
            replay_cases(client, cases)  # first: the counter case needs a fresh model
            check_methods(client, model_path)
            if args.load:
                run = subprocess.run([args.load, "--target=127.0.0.1:%d" % port, "--model=default", "--streams=64",
                                      "--duration_s=2", "--warmup_s=0.5"], capture_output=True, text=True,
                                     timeout=60)
                print("load: " + run.stdout.strip())
                check(run.returncode == 0 and '"errors": 0,' in run.stdout,
                      "64-stream load run: rc %d %s %s" % (run.returncode, run.stdout, run.stderr))
            outcomes = check_sigterm_drain(client, proc)
            print("SIGTERM outcomes: %s" % outcomes)
        finally:
            serving_zoo.stop(proc)
            for c in clients:
                c.close()
        with open(log_path) as f:
            text = f.read()
        check("gRPC API listening on" in text, "startup log names the gRPC port")
        check("all requests finished" in text, "every call running at SIGTERM finished")
        if FAILURES:
            print(text, file=sys.stderr)

        check_zoo(args.tfhost, args.zoo, args.zoo_models, work)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
