"""A bounded soak of `tfhost serve` with faults; run through bench/soak/run.sh.

Mixed load on several models over both protocols and both transports, from
WORKERS processes at RATE requests/s in all: v1 REST predict (JSON), v1 gRPC
Predict, v2 REST infer (JSON and binary tensor data), v2 gRPC ModelInfer, on
half_plus_two, mlp, cnn (tfhost's demo models) and `image` (602,112-byte
input, bench/serving_perf_analyzer/image_saved_model.pbtxt). Every answer is
checked (half_plus_two's value, the others' output size). Meanwhile:

  * every RELOAD_EVERY s (30) `mlp` gets a new version folder (copied in
    under a temporary name, then renamed); once the server reports it
    AVAILABLE the old folder is removed;
  * at 25% of the run a corrupt version (a truncated saved_model.pb) of `cnn`
    is dropped in: the server must refuse it and keep serving version 1
    (checked through v1 model status, v2 model metadata and the load's
    answers); requests naming that version are the expected errors; it is
    removed at 60%;
  * a disconnect thread keeps opening connections that go away
    mid-request: half a header, half a body, a whole 3 MB JSON or 600 KB
    binary body closed before the answer, half an HTTP/2 preface, and gRPC
    calls with a 1 ms deadline;
  * at DURATION the server gets SIGTERM under load: it must exit 0 within
    its drain deadline (--shutdown_timeout_ms) with every request sent before
    the signal answered. One exception, checked against the server's own
    account: a gRPC call that reached grpc in the instant it stopped taking
    calls is cancelled unstarted (CANCELLED with grpc's bare text; grpc 1.51
    does this instead of refusing it), which is a refusal as long as the
    server logs that every call it started finished.

Every error is classified: expected (corrupt version, refused after SIGTERM,
the disconnect thread's own deadlines) or unexpected (anything else in the
load). Per minute: requests sent and answered, p99 latency, server RSS
(VmRSS). Writes OUT_DIR/soak.json and OUT_DIR/soak.md and prints the
markdown. Exit status 1 when a target misses: an unexpected error, RSS growth
of RSS_LIMIT (0.05) or more (the median of the last minute's VmRSS samples,
taken every 2 s, over that of the minute after WARMUP), or a drain that did
not complete.

Environment: TFHOST (binary), DURATION (1800 s), WARMUP (120 s), RATE (200),
WORKERS (4), RELOAD_EVERY (30), DISCONNECT_EVERY (0.5 s), SHUTDOWN_MS
(10000), OUT_DIR (a new temp folder), RSS_LIMIT (0.05).
"""

import http.client
import json
import math
import multiprocessing as mp
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import grpc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE_PBTXT = os.path.join(ROOT, "bench", "serving_perf_analyzer", "image_saved_model.pbtxt")

# name -> (input, row shape, output, output values per row)
MODELS = {
    "half_plus_two": ("x", [1], "y", 1),
    "mlp": ("x", [4], "probabilities", 3),
    "cnn": ("x", [8, 8, 1], "probabilities", 3),
    "image": ("x", [224, 224, 3], "y", 4),
}
PROTOCOLS = ["v1-rest", "v1-grpc", "v2-rest-json", "v2-rest-binary", "v2-grpc"]
RELOADED = "mlp"
CORRUPTED = "cnn"
CORRUPT_VERSION = 1000


def env_num(name, default):
    return type(default)(os.environ.get(name, default))


# ---------------------------------------------------------------- protobuf
# The few messages needed, written and read by hand (no generated code).

def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def parse(buf):
    """Yields (field number, wire type, value) of one message level."""
    i = 0
    while i < len(buf):
        key, i = read_varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            val, i = read_varint(buf, i)
        elif wire == 2:
            n, i = read_varint(buf, i)
            val, i = buf[i:i + n], i + n
        elif wire == 1:
            val, i = buf[i:i + 8], i + 8
        elif wire == 5:
            val, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        yield num, wire, val


def read_varint(buf, i):
    shift = n = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, i
        shift += 7


def v1_predict_request(model, inp, shape, values, version=None):
    spec = field(1, 2, model.encode())
    if version is not None:
        spec += field(2, 2, field(1, 0, version))  # google.protobuf.Int64Value
    dims = b"".join(field(2, 2, field(1, 0, d)) for d in shape)
    tensor = field(1, 0, 1) + field(2, 2, dims) + field(4, 2, struct.pack("<%df" % len(values), *values))
    return field(1, 2, spec) + field(2, 2, field(1, 2, inp.encode()) + field(2, 2, tensor))


