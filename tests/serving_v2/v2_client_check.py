#!/usr/bin/env python3
"""Drives a real `tfhost serve` over the Open Inference Protocol (KServe v2)
with clients written by others: Triton's tritonclient (HTTP with JSON and
with binary tensors, gRPC with raw contents) and, when it imports, KServe's
SDK (InferenceRESTClient and InferenceGRPCClient, JSON and binary). Plain
http.client sends what those clients never would (malformed and truncated
bodies, lying headers, oversized headers).

Models: write_v2_models writes one echo model per v2 datatype (x -> y and
a second signature a -> b) and echo_fp32 at versions 1 and 2 with label
"stable" -> 1. The server runs with dynamic batching on, so every request
goes through the batcher, and listens on 127.0.0.1 only, on free ports. It
is stopped with SIGTERM at the end (exit status 0). Every wait is bounded.

Checks: every datatype round-trips through each client; versions, the label
and the latest version answer with their version; the signature_name
parameter picks the second signature; metadata, liveness and readiness;
the repository extension (index, unload, load); errors (unknown model or
version, wrong datatype, shape or byte size, a truncated binary body, a
header length past the body, an unparsable header length, an oversized HTTP
header) each get their 4xx / gRPC code and a message naming the culprit,
and a good request succeeds afterwards; the Prometheus request counters and
latency histograms count v2 requests by entry point.

Run: TFHOST_PYTHON_ENV=kserve scripts/py v2_client_check.py --tfhost BIN --write_models BIN
"""
import argparse
import asyncio
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

FAILURES = []
# tritonclient's and KServe's gRPC stubs both define the inference.* messages
# in protobuf's one default pool, so one process cannot import both: the
# KServe checks run in a child process of their own (--kserve), and
# tritonclient is imported only in this one (import_tritonclient).
grpcclient = httpclient = InferenceServerException = None


def import_tritonclient():
    global grpcclient, httpclient, InferenceServerException
    import tritonclient.grpc as grpc_module
    import tritonclient.http as http_module
    from tritonclient.utils import InferenceServerException as exception
    grpcclient, httpclient, InferenceServerException = grpc_module, http_module, exception


CHECKS = [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr, flush=True)
    return cond


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# v2 datatype -> (model, a [2, 2] value that survives the trip exactly).
def sample(datatype):
    if datatype == "BOOL":
        return np.array([[True, False], [False, True]])
    if datatype == "BYTES":
        return np.array([[b"alpha", b"\xe2\x82\xac"], [b"", b"zeta"]], dtype=object)
    if datatype == "BF16":  # tritonclient carries BF16 as float32 values; these are exact in bfloat16
        return np.array([[1.0, -2.5], [0.5, 384.0]], dtype=np.float32)
    np_type = {"UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64,
               "INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64,
               "FP16": np.float16, "FP32": np.float32, "FP64": np.float64}[datatype]
    info = np.iinfo(np_type) if np.issubdtype(np_type, np.integer) else None
    if info is not None:
        return np.array([[info.min, 0], [7, info.max]], dtype=np_type)
    return np.array([[1.5, -0.25], [1e3, 0.0]], dtype=np_type)


DATATYPES = ["BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64", "FP16", "BF16",
             "FP32", "FP64", "BYTES"]


def model_of(datatype):
    return "echo_" + datatype.lower()


def same(got, want, datatype):
    if got is None:
        return False
    if datatype == "BYTES":
        norm = lambda a: [v.encode() if isinstance(v, str) else bytes(v) for v in np.asarray(a).reshape(-1)]
        return np.shape(got) == want.shape and norm(got) == norm(want)
    return got.shape == want.shape and np.array_equal(got.astype(want.dtype), want)


