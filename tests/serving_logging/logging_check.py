#!/usr/bin/env python3
"""Request logging end to end: serves tfhost's demo half_plus_two with a
model config whose logging_config logs every request, sends requests over
every API (REST predict / classify / regress, gRPC Predict and
MultiInference with TF Serving's own Python client, KServe v2 infer over
REST), stops the server with SIGTERM and reads the logs back with
TensorFlow's TFRecordDataset and tensorflow-serving-api's PredictionLog:

  - one record per successful request, none for a failed one
  - each a PredictLog / ClassifyLog / RegressLog / MultiInferenceLog with
    the request sent and the response received (v2 infer as a PredictLog)
  - log_metadata naming model, version, signature and the sampling config
  - a small --request_log_max_file_bytes rotates into several files, named
    <prefix>-<time>-<pid>-<seq>.tfrecord
  - /monitoring/prometheus/metrics counts the records written
  - `tfhost data inspect` summarises the files as PredictionLogs

Run it with the project's Python: scripts/py logging_check.py --tfhost BINARY
"""
import argparse
import glob
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import grpc  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow_serving.apis import inference_pb2, predict_pb2, prediction_log_pb2  # noqa: E402
from tensorflow_serving.apis import prediction_service_pb2_grpc  # noqa: E402

FAILURES = []
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr, flush=True)
    return cond