def v1_predict_floats(resp):
    """The first output's float values of a PredictResponse."""
    for num, _, entry in parse(resp):
        if num != 1:
            continue
        for n2, _, tensor in parse(entry):
            if n2 != 2:
                continue
            for n3, w3, v in parse(tensor):
                if n3 == 4:
                    return struct.unpack("<%df" % (len(v) // 4), v)
                if n3 == 5:
                    return struct.unpack("<%df" % (len(v) // 4), v) if w3 == 2 else struct.unpack("<f", v)
            return ()
    return ()


def v2_infer_request(model, inp, shape, values, version=None):
    msg = field(1, 2, model.encode())
    if version is not None:
        msg += field(2, 2, str(version).encode())
    tensor = field(1, 2, inp.encode()) + field(2, 2, b"FP32") + field(3, 2, b"".join(varint(d) for d in shape))
    return msg + field(5, 2, tensor) + field(7, 2, struct.pack("<%df" % len(values), *values))


def v2_infer_floats(resp):
    for num, _, v in parse(resp):
        if num == 6:
            return struct.unpack("<%df" % (len(v) // 4), v)
    return ()


# ------------------------------------------------------------- requests

class Request:
    """One prepared request of a protocol and model: the bytes to send and a
    check of the answer."""

    def __init__(self, protocol, model, version=None, seed=0):
        inp, row, output, self.out_count = MODELS[model]
        self.protocol, self.model, self.version = protocol, model, version
        rnd = random.Random(seed)
        count = math.prod(row)
        values = [struct.unpack("f", struct.pack("f", rnd.random()))[0] for _ in range(count)]
        shape = [1] + row
        self.expect = [0.5 * values[0] + 2.0] if model == "half_plus_two" else None
        vpath = "" if version is None else "/versions/%d" % version
        if protocol == "v1-rest":
            def nest(v, dims):
                if len(dims) == 1:
                    return list(v)
                step = len(v) // dims[0]
                return [nest(v[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])]
            self.path = "/v1/models/%s%s:predict" % (model, vpath)
            self.body = json.dumps({"instances": [nest(values, row)]}).encode()
            self.headers = {"Content-Type": "application/json"}
        elif protocol == "v2-rest-json":
            self.path = "/v2/models/%s%s/infer" % (model, vpath)
            self.body = json.dumps({"inputs": [{"name": inp, "shape": shape, "datatype": "FP32", "data": values}]}).encode()
            self.headers = {"Content-Type": "application/json"}
        elif protocol == "v2-rest-binary":
            self.path = "/v2/models/%s%s/infer" % (model, vpath)
            header = json.dumps({"inputs": [{"name": inp, "shape": shape, "datatype": "FP32",
                                             "parameters": {"binary_data_size": 4 * count}}],
                                 "outputs": [{"name": output, "parameters": {"binary_data": True}}]}).encode()
            self.body = header + struct.pack("<%df" % count, *values)
            self.headers = {"Content-Type": "application/octet-stream",
                            "Inference-Header-Content-Length": str(len(header))}
        elif protocol == "v1-grpc":
            self.method = "/tensorflow.serving.PredictionService/Predict"
            self.body = v1_predict_request(model, inp, shape, values, version)
        elif protocol == "v2-grpc":
            self.method = "/inference.GRPCInferenceService/ModelInfer"
            self.body = v2_infer_request(model, inp, shape, values, version)

    def check(self, floats):
        if len(floats) != self.out_count:
            return "answer has %d values, want %d" % (len(floats), self.out_count)
        if self.expect and abs(floats[0] - self.expect[0]) > 1e-4:
            return "answer %r, want %r" % (floats[0], self.expect[0])
        return None


def rest_floats(req, resp, body):
    if req.protocol == "v1-rest":
        out = json.loads(body)["predictions"]
        flat = []
        stack = [out]
        while stack:
            x = stack.pop()
            if isinstance(x, list):
                stack.extend(reversed(x))
            else:
                flat.append(x)
        return flat
    hlen = resp.getheader("Inference-Header-Content-Length")
    if hlen is not None:
        n = int(hlen)
        raw = body[n:]
        return struct.unpack("<%df" % (len(raw) // 4), raw)
    return json.loads(body)["outputs"][0]["data"]


class Client:
    """One worker's connections: a keep-alive HTTP connection, a gRPC channel."""

    def __init__(self, rest_port, grpc_port, timeout=30.0):
        self.rest_port, self.grpc_port, self.timeout = rest_port, grpc_port, timeout
        self.http = None
        self.channel = grpc.insecure_channel("127.0.0.1:%d" % grpc_port, options=[
            ("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)])
        self.calls = {}

    def close(self):
        if self.http:
            self.http.close()
        self.channel.close()

    def send(self, req, timeout=None):
        """-> (None, None) when answered correctly, else (error class, detail)."""
        timeout = timeout or self.timeout
        if req.protocol.endswith("grpc"):
            call = self.calls.get(req.method)
            if call is None:
                call = self.calls[req.method] = self.channel.unary_unary(req.method)
            try:
                resp = call(req.body, timeout=timeout)
            except grpc.RpcError as e:
                return "grpc_" + e.code().name, (e.details() or "")[:200]
            floats = v1_predict_floats(resp) if req.protocol == "v1-grpc" else v2_infer_floats(resp)
            bad = req.check(floats)
            return ("wrong_answer", bad) if bad else (None, None)
        for attempt in range(2):
            if self.http is None:
                self.http = http.client.HTTPConnection("127.0.0.1", self.rest_port, timeout=timeout)
            try:
                self.http.request("POST", req.path, body=req.body, headers=req.headers)
                resp = self.http.getresponse()
                body = resp.read()
            except (ConnectionError, http.client.HTTPException, OSError) as e:
                self.http.close()
                self.http = None
                # A keep-alive connection the server closed between requests
                # is retried once on a new one, as HTTP clients do.
                if attempt == 0 and isinstance(e, (http.client.RemoteDisconnected, BrokenPipeError,
                                                   ConnectionResetError)):
                    continue
                return "conn_" + type(e).__name__, str(e)[:200]
            if resp.getheader("Connection", "").lower() == "close":
                self.http.close()
                self.http = None
            if resp.status != 200:
                return "http_%d" % resp.status, body[:200].decode("utf-8", "replace")
            try:
                bad = req.check(rest_floats(req, resp, body))
            except (ValueError, KeyError, TypeError, struct.error) as e:
                bad = "unreadable answer: %s" % e
            return ("wrong_answer", bad) if bad else (None, None)
        return "conn_retry", ""


# --------------------------------------------------------------- workers

def worker_main(wid, rest_port, grpc_port, t0, rate, stop, sigterm_at, out_q):
    """Closed loop at `rate` requests/s; per minute of the run: sent,
    answered, latencies; errors by class, and requests started before
    SIGTERM that were not answered."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    rnd = random.Random(wid)
    reqs = []
    for proto in PROTOCOLS:
        for model in MODELS:
            # the 600 KB image in 1 of 8 picks: it is the expensive one
            weight = 1 if model == "image" else 7
            reqs += [Request(proto, model, seed=wid * 100 + len(reqs))] * weight
    client = Client(rest_port, grpc_port)
    minutes = {}
    errors = {}
    examples = {}
    lost_in_flight = 0
    interval = 1.0 / rate
    next_at = time.time()
    while not stop.is_set():
        now = time.time()
        if now < next_at:
            time.sleep(min(next_at - now, 0.1))
            continue
        next_at = max(next_at + interval, now - 1.0)
        req = rnd.choice(reqs)
        start = time.time()
        cls, detail = client.send(req)
        end = time.time()
        m = minutes.setdefault(int((start - t0) // 60), {"sent": 0, "answered": 0, "lat": []})
        m["sent"] += 1
        sig = sigterm_at.value
        if cls is None:
            m["answered"] += 1
            m["lat"].append(end - start)
            continue
        if sig and start >= sig:
            cls = "after_sigterm:" + cls  # expected: the server stopped accepting
        elif sig and end >= sig and cls == "grpc_CANCELLED" and detail == "CANCELLED":
            # Never started (tfhost's own cancellations carry its text); the
            # report checks the server's drain account before calling it a refusal.
            cls = "unstarted_at_stop:" + cls
        elif sig and end >= sig:
            lost_in_flight += 1  # sent before the signal, not answered
            cls = "in_flight_at_sigterm:" + cls
        key = "%s %s %s" % (cls, req.protocol, req.model)
        errors[key] = errors.get(key, 0) + 1
        examples.setdefault(key, detail)
        if cls.startswith("after_sigterm"):
            time.sleep(0.05)
    client.close()
    out_q.put({"minutes": minutes, "errors": errors, "examples": examples, "lost_in_flight": lost_in_flight})


# --------------------------------------------------------------- faults

def http_get(port, path, timeout=5):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        c.close()


def version_states(port, model):
    """{version: state} from GET /v1/models/<model>."""
    status, body = http_get(port, "/v1/models/%s" % model)
    if status != 200:
        return {}
    return {int(v["version"]): v["state"] for v in json.loads(body).get("model_version_status", [])}


class Faults(threading.Thread):
    """Reloads, the corrupt version and its checks, and RSS samples."""

    def __init__(self, s):
        super().__init__(daemon=True)
        self.s = s
        self.stop = threading.Event()
        self.log = []
        self.reloads = []        # seconds from copy to AVAILABLE, per reload
        self.reload_failures = 0
        self.corrupt = {"dropped_at": None, "removed_at": None, "checks": 0, "bad_checks": [],
                        "refused_requests": 0, "served_requests": [], "states_seen": []}
        self.rss = []            # (t, VmRSS kB, RssAnon kB)

    def note(self, text):
        self.log.append("%7.1f s  %s" % (time.time() - self.s.t0, text))

    def run(self):
        s = self.s
        next_reload = s.t0 + s.reload_every
        next_rss = s.t0
        next_check = s.t0
        corrupt_at = s.t0 + 0.25 * s.duration
        uncorrupt_at = s.t0 + 0.60 * s.duration
        version = 1
        client = Client(s.rest_port, s.grpc_port, timeout=10)
        checks = [Request(p, CORRUPTED, version=CORRUPT_VERSION) for p in PROTOCOLS]
        while not self.stop.is_set():
            now = time.time()
            if now >= next_rss:
                self.rss.append((now - s.t0, rss_kb(s.server.pid), rss_kb(s.server.pid, "RssAnon")))
                next_rss += 2
            if now >= next_reload:
                next_reload += s.reload_every
                version = self.reload(version)
            if self.corrupt["dropped_at"] is None and now >= corrupt_at:
                self.drop_corrupt()
            if self.corrupt["dropped_at"] is not None and self.corrupt["removed_at"] is None and now >= uncorrupt_at:
                shutil.rmtree(os.path.join(s.models, CORRUPTED, str(CORRUPT_VERSION)), ignore_errors=True)
                self.corrupt["removed_at"] = now - s.t0
                self.note("corrupt version %d of %s removed" % (CORRUPT_VERSION, CORRUPTED))
            if now >= next_check and self.corrupt["dropped_at"] is not None and self.corrupt["removed_at"] is None:
                next_check = now + 5
                self.check_corrupt(client, checks)
            time.sleep(0.2)
        client.close()

    def reload(self, version):
        s = self.s
        base = os.path.join(s.models, RELOADED)
        new = version + 1
        tmp = os.path.join(s.work, "staging-%d" % new)
        shutil.copytree(os.path.join(base, str(version)), tmp)
        os.rename(tmp, os.path.join(base, str(new)))  # the poll sees a whole folder or none
        start = time.time()
        while time.time() - start < 25:
            if version_states(s.rest_port, RELOADED).get(new) == "AVAILABLE":
                self.reloads.append(time.time() - start)
                shutil.rmtree(os.path.join(base, str(version)), ignore_errors=True)
                return new
            time.sleep(0.1)
        self.reload_failures += 1
        self.note("reload: version %d of %s not AVAILABLE after 25 s: %r" % (new, RELOADED, version_states(s.rest_port, RELOADED)))
        return new  # keep both folders; the next reload builds on the newest

    def drop_corrupt(self):
        s = self.s
        base = os.path.join(s.models, CORRUPTED)
        tmp = os.path.join(s.work, "staging-corrupt")
        shutil.copytree(os.path.join(base, "1"), tmp)
        pb = os.path.join(tmp, "saved_model.pb")
        with open(pb, "rb") as f:
            data = f.read()
        with open(pb, "wb") as f:
            f.write(data[:len(data) // 3])  # truncated mid-message
        os.rename(tmp, os.path.join(base, str(CORRUPT_VERSION)))
        self.corrupt["dropped_at"] = time.time() - s.t0
        self.note("corrupt version %d of %s dropped in (saved_model.pb cut to %d of %d bytes)"
                  % (CORRUPT_VERSION, CORRUPTED, len(data) // 3, len(data)))

    def check_corrupt(self, client, checks):
        """Version 1 AVAILABLE and served, the corrupt one never AVAILABLE,
        requests naming it refused."""
        s = self.s
        c = self.corrupt
        c["checks"] += 1
        states = version_states(s.rest_port, CORRUPTED)
        summary = ",".join("%d:%s" % kv for kv in sorted(states.items()))
        if summary not in c["states_seen"]:
            c["states_seen"].append(summary)
            self.note("%s versions: %s" % (CORRUPTED, summary))
        status, body = http_get(s.rest_port, "/v2/models/%s" % CORRUPTED)
        v2_versions = json.loads(body).get("versions") if status == 200 else None
        if states.get(1) != "AVAILABLE" or states.get(CORRUPT_VERSION) == "AVAILABLE" or v2_versions != ["1"]:
            c["bad_checks"].append("v1 status %s, v2 versions %s" % (summary, v2_versions))
        for req in checks:
            cls, detail = client.send(req)
            if cls is None:
                c["served_requests"].append(req.protocol)
            elif cls in ("http_404", "grpc_NOT_FOUND"):
                c["refused_requests"] += 1
            else:
                c["bad_checks"].append("%s to version %d: %s %s" % (req.protocol, CORRUPT_VERSION, cls, detail))


class Disconnects(threading.Thread):
    """Connections that go away mid-request."""

    def __init__(self, s):
        super().__init__(daemon=True)
        self.s = s
        self.stop = threading.Event()
        self.counts = {}
        self.big_v1 = Request("v1-rest", "image", seed=7)
        self.big_v2 = Request("v2-rest-binary", "image", seed=8)
        self.short = Request("v2-grpc", "image", seed=9)

    def run(self):
        s = self.s
        client = Client(s.rest_port, s.grpc_port)
        kinds = ["half_header", "half_body", "whole_body_no_read", "v2_binary_no_read", "h2_half_preface",
                 "grpc_1ms_deadline"]
        rnd = random.Random(3)
        while not self.stop.wait(s.disconnect_every):
            kind = rnd.choice(kinds)
            try:
                if kind == "grpc_1ms_deadline":
                    cls, _ = client.send(self.short, timeout=0.001)
                    kind += ":" + (cls or "OK")
                else:
                    self.raw(kind)
            except OSError as e:
                kind += ":" + type(e).__name__
            self.counts[kind] = self.counts.get(kind, 0) + 1
        client.close()

    def raw(self, kind):
        s = self.s
        port = s.grpc_port if kind.startswith("h2") else s.rest_port
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            if kind == "half_header":
                sock.sendall(b"POST /v2/models/mlp/infer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
            elif kind == "half_body":
                body = Request("v1-rest", "mlp").body
                sock.sendall(b"POST /v1/models/mlp:predict HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body[:len(body) // 2])
            elif kind in ("whole_body_no_read", "v2_binary_no_read"):
                req = self.big_v1 if kind == "whole_body_no_read" else self.big_v2
                head = "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n" % (req.path, len(req.body))
                head += "".join("%s: %s\r\n" % kv for kv in req.headers.items())
                sock.sendall(head.encode() + b"\r\n" + req.body)
            elif kind == "h2_half_preface":
                sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM")
            time.sleep(0.01)
            # close without reading: RST if the server's answer arrived
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def rss_kb(pid, field="VmRSS"):
    """A /proc/PID/status memory line in kB: VmRSS, RssAnon (heap, stacks)
    or RssFile (mapped code and files)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(math.ceil(p / 100.0 * len(xs))) - 1)]


# ------------------------------------------------------------------ main

class Soak:
    def __init__(self):
        self.tfhost = os.environ.get("TFHOST", os.path.join(ROOT, "build", "tfhost"))
        self.duration = env_num("DURATION", 1800.0)
        self.warmup = env_num("WARMUP", 120.0)
        self.rate = env_num("RATE", 200.0)
        self.workers = env_num("WORKERS", 4)
        self.reload_every = env_num("RELOAD_EVERY", 30.0)
        self.disconnect_every = env_num("DISCONNECT_EVERY", 0.5)
        self.shutdown_ms = env_num("SHUTDOWN_MS", 10000)
        self.rss_limit = env_num("RSS_LIMIT", 0.05)
        self.out_dir = os.environ.get("OUT_DIR") or tempfile.mkdtemp(prefix="tfhost_soak_out.")
        os.makedirs(self.out_dir, exist_ok=True)
        self.work = tempfile.mkdtemp(prefix="tfhost_soak.")
        self.models = os.path.join(self.work, "models")
        self.server = None

    def start_server(self):
        subprocess.run([self.tfhost, "demo-models", self.models], check=True, stdout=subprocess.DEVNULL)
        os.makedirs(os.path.join(self.models, "image", "1"))
        shutil.copy(IMAGE_PBTXT, os.path.join(self.models, "image", "1", "saved_model.pbtxt"))
        config = os.path.join(self.work, "models.config")
        with open(config, "w") as f:
            f.write("model_config_list {\n")
            for name in MODELS:
                f.write('  config { name: "%s" base_path: "%s" model_platform: "tensorflow" }\n'
                        % (name, os.path.join(self.models, name)))
            f.write("}\n")
        self.rest_port, self.grpc_port = free_port(), free_port()
        self.server_log = os.path.join(self.out_dir, "tfhost.log")
        self.server = subprocess.Popen(
            [self.tfhost, "serve", "--model_config_file=" + config, "--port=%d" % self.grpc_port,
             "--grpc_address=127.0.0.1", "--rest_api_port=%d" % self.rest_port, "--rest_api_address=127.0.0.1",
             "--file_system_poll_wait_seconds=1", "--shutdown_timeout_ms=%d" % self.shutdown_ms],
            stdout=open(self.server_log, "w"), stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.server.poll() is not None:
                raise SystemExit("soak: tfhost exited at start, see %s" % self.server_log)
            try:
                if http_get(self.rest_port, "/v2/health/ready", timeout=1)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit("soak: tfhost not ready after 60 s")

    def run(self):
        self.start_server()
        ctx = mp.get_context("fork")
        stop = ctx.Event()
        sigterm_at = ctx.Value("d", 0.0)
        out_q = ctx.Queue()
        self.t0 = time.time()
        procs = [ctx.Process(target=worker_main, args=(i, self.rest_port, self.grpc_port, self.t0,
                                                       self.rate / self.workers, stop, sigterm_at, out_q))
                 for i in range(self.workers)]
        for p in procs:
            p.start()
        faults, disc = Faults(self), Disconnects(self)
        faults.start()
        disc.start()
        print("soak: %d s, %d workers at %.0f req/s, server pid %d, REST %d, gRPC %d; output in %s"
              % (self.duration, self.workers, self.rate, self.server.pid, self.rest_port, self.grpc_port,
                 self.out_dir), flush=True)
        crashed = None
        while time.time() < self.t0 + self.duration:
            if self.server.poll() is not None:
                crashed = self.server.returncode
                break
            time.sleep(1)
        # Stop the fault threads, then SIGTERM under load.
        faults.stop.set()
        disc.stop.set()
        faults.join(30)
        disc.join(30)
        drain = {"exit_code": crashed, "crashed": crashed is not None}
        if crashed is None:
            rss_at_end = rss_kb(self.server.pid)
            sigterm_at.value = time.time()
            self.server.send_signal(signal.SIGTERM)
            try:
                code = self.server.wait(self.shutdown_ms / 1000.0 + 10)
            except subprocess.TimeoutExpired:
                code = None
            drain.update({"exit_code": code, "seconds": round(time.time() - sigterm_at.value, 3),
                          "deadline_s": self.shutdown_ms / 1000.0, "rss_kb_at_sigterm": rss_at_end})
        time.sleep(1)  # the workers see the refusals after the stop
        stop.set()
        results = [out_q.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(10)
        return self.report(results, faults, disc, drain)

    def report(self, results, faults, disc, drain):
        minutes = {}
        errors = {}
        examples = {}
        lost = sum(r["lost_in_flight"] for r in results)
        for r in results:
            for k, m in r["minutes"].items():
                t = minutes.setdefault(int(k), {"sent": 0, "answered": 0, "lat": []})
                t["sent"] += m["sent"]
                t["answered"] += m["answered"]
                t["lat"] += m["lat"]
            for k, n in r["errors"].items():
                errors[k] = errors.get(k, 0) + n
                examples.setdefault(k, r["examples"][k])
        rss_by_min = {}
        anon_by_min = {}
        for t, kb, anon in faults.rss:
            rss_by_min.setdefault(int(t // 60), []).append(kb)
            anon_by_min.setdefault(int(t // 60), []).append(anon)
        rows = []
        for k in sorted(set(minutes) | set(rss_by_min)):
            m = minutes.get(k, {"sent": 0, "answered": 0, "lat": []})
            p99 = percentile(m["lat"], 99)
            rss = rss_by_min.get(k, [])
            anon = anon_by_min.get(k, [])
            rows.append({"minute": k + 1, "sent": m["sent"], "answered": m["answered"],
                         "p50_ms": round(1e3 * percentile(m["lat"], 50), 2) if m["lat"] else None,
                         "p99_ms": round(1e3 * p99, 2) if p99 is not None else None,
                         "rss_mib": round(max(rss) / 1024.0, 1) if rss else None,
                         "anon_mib": round(max(anon) / 1024.0, 1) if anon else None})
        # Calls grpc cancelled unstarted at the stop are refusals only when the
        # server says every call it started finished; else they count as lost.
        with open(self.server_log, errors="replace") as f:
            server_drained = "tfhost serve: all requests finished" in f.read()
        refusal_prefixes = ("after_sigterm:", "unstarted_at_stop:") if server_drained else ("after_sigterm:",)
        if not server_drained:
            lost += sum(n for k, n in errors.items() if k.startswith("unstarted_at_stop:"))
        unexpected = {k: n for k, n in errors.items() if not k.startswith(refusal_prefixes)}
        expected = {k: n for k, n in errors.items() if k.startswith(refusal_prefixes)}
        c = faults.corrupt
        if c["bad_checks"] or c["served_requests"]:
            unexpected["corrupt version checks failed"] = len(c["bad_checks"]) + len(c["served_requests"])
        if faults.reload_failures:
            unexpected["reload never AVAILABLE"] = faults.reload_failures
        if c["refused_requests"]:
            expected["requests naming the corrupt version, refused (404 / NOT_FOUND)"] = c["refused_requests"]
        for kind, n in disc.counts.items():
            if kind.startswith("grpc_1ms_deadline:"):
                expected["disconnect thread: gRPC call with a 1 ms deadline, " + kind.split(":", 1)[1]] = n
        # RSS growth: the samples of the minute after warm-up against those of the last full minute.
        def growth_of(i):
            base = [x[i] for x in faults.rss if self.warmup <= x[0] < self.warmup + 60]
            tail = [x[i] for x in faults.rss if self.duration - 60 <= x[0]]
            if not base or not tail:
                return None
            return (sorted(tail)[len(tail) // 2] / sorted(base)[len(base) // 2]) - 1.0
        growth, anon_growth = growth_of(1), growth_of(2)
        drained = (drain["exit_code"] == 0 and drain.get("seconds", 1e9) <= drain.get("deadline_s", 0) + 1
                   and lost == 0)
        sent = sum(m["sent"] for m in minutes.values())
        answered = sum(m["answered"] for m in minutes.values())
        out = {
            "command": "DURATION=%g bash bench/soak/run.sh" % self.duration,
            "settings": {"duration_s": self.duration, "warmup_s": self.warmup, "rate": self.rate,
                         "workers": self.workers, "reload_every_s": self.reload_every,
                         "disconnect_every_s": self.disconnect_every, "shutdown_timeout_ms": self.shutdown_ms},
            "machine": {"cpus": os.cpu_count(), "load_at_end": open("/proc/loadavg").read().split()[:3]},
            "sent": sent, "answered": answered,
            "unexpected_errors": unexpected, "expected_errors": expected,
            "error_examples": {k: examples[k] for k in examples},
            "disconnects": disc.counts,
            "reloads": {"count": len(faults.reloads), "failures": faults.reload_failures,
                        "seconds_to_available_max": round(max(faults.reloads), 2) if faults.reloads else None},
            "corrupt_version": c,
            "drain": dict(drain, requests_in_flight_at_sigterm_not_answered=lost),
            "rss": {"growth_after_warmup": round(growth, 4) if growth is not None else None,
                    "anon_growth_after_warmup": round(anon_growth, 4) if anon_growth is not None else None,
                    "limit": self.rss_limit},
            "minutes": rows,
            "events": faults.log,
        }
        targets = {
            "zero unexpected errors": not unexpected,
            "RSS growth after warm-up < %.0f%%" % (100 * self.rss_limit): growth is not None and growth < self.rss_limit,
            "drain completes": drained,
        }
        out["targets"] = targets
        with open(os.path.join(self.out_dir, "soak.json"), "w") as f:
            json.dump(out, f, indent=1)
        md = self.markdown(out)
        with open(os.path.join(self.out_dir, "soak.md"), "w") as f:
            f.write(md)
        print(md)
        return 0 if all(targets.values()) else 1

    @staticmethod
    def markdown(o):
        lines = ["soak of tfhost serve: %g s, %d workers at %g req/s, %d CPUs, load at end %s"
                 % (o["settings"]["duration_s"], o["settings"]["workers"], o["settings"]["rate"],
                    o["machine"]["cpus"], " ".join(o["machine"]["load_at_end"])), "",
                 "sent %d, answered %d; reloads %d (longest to AVAILABLE %s s); disconnects %d"
                 % (o["sent"], o["answered"], o["reloads"]["count"], o["reloads"]["seconds_to_available_max"],
                    sum(o["disconnects"].values())), ""]
        lines.append("| minute | sent | answered | p50 ms | p99 ms | RSS MiB (max) | of it anonymous |")
        lines.append("|---:|---:|---:|---:|---:|---:|---:|")
        for r in o["minutes"]:
            lines.append("| %d | %d | %d | %s | %s | %s | %s |" % (r["minute"], r["sent"], r["answered"], r["p50_ms"],
                                                                 r["p99_ms"], r["rss_mib"], r["anon_mib"]))
        lines.append("")
        lines.append("| error class | count | expected |")
        lines.append("|---|---:|---|")
        # Refusals after SIGTERM, summed over protocols and models (soak.json has them apart).
        grouped = {}
        for k, n in o["expected_errors"].items():
            if k.startswith("after_sigterm:"):
                k = "after SIGTERM: " + k.split(" ")[0].split(":", 1)[1] + " (all protocols and models)"
            elif k.startswith("unstarted_at_stop:"):
                k = "sent before SIGTERM, cancelled by grpc unstarted: " + k.split(" ")[0].split(":", 1)[1]
            grouped[k] = grouped.get(k, 0) + n
        for k, n in sorted(grouped.items()):
            lines.append("| %s | %d | yes |" % (k, n))
        for k, n in sorted(o["unexpected_errors"].items()):
            lines.append("| %s | %d | **no** |" % (k, n))
        if not o["expected_errors"] and not o["unexpected_errors"]:
            lines.append("| none | 0 | |")
        lines.append("")
        d = o["drain"]
        lines.append("drain: exit code %s after %s s (deadline %s s), %d requests in flight at SIGTERM not answered"
                     % (d.get("exit_code"), d.get("seconds"), d.get("deadline_s"),
                        d["requests_in_flight_at_sigterm_not_answered"]))
        c = o["corrupt_version"]
        lines.append("corrupt version: dropped at %s s, removed at %s s, %d checks, states seen %s, %d requests refused, "
                     "%d failed checks" % (round(c["dropped_at"], 1) if c["dropped_at"] else None,
                                           round(c["removed_at"], 1) if c["removed_at"] else None, c["checks"],
                                           "; ".join(c["states_seen"]), c["refused_requests"],
                                           len(c["bad_checks"]) + len(c["served_requests"])))
        lines.append("RSS growth after warm-up: %s (limit %s); anonymous memory alone: %s"
                     % (o["rss"]["growth_after_warmup"], o["rss"]["limit"], o["rss"]["anon_growth_after_warmup"]))
        lines.append("")
        for k, ok in o["targets"].items():
            lines.append("- %s: %s" % (k, "met" if ok else "**missed**"))
        return "\n".join(lines) + "\n"

    def cleanup(self):
        if self.server and self.server.poll() is None:
            self.server.kill()
            self.server.wait()
        shutil.rmtree(self.work, ignore_errors=True)


def main():
    soak = Soak()
    # SIGTERM/SIGINT to the driver: stop, and never leave the server behind.
    def on_signal(signum, _):
        soak.cleanup()
        os._exit(128 + signum)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        code = soak.run()
    finally:
        soak.cleanup()
    sys.exit(code)


if __name__ == "__main__":
    main()