class Raw:
    """Requests no well-behaved client sends."""

    def __init__(self, port):
        self.port = port

    def call(self, method, path, body=b"", headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            return r.status, data, dict(r.getheaders())
        finally:
            conn.close()

    def error(self, method, path, body=b"", headers=None):
        status, data, _ = self.call(method, path, body, headers)
        try:
            return status, json.loads(data).get("error", "")
        except ValueError:
            return status, data.decode("utf-8", "replace")


# ---------------------------------------------------------------- tritonclient

def triton_http_round_trips(port):
    client = httpclient.InferenceServerClient("127.0.0.1:%d" % port)
    check(client.is_server_live(), "tritonclient http: server live")
    check(client.is_server_ready(), "tritonclient http: server ready")
    meta = client.get_server_metadata()
    check(meta.get("name") == "tfhost" and "binary_tensor_data" in meta.get("extensions", []),
          "tritonclient http: server metadata %r" % meta)
    for datatype in DATATYPES:
        model = model_of(datatype)
        want = sample(datatype)
        check(client.is_model_ready(model), "tritonclient http: %s ready" % model)
        md = client.get_model_metadata(model)
        check(md["inputs"][0] == {"name": "x", "datatype": datatype, "shape": [-1, 2]},
              "tritonclient http: %s metadata %r" % (model, md))
        # BF16 has no JSON form in tritonclient; every other datatype goes both ways.
        for binary_in in ([True] if datatype == "BF16" else [True, False]):
            for binary_out in ([True] if datatype == "BF16" else [True, False]):
                inp = httpclient.InferInput("x", list(want.shape), datatype)
                inp.set_data_from_numpy(want, binary_data=binary_in)
                out = httpclient.InferRequestedOutput("y", binary_data=binary_out)
                try:
                    res = client.infer(model, [inp], outputs=[out], request_id="r-" + datatype)
                    got = res.as_numpy("y")
                    ok = same(got, want, datatype) and res.get_response().get("id") == "r-" + datatype
                    check(ok, "tritonclient http %s in %s out %s: got %r" % (
                        datatype, "binary" if binary_in else "JSON", "binary" if binary_out else "JSON", got))
                except InferenceServerException as e:
                    check(False, "tritonclient http %s: %s" % (datatype, e))
    # No outputs named: tritonclient asks for every output in binary.
    inp = httpclient.InferInput("x", [1, 2], "INT32")
    inp.set_data_from_numpy(np.array([[3, 4]], dtype=np.int32))
    res = client.infer("echo_int32", [inp])
    check(same(res.as_numpy("y"), np.array([[3, 4]], dtype=np.int32), "INT32"), "tritonclient http: all outputs")
    # Versions, the label and the latest.
    for version, answered in (("1", "1"), ("2", "2"), ("stable", "1"), ("", "2")):
        inp = httpclient.InferInput("x", [1, 2], "FP32")
        inp.set_data_from_numpy(np.array([[1, 2]], dtype=np.float32))
        res = client.infer("echo_fp32", [inp], model_version=version)
        check(res.get_response()["model_version"] == answered,
              "tritonclient http: version %r answered by %r" % (version, res.get_response()["model_version"]))
    check(client.get_model_metadata("echo_fp32", model_version="1")["versions"] == ["1"], "metadata of version 1")
    check(client.get_model_metadata("echo_fp32")["versions"] == ["1", "2"], "metadata lists both versions")
    # The signature_name parameter.
    inp = httpclient.InferInput("a", [3], "INT64")
    inp.set_data_from_numpy(np.array([5, 6, 7], dtype=np.int64))
    res = client.infer("echo_int64", [inp], outputs=[httpclient.InferRequestedOutput("b")],
                       parameters={"signature_name": "second"})
    check(same(res.as_numpy("b"), np.array([5, 6, 7], dtype=np.int64), "INT64"), "tritonclient http: second signature")
    # Errors through the client.
    for call, status, text in (
            (lambda: client.get_model_metadata("nope"), "404", "Servable not found for request: Latest(nope)"),
            (lambda: client.get_model_metadata("echo_fp32", model_version="9"), "404",
             "Servable not found for request: Specific(echo_fp32, 9)")):
        try:
            call()
            check(False, "tritonclient http: expected %s %s" % (status, text))
        except InferenceServerException as e:
            check(e.status() == status and text in e.message(),
                  "tritonclient http error: %s %r, want %s %r" % (e.status(), e.message(), status, text))
    check(not client.is_model_ready("nope"), "tritonclient http: unknown model is not ready")
    client.close()


def triton_grpc_round_trips(port):
    client = grpcclient.InferenceServerClient("127.0.0.1:%d" % port)
    check(client.is_server_live() and client.is_server_ready(), "tritonclient grpc: live and ready")
    check(client.get_server_metadata().name == "tfhost", "tritonclient grpc: server metadata")
    for datatype in DATATYPES:
        model = model_of(datatype)
        want = sample(datatype)
        check(client.is_model_ready(model), "tritonclient grpc: %s ready" % model)
        md = client.get_model_metadata(model)
        check(md.inputs[0].datatype == datatype and list(md.inputs[0].shape) == [-1, 2],
              "tritonclient grpc: %s metadata %s" % (model, md))
        inp = grpcclient.InferInput("x", list(want.shape), datatype)
        inp.set_data_from_numpy(want)
        try:
            res = client.infer(model, [inp], outputs=[grpcclient.InferRequestedOutput("y")])
            check(same(res.as_numpy("y"), want, datatype), "tritonclient grpc %s: got %r" % (datatype, res.as_numpy("y")))
        except InferenceServerException as e:
            check(False, "tritonclient grpc %s: %s" % (datatype, e))
    for version, answered in (("1", "1"), ("stable", "1"), ("", "2")):
        inp = grpcclient.InferInput("x", [1, 2], "FP32")
        inp.set_data_from_numpy(np.array([[1, 2]], dtype=np.float32))
        res = client.infer("echo_fp32", [inp], model_version=version)
        check(res.get_response().model_version == answered, "tritonclient grpc: version %r" % version)
    inp = grpcclient.InferInput("a", [2], "BYTES")
    inp.set_data_from_numpy(np.array([b"p", b"q"], dtype=object))
    res = client.infer("echo_bytes", [inp], parameters={"signature_name": "second"})
    check(same(res.as_numpy("b"), np.array([b"p", b"q"], dtype=object), "BYTES"), "tritonclient grpc: second signature")

    def expect(call, code, text):
        try:
            call()
            check(False, "tritonclient grpc: expected %s %s" % (code, text))
        except InferenceServerException as e:
            check(e.status() == "StatusCode." + code and text in e.message(),
                  "tritonclient grpc error: %s %r, want %s %r" % (e.status(), e.message(), code, text))

    def infer(model, datatype, array, version=""):
        i = grpcclient.InferInput("x", list(array.shape), datatype)
        i.set_data_from_numpy(array)
        return client.infer(model, [i], model_version=version)

    expect(lambda: infer("nope", "FP32", np.zeros((1, 2), np.float32)), "NOT_FOUND",
           "Servable not found for request: Latest(nope)")
    expect(lambda: infer("echo_fp32", "FP32", np.zeros((1, 2), np.float32), "7"), "NOT_FOUND",
           "Servable not found for request: Specific(echo_fp32, 7)")
    expect(lambda: infer("echo_fp32", "INT32", np.zeros((1, 2), np.int32)), "INVALID_ARGUMENT",
           "input 'x': expected datatype FP32 but got INT32 (model 'echo_fp32' version 2")
    expect(lambda: infer("echo_fp32", "FP32", np.zeros((1, 3), np.float32)), "INVALID_ARGUMENT",
           "input 'x': expected shape [?,2] but got [1,3]")
    # Repository extension.
    index = client.get_model_repository_index()
    check(any(m.name == "echo_int16" and m.state == "READY" for m in index.models), "grpc repository index")
    client.unload_model("echo_int16")
    try:
        ready = client.is_model_ready("echo_int16")
    except InferenceServerException as e:  # unloaded models leave the config: the server no longer knows them
        ready = e.status() != "StatusCode.NOT_FOUND"
    check(not ready, "echo_int16 unloaded")
    expect(lambda: infer("echo_int16", "INT16", np.zeros((1, 2), np.int16)), "NOT_FOUND",
           "Servable not found for request: Latest(echo_int16)")
    client.load_model("echo_int16")
    check(client.is_model_ready("echo_int16"), "echo_int16 loaded again")
    check(same(infer("echo_int16", "INT16", np.ones((1, 2), np.int16)).as_numpy("y"), np.ones((1, 2), np.int16),
               "INT16"), "echo_int16 answers after its reload")
    expect(lambda: client.load_model("nope"), "NOT_FOUND", "model 'nope' is not in the model repository")
    client.close()


# ---------------------------------------------------------------- KServe SDK

def kserve_round_trips(rest_port, grpc_port):
    try:
        from kserve import InferenceGRPCClient, InferenceRESTClient, InferInput, InferRequest, RESTConfig
    except ImportError as e:  # the lock pins kserve; a missing one is an environment problem worth seeing
        check(False, "the kserve SDK does not import: %s" % e)
        return

    async def run():
        base = "http://127.0.0.1:%d" % rest_port
        rest = InferenceRESTClient(RESTConfig(protocol="v2", retries=0, timeout=60))
        check(await rest.is_server_ready(base), "kserve REST: server ready")
        check(await rest.is_model_ready(base, "echo_fp64"), "kserve REST: model ready")
        for datatype in ("FP32", "INT8", "BOOL", "FP64", "UINT64"):
            want = sample(datatype)
            for binary in (False, True):
                inp = InferInput("x", list(want.shape), datatype)
                inp.set_data_from_numpy(want, binary_data=binary)
                res = await rest.infer(base, InferRequest(model_name=model_of(datatype), infer_inputs=[inp],
                                                          request_id="k"), model_name=model_of(datatype))
                check(same(res.outputs[0].as_numpy(), want, datatype),
                      "kserve REST %s (%s): %r" % (datatype, "binary" if binary else "JSON", res.outputs[0].as_numpy()))
        await rest.close()
        grpc = InferenceGRPCClient("127.0.0.1:%d" % grpc_port, retries=0)
        check(await grpc.is_server_live(), "kserve gRPC: server live")
        for datatype in ("FP32", "INT64", "BYTES", "FP16"):
            want = sample(datatype)
            inp = InferInput("x", list(want.shape), datatype)
            inp.set_data_from_numpy(want, binary_data=True)
            res = await grpc.infer(InferRequest(model_name=model_of(datatype), infer_inputs=[inp], request_id="g"))
            check(same(res.outputs[0].as_numpy(), want, datatype),
                  "kserve gRPC %s: %r" % (datatype, res.outputs[0].as_numpy()))
        await grpc.close()

    try:
        asyncio.run(run())
    except Exception as e:  # noqa: BLE001  (any client failure is a check failure with its text)
        check(False, "kserve SDK: %s: %s" % (type(e).__name__, e))


# ---------------------------------------------------------------- what clients never send

def raw_errors(port):
    raw = Raw(port)
    path = "/v2/models/echo_fp32/infer"

    def binary_request(declared, payload, header_length=None, shape=(1, 2)):
        header = json.dumps({"inputs": [{"name": "x", "shape": list(shape), "datatype": "FP32",
                                         "parameters": {"binary_data_size": declared}}]}).encode()
        length = str(len(header)) if header_length is None else header_length
        return header + payload, {"Inference-Header-Content-Length": length,
                                  "Content-Type": "application/octet-stream"}

    cases = [
        ("unknown model", "/v2/models/nope/infer", b'{"inputs": []}', {}, 404,
         "Servable not found for request: Latest(nope)"),
        ("unknown version", "/v2/models/echo_fp32/versions/5/infer", b'{"inputs": []}', {}, 404,
         "Servable not found for request: Specific(echo_fp32, 5)"),
        ("unknown label", "/v2/models/echo_fp32/versions/canary/infer", b'{"inputs": []}', {}, 404,
         "Unrecognized servable version label: canary"),
        ("wrong datatype", path, json.dumps({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "FP64",
                                                         "data": [1, 2]}]}).encode(), {}, 400,
         "input 'x': expected datatype FP32 but got FP64 (model 'echo_fp32' version 2 signature 'serving_default')"),
        ("wrong shape", path, json.dumps({"inputs": [{"name": "x", "shape": [2, 1], "datatype": "FP32",
                                                      "data": [1, 2]}]}).encode(), {}, 400,
         "input 'x': expected shape [?,2] but got [2,1]"),
        ("wrong value count", path, json.dumps({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "FP32",
                                                            "data": [1, 2, 3]}]}).encode(), {}, 400,
         "input 'x': shape [1,2] needs 2 values but \"data\" holds 3"),
        ("wrong byte size", path) + binary_request(12, b"\0" * 12) + (
            400, "input 'x': shape [1,2] of FP32 needs 8 bytes (2 x 4) but the binary data holds 12"),
        ("truncated binary body", path) + binary_request(8, b"\0" * 5) + (
            400, "input 'x': binary_data_size is 8 bytes but only 5 bytes of binary data remain in the body"),
        ("header length past the body", path) + binary_request(8, b"\0" * 8, header_length="100000") + (
            400, "Inference-Header-Content-Length is 100000 bytes but the request body holds only"),
        ("oversized header length", path) + binary_request(8, b"\0" * 8, header_length="9" * 40) + (
            400, "Inference-Header-Content-Length must be the JSON header's length in bytes"),
        ("binary data nobody claims", path) + binary_request(8, b"\0" * 9) + (
            400, "1 bytes of binary data follow the JSON but no input's binary_data_size claims them"),
        ("unknown output", path, json.dumps({"inputs": [{"name": "x", "shape": [1, 2], "datatype": "FP32",
                                                         "data": [1, 2]}], "outputs": [{"name": "q"}]}).encode(), {},
         400, "unknown output 'q': model 'echo_fp32' version 2 signature 'serving_default' has outputs: y"),
        ("malformed JSON", path, b'{"inputs": [', {}, 400, "JSON Parse error"),
    ]
    for name, p, body, headers, status, text in cases:
        got_status, got_text = raw.error("POST", p, body, headers)
        check(got_status == status and text in got_text,
              "%s: got %s %r, want %s containing %r" % (name, got_status, got_text, status, text))
    # An HTTP header past the server's limit is refused before any handler runs.
    try:
        status, _, _ = raw.call("GET", "/v2/health/live", headers={"X-Padding": "p" * (80 * 1024)})
        check(400 <= status < 500, "oversized HTTP header: got %s, want a 4xx" % status)
    except (ConnectionError, http.client.HTTPException) as e:
        check(False, "oversized HTTP header: the connection failed without an answer: %s" % e)
    # After all of that, the server still answers a good request.
    status, body, headers = raw.call("POST", path, json.dumps(
        {"inputs": [{"name": "x", "shape": [1, 2], "datatype": "FP32", "data": [7, 8]}]}).encode(),
        {"Content-Type": "application/json"})
    check(status == 200 and json.loads(body)["outputs"][0]["data"] == [7.0, 8.0],
          "a good request after the bad ones: %s %r" % (status, body[:200]))
    status, body, _ = raw.call("GET", "/v2/models/nope/ready")
    check(status == 404, "GET /v2/models/nope/ready: %s" % status)


