#!/usr/bin/env python3
"""Drives a real `tfhost serve` over gRPC with Python grpcio, as a TF Serving
user's client would, and checks every PredictionService and ModelService
method, the cases of grpc_cases.json, error codes and texts, the message size
limit and the SIGTERM drain.

No generated Python stubs (grpcio-tools is not packaged): protoc (the C++
compiler, a build dependency) writes a descriptor set of tfhost's .proto
files, Python protobuf builds message classes from it, and calls go through
grpcio's generic channel.unary_unary with the method's HTTP/2 path. Python
protobuf's own parser thereby cross-checks tfhost's wire format.

Exit status 0 when every check passes; failures are listed on stderr.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr, flush=True)
    return cond


class Api:
    """Message classes and generic method callables for the two services."""

    def __init__(self, protoc, proto_dir, workdir):
        out = os.path.join(workdir, "api.pb")
        subprocess.run([protoc, "--include_imports", "--descriptor_set_out=" + out, "-I", proto_dir,
                        "tensorflow_serving/apis/prediction_service.proto",
                        "tensorflow_serving/apis/model_service.proto"], check=True)
        fds = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            fds.ParseFromString(f.read())
        self.pool = descriptor_pool.DescriptorPool()
        for file_proto in fds.file:
            self.pool.Add(file_proto)
        self.factory = message_factory.MessageFactory(self.pool)

    def msg(self, full_name):
        desc = self.pool.FindMessageTypeByName(full_name)
        if hasattr(message_factory, "GetMessageClass"):
            return message_factory.GetMessageClass(desc)
        return self.factory.GetPrototype(desc)

    def method(self, channel, service, name):
        svc = self.pool.FindServiceByName("tensorflow.serving." + service)
        m = svc.methods_by_name[name]
        req_cls = self.msg(m.input_type.full_name)
        resp_cls = self.msg(m.output_type.full_name)
        call = channel.unary_unary("/tensorflow.serving.%s/%s" % (service, name),
                                   request_serializer=lambda r: r.SerializeToString(),
                                   response_deserializer=resp_cls.FromString)
        return req_cls, resp_cls, call


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    def __init__(self, api, port, timeout=30):
        self.api = api
        options = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
        self.channel = grpc.insecure_channel("127.0.0.1:%d" % port, options=options)
        self.timeout = timeout
        self.methods = {}
        for service, names in (("PredictionService", ["Classify", "Regress", "Predict", "MultiInference",
                                                      "GetModelMetadata"]),
                               ("ModelService", ["GetModelStatus", "HandleReloadConfigRequest"])):
            for name in names:
                self.methods[name] = api.method(self.channel, service, name)

    def request(self, method, json_obj=None):
        req = self.methods[method][0]()
        if json_obj is not None:
            json_format.ParseDict(json_obj, req)
        return req

    def call(self, method, req, timeout=None):
        """(response, None) or (None, grpc.RpcError)."""
        try:
            return self.methods[method][2](req, timeout=timeout or self.timeout), None
        except grpc.RpcError as e:
            return None, e


def float_predict(client, model, values, shape, alias="x", signature=""):
    return client.request("Predict", {
        "model_spec": {"name": model, "signature_name": signature},
        "inputs": {alias: {"dtype": "DT_FLOAT", "tensor_shape": {"dim": [{"size": d} for d in shape]},
                           "float_val": values}}})


def wait_ready(client, proc, deadline_s):
    end = time.time() + deadline_s
    while time.time() < end:
        if proc.poll() is not None:
            return False
        resp, err = client.call("GetModelStatus", client.request("GetModelStatus", {"model_spec": {"name": "default"}}),
                                timeout=2)
        if resp is not None:
            return True
        time.sleep(0.2)
    return False


def replay_cases(client, cases):
    for case in cases:
        rpc = case["rpc"]
        name = "grpc_cases.json %s on %s" % (rpc, case["model_dir"])
        if rpc.startswith("Predict (sequence"):
            for sig, inputs, value in case["sequence"]:
                req = client.request("Predict", {"model_spec": {"name": case["served_as"], "signature_name": sig}})
                for alias, v in inputs.items():
                    json_format.ParseDict({"dtype": "DT_FLOAT", "float_val": [v]}, req.inputs[alias])
                resp, err = client.call("Predict", req)
                if not check(err is None, "%s step %s: %s" % (name, sig, err)):
                    break
                out = resp.outputs["output"]
                check(len(out.tensor_shape.dim) == 0 and list(out.float_val) == [value],
                      "%s step %s: got %s" % (name, sig, to_dict(out)))
            continue
        method = rpc.split(".")[-1]
        req = client.request(method, case["request"])
        resp, err = client.call(method, req)
        if not check(err is None, "%s: %s" % (name, err)):
            continue
        expected = to_dict(json_format.ParseDict(case["expected"], client.methods[method][1]()))
        diff = partially_equal(expected, to_dict(resp))
        check(diff is None, "%s: %s" % (name, diff))


def check_methods(client, base):
    # GetModelMetadata: a SignatureDefMap packed in an Any.
    req = client.request("GetModelMetadata", {"model_spec": {"name": "default"}, "metadata_field": ["signature_def"]})
    resp, err = client.call("GetModelMetadata", req)
    if check(err is None, "GetModelMetadata: %s" % err):
        check(resp.model_spec.version.value == 123, "GetModelMetadata version: %s" % resp.model_spec)
        anyv = resp.metadata["signature_def"]
        check(anyv.type_url == "type.googleapis.com/tensorflow.serving.SignatureDefMap",
              "GetModelMetadata type_url %r" % anyv.type_url)
        sigmap = client.api.msg("tensorflow.serving.SignatureDefMap").FromString(anyv.value)
        check({"serving_default", "classify_x_to_y", "regress_x_to_y"} <= set(sigmap.signature_def.keys()),
              "GetModelMetadata signatures: %s" % sorted(sigmap.signature_def.keys()))
        check(sigmap.signature_def["serving_default"].inputs["x"].dtype == 1, "serving_default input x is DT_FLOAT")

    # Predict with a batch, version pinned.
    req = float_predict(client, "default", [1.0, 2.0, 5.0], [3, 1])
    req.model_spec.version.value = 123
    resp, err = client.call("Predict", req)
    if check(err is None, "Predict batch: %s" % err):
        check(list(resp.outputs["y"].float_val) == [2.5, 3.0, 4.5], "Predict batch values %s" % resp.outputs["y"])
        check(resp.model_spec.signature_name == "serving_default", "Predict model_spec %s" % resp.model_spec)

    # Errors: codes and texts as TF Serving.
    _, err = client.call("Predict", float_predict(client, "half", [1.0], [1]))
    check(err is not None and err.code() == grpc.StatusCode.NOT_FOUND
          and err.details() == "Servable not found for request: Latest(half)", "unknown model: %s" % err)
    req = float_predict(client, "default", [1.0], [1])
    req.model_spec.version.value = 999
    _, err = client.call("Predict", req)
    check(err is not None and err.code() == grpc.StatusCode.NOT_FOUND
          and err.details() == "Servable not found for request: Specific(default, 999)", "unknown version: %s" % err)
    _, err = client.call("Predict", float_predict(client, "default", [1.0], [1], signature="nope"))
    check(err is not None and err.code() == grpc.StatusCode.FAILED_PRECONDITION
          and 'Serving signature key "nope" not found.' in err.details(), "unknown signature: %s" % err)
    _, err = client.call("Predict", float_predict(client, "default", [1.0], [1], alias="z"))
    check(err is not None and err.code() == grpc.StatusCode.INVALID_ARGUMENT
          and "input tensor alias not found in signature: z" in err.details(), "unknown input: %s" % err)
    _, err = client.call("GetModelStatus", client.request("GetModelStatus", {"model_spec": {"name": "nosuch"}}))
    check(err is not None and err.code() == grpc.StatusCode.NOT_FOUND, "status of unknown model: %s" % err)

    # Message size limit (the server runs with --grpc_max_message_bytes=1048576).
    big = [0.5] * (300 * 1024)  # ~1.2 MB packed
    _, err = client.call("Predict", float_predict(client, "default", big, [len(big), 1]))
    check(err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, "request over the limit: %s" % err)
    ok = [0.5] * (64 * 1024)
    resp, err = client.call("Predict", float_predict(client, "default", ok, [len(ok), 1]))
    check(err is None and len(resp.outputs["y"].float_val) == len(ok), "request under the limit: %s" % err)

    # HandleReloadConfigRequest: add a model, then serve it.
    reload_req = client.request("HandleReloadConfigRequest", {"config": {"model_config_list": {"config": [
        {"name": "default", "base_path": base + "/saved_model_half_plus_two_cpu", "model_platform": "tensorflow"},
        {"name": "half_plus_three", "base_path": base + "/saved_model_half_plus_three",
         "model_platform": "tensorflow"},
        {"name": "counter", "base_path": base + "/saved_model_counter", "model_platform": "tensorflow"},
        {"name": "added", "base_path": base + "/saved_model_half_plus_two_tf2_cpu", "model_platform": "tensorflow"},
    ]}}})
    resp, err = client.call("HandleReloadConfigRequest", reload_req, timeout=120)
    if check(err is None, "HandleReloadConfigRequest: %s" % err):
        check(resp.status.error_code == 0, "reload status %s" % to_dict(resp))
        resp, err = client.call("Predict", float_predict(client, "added", [2.0], [1]))
        check(err is None and abs(resp.outputs["y"].float_val[0] - 3.0) < 1e-6, "Predict on the added model: %s" % err)
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
            _, err = client.call("Predict", float_predict(client, "default", [1.0], [1]), timeout=10)
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfhost", required=True)
    ap.add_argument("--protoc", required=True)
    ap.add_argument("--proto_dir", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--load", help="serving_grpc_load binary: 64 streams for 2 s must all succeed")
    args = ap.parse_args()
    base = os.path.join(args.fixtures, "models", "tfserving")
    cases = json.load(open(os.path.join(args.fixtures, "tfserving-configs", "derived", "grpc_cases.json")))["cases"]

    with tempfile.TemporaryDirectory(prefix="tfhost_grpc_client_") as work:
        api = Api(args.protoc, args.proto_dir, work)
        config = os.path.join(work, "models.config")
        with open(config, "w") as f:
            f.write("model_config_list {\n")
            for name, d in (("default", "saved_model_half_plus_two_cpu"), ("half_plus_three",
                                                                              "saved_model_half_plus_three"),
                            ("counter", "saved_model_counter")):
                f.write('  config { name: "%s" base_path: "%s/%s" model_platform: "tensorflow" }\n' % (name, base, d))
            f.write("}\n")
        log_path = os.path.join(work, "serve.log")
        for attempt in range(3):  # a picked port can be taken before tfhost binds it
            port = free_port()
            log = open(log_path, "w")
            proc = subprocess.Popen([args.tfhost, "serve", "--port=%d" % port, "--rest_api_port=0",
                                     "--model_config_file=" + config, "--file_system_poll_wait_seconds=0",
                                     "--grpc_max_message_bytes=1048576", "--shutdown_timeout_ms=10000"],
                                    stdout=log, stderr=subprocess.STDOUT)
            client = Client(api, port)
            if wait_ready(client, proc, 120):
                break
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            log.close()
            print(open(log_path).read(), file=sys.stderr)
        else:
            check(False, "tfhost serve never answered GetModelStatus")
            return 1
        try:
            replay_cases(client, cases)  # first: the counter case needs a fresh model
            check_methods(client, base)
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
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.close()
        text = open(log_path).read()
        check("gRPC API listening on" in text, "startup log names the gRPC port")
        check("all requests finished" in text, "every call running at SIGTERM finished")
        if FAILURES:
            print(text, file=sys.stderr)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