def http(port, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with OPENER.open(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tfhost, work, config):
    log_path = os.path.join(work, "serve.log")
    port = free_port()
    sock = os.path.join(work, "grpc.sock")
    log = open(log_path, "w")
    proc = subprocess.Popen([tfhost, "serve", "--port=0", "--grpc_socket_path=" + sock,
                             "--rest_api_address=127.0.0.1", "--rest_api_port=%d" % port, "--model_config_file=" + config,
                             "--file_system_poll_wait_seconds=0", "--request_log_max_file_bytes=600"],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        m = re.search(r"REST API listening on 127\.0\.0\.1:(\d+)", open(log_path).read())
        if m:
            return proc, int(m.group(1)), sock, log_path
        time.sleep(0.1)
    print(open(log_path).read(), file=sys.stderr)
    return None, None, None, log_path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfhost", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfhost_reqlog_") as work:
        demo = os.path.join(work, "demo")
        run = subprocess.run([args.tfhost, "demo-models", demo], capture_output=True, text=True, timeout=120)
        if not check(run.returncode == 0, "tfhost demo-models: " + run.stderr):
            return 1
        prefix = os.path.join(work, "logs", "hp2")
        config = os.path.join(work, "models.pbtxt")
        with open(config, "w") as f:
            f.write('model_config_list { config { name: "hp2" base_path: "%s" model_platform: "tensorflow"\n'
                    '  logging_config { log_collector_config { type: "tfrecord" filename_prefix: "%s" }\n'
                    '                   sampling_config { sampling_rate: 1.0 } } } }\n'
                    % (os.path.join(demo, "half_plus_two"), prefix))
        proc, port, sock, log_path = start(args.tfhost, work, config)
        if not check(proc is not None, "tfhost serve did not start"):
            return 1
        try:
            sent = []  # (log type, check on the record)
            for _ in range(5):
                st, body = http(port, "/v1/models/hp2:predict", {"instances": [[1.0], [3.0]]})
                check(st == 200, "REST predict: %s %s" % (st, body))
            sent += [("predict_log", "rest")] * 5
            st, body = http(port, "/v1/models/hp2:regress", {"signature_name": "regress_x_to_y",
                                                              "examples": [{"x": 2.0}]})
            check(st == 200, "REST regress: %s %s" % (st, body))
            st, body = http(port, "/v1/models/hp2:classify", {"signature_name": "classify_x_to_y",
                                                               "examples": [{"x": 2.0}]})
            check(st == 200, "REST classify: %s %s" % (st, body))
            st, body = http(port, "/v1/models/hp2:predict", {"signature_name": "nope", "instances": [[1.0]]})
            check(st == 400, "a failed REST predict answers 400: %s %s" % (st, body))
            st, body = http(port, "/v2/models/hp2/infer", {"inputs": [
                {"name": "x", "shape": [2, 1], "datatype": "FP32", "data": [10.0, 20.0]}]})
            check(st == 200, "v2 infer: %s %s" % (st, body))
            with grpc.insecure_channel("unix:" + sock) as channel:
                stub = prediction_service_pb2_grpc.PredictionServiceStub(channel)
                req = predict_pb2.PredictRequest()
                req.model_spec.name = "hp2"
                req.inputs["x"].CopyFrom(tf.make_tensor_proto(np.array([[7.0]], np.float32)))
                resp = stub.Predict(req, timeout=30)
                check(abs(tf.make_ndarray(resp.outputs["y"])[0][0] - 5.5) < 1e-6, "gRPC predict answer")
                multi = inference_pb2.MultiInferenceRequest()
                task = multi.tasks.add()
                task.model_spec.name = "hp2"
                task.model_spec.signature_name = "regress_x_to_y"
                task.method_name = "tensorflow/serving/regress"
                multi.input.example_list.examples.add().features.feature["x"].float_list.value.append(4.0)
                stub.MultiInference(multi, timeout=30)
            # Files published so far (rotation at 600 bytes) are counted.
            deadline = time.time() + 30
            written = 0
            while time.time() < deadline and written == 0:
                _, metrics = http(port, "/monitoring/prometheus/metrics")
                m = re.search(r':tfhost:serving:request_log_records\{model_name="hp2",outcome="written"\} (\d+)',
                              metrics)
                written = int(m.group(1)) if m else 0
                time.sleep(0.2)
            check(written > 0, "metrics count written request log records")
            check('outcome="dropped_queue_full"} 0' in metrics, "no record dropped")
        finally:
            proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout=60)
        check(rc == 0, "tfhost serve exit status after SIGTERM: %r" % rc)

        files = sorted(glob.glob(prefix + "-*.tfrecord"))
        check(len(files) >= 2, "rotation at 600 bytes made several files: %s" % files)
        for f in files:
            check(re.search(r"/hp2-\d{8}T\d{6}-\d+-\d{5}\.tfrecord$", f), "log file name pattern: " + f)
        logs = []
        for raw in tf.data.TFRecordDataset(files):
            log = prediction_log_pb2.PredictionLog()
            log.ParseFromString(raw.numpy())
            logs.append(log)
        kinds = [l.WhichOneof("log_type") for l in logs]
        check(kinds == ["predict_log"] * 5 + ["regress_log", "classify_log", "predict_log", "predict_log",
                                               "multi_inference_log"], "log types in order: %s" % kinds)
        if len(logs) == 10:
            first = logs[0]
            md = first.log_metadata
            check(md.model_spec.name == "hp2" and md.model_spec.version.value == 1 and
                  md.model_spec.signature_name == "serving_default", "metadata model spec: %s" % md)
            check(md.sampling_config.sampling_rate == 1.0 and list(md.saved_model_tags) == ["serve"],
                  "metadata sampling config and tags")
            x = tf.make_ndarray(first.predict_log.request.inputs["x"])
            y = tf.make_ndarray(first.predict_log.response.outputs["y"])
            check(x.tolist() == [[1.0], [3.0]] and y.tolist() == [[2.5], [3.5]], "REST predict logged: %s %s" % (x, y))
            check(abs(logs[5].regress_log.response.result.regressions[0].value - 3.0) < 1e-6, "regress response")
            check(logs[5].regress_log.request.input.example_list.examples[0].features.feature["x"]
                  .float_list.value[0] == 2.0, "regress request example")
            check(logs[6].classify_log.request.model_spec.signature_name == "classify_x_to_y", "classify request")
            v2x = tf.make_ndarray(logs[7].predict_log.request.inputs["x"])
            v2y = tf.make_ndarray(logs[7].predict_log.response.outputs["y"])
            check(v2x.tolist() == [[10.0], [20.0]] and v2y.tolist() == [[7.0], [12.0]],
                  "v2 infer logged as a PredictLog of TF tensors: %s %s" % (v2x, v2y))
            check(tf.make_ndarray(logs[8].predict_log.request.inputs["x"]).tolist() == [[7.0]], "gRPC predict")
            check(logs[9].multi_inference_log.request.tasks[0].model_spec.signature_name == "regress_x_to_y",
                  "multi inference request")
        run = subprocess.run([args.tfhost, "data", "inspect", "--quiet"] + files, capture_output=True, text=True,
                             timeout=60)
        check(run.returncode == 0 and "10 records" in run.stdout and "kind PredictionLog" in run.stdout and
              re.search(r"predict_log\s+7", run.stdout) and re.search(r"hp2\s+1\s+serving_default\s+7", run.stdout),
              "tfhost data inspect summary:\n" + run.stdout + run.stderr)
        if FAILURES:
            print(open(log_path).read()[-10000:], file=sys.stderr)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