def metrics(port):
    status, body, _ = Raw(port).call("GET", "/monitoring/prometheus/metrics")
    text = body.decode()
    check(status == 200, "metrics: %s" % status)
    for entry in ("REST", "GRPC"):
        want = 'model_name="echo_fp32",API="predict",entrypoint="%s"' % entry
        check(want in text, "metrics count v2 %s requests (%s)" % (entry, want))
    ok_line = [l for l in text.splitlines()
               if l.startswith(':tensorflow:serving:request_count{model_name="echo_fp32",status="OK"}')]
    check(ok_line and float(ok_line[0].split()[-1]) >= 10, "metrics: request_count of echo_fp32: %r" % ok_line)
    check(any(l.startswith(":tensorflow:serving:batching:") and "echo_fp32" in l for l in text.splitlines()),
          "metrics: v2 requests went through the batcher (batching metrics for echo_fp32)")


def kserve_in_child(rest_port, grpc_port):
    run = subprocess.run([sys.executable, os.path.abspath(__file__), "--kserve", str(rest_port), str(grpc_port)],
                         capture_output=True, text=True, timeout=300)
    sys.stdout.write(run.stdout)
    for line in run.stderr.splitlines():
        if line.startswith("FAIL: "):
            check(False, line[len("FAIL: "):])
    check(run.returncode == 0, "the KServe SDK checks exited %d: %s" % (run.returncode, run.stderr[-4000:]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfhost")
    ap.add_argument("--write_models")
    ap.add_argument("--kserve", nargs=2, type=int, metavar=("REST_PORT", "GRPC_PORT"),
                    help="only run the KServe SDK checks against a running server")
    args = ap.parse_args()
    if args.kserve:
        kserve_round_trips(*args.kserve)
        print("kserve SDK: %d check(s), %d failure(s)" % (CHECKS[0], len(FAILURES)))
        return 1 if FAILURES else 0
    if not args.tfhost or not args.write_models:
        ap.error("--tfhost and --write_models are required")
    import_tritonclient()
    with tempfile.TemporaryDirectory(prefix="tfhost_v2_") as work:
        models = os.path.join(work, "models")
        run = subprocess.run([args.write_models, models], capture_output=True, text=True, timeout=120)
        if not check(run.returncode == 0, "write_v2_models: %s %s" % (run.stdout, run.stderr)):
            print("%d failure(s)" % len(FAILURES))
            return 1
        log_path = os.path.join(work, "serve.log")
        proc = None
        for _ in range(5):  # a port picked free may be taken before the server binds it
            rest_port, grpc_port = free_port(), free_port()
            log = open(log_path, "w")
            proc = subprocess.Popen(
                [args.tfhost, "serve", "--rest_api_address=127.0.0.1", "--rest_api_port=%d" % rest_port,
                 "--grpc_address=127.0.0.1", "--port=%d" % grpc_port,
                 "--model_config_file=" + os.path.join(models, "models.config"),
                 "--file_system_poll_wait_seconds=0", "--max_num_load_retries=0", "--enable_batching",
                 "--shutdown_timeout_ms=10000"], stdout=log, stderr=subprocess.STDOUT)
            end = time.time() + 120
            ready = False
            while time.time() < end and proc.poll() is None:
                try:
                    ready = Raw(rest_port).call("GET", "/v2/health/ready")[0] == 200
                except OSError:
                    ready = False
                if ready:
                    break
                time.sleep(0.2)
            if ready:
                break
            proc.kill()
            proc.wait(timeout=30)
            log.close()
            proc = None
        if not check(proc is not None, "tfhost serve never became ready on /v2/health/ready"):
            print(open(log_path).read()[-20000:], file=sys.stderr)
            print("%d failure(s)" % len(FAILURES))
            return 1
        try:
            for step in (lambda: triton_http_round_trips(rest_port), lambda: triton_grpc_round_trips(grpc_port),
                         lambda: kserve_in_child(rest_port, grpc_port), lambda: raw_errors(rest_port),
                         lambda: metrics(rest_port)):
                try:
                    step()
                except Exception as e:  # noqa: BLE001  (one failing step must not hide the others)
                    check(False, "%s: %s" % (type(e).__name__, e))
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = proc.wait(timeout=30)
        check(rc == 0, "tfhost serve's exit status after SIGTERM: %r" % rc)
        if FAILURES:
            print(open(log_path).read()[-20000:], file=sys.stderr)
    print("%d check(s), %d failure(s)" % (CHECKS[0], len(FAILURES)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
