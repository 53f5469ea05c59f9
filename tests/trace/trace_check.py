#!/usr/bin/env python3
"""`--trace FILE` end to end through the built binary, on tfhost's demo models
(`tfhost demo-models`), read back with Python's json module:

  run      one "session" slice; one node slice per executed node, each with
           op and backend args, inside the run; a "load model" slice
  bench    --runs R over two thread counts: 2R runs, and every node of the
           run above appears exactly 2R times (warm-up runs are not traced)
  predict  the pipeline's stages (read, decode, run, write) for every batch;
           each batch's model run lies inside its "run" stage, with the same
           nodes as `run`
  errors   an unwritable --trace path fails before any work, naming the file
  serve    --trace FILE over a batched server's life; GET /v1/trace?seconds=N
           while requests arrive (409 while a recording is on, 400 naming
           `seconds` for a bad N); every request span encloses its queue wait,
           its batch's run and that run's node slices

With TFHOST_TRACE_PROCESSOR_SHELL naming Perfetto's trace_processor_shell
(and the `perfetto` Python package importable), every trace is loaded into
Perfetto's trace processor too and the same checks run on its `slice` table
with SQL; otherwise that pass prints why it was skipped. Servers listen on
127.0.0.1 on free ports and are stopped with SIGTERM; every wait is bounded.

  python3 trace_check.py --tfhost BINARY
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
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # the source tree stays as checked out

FAILURES = []
EPS = 3e-3  # microseconds: exact to the nanosecond in the file; Perfetto rounds ts and dur apart
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr, flush=True)
    return cond


class Slice:
    def __init__(self, name, cat, tid, ts, dur, args):
        self.name, self.cat, self.tid, self.ts, self.dur = name, cat, tid, ts, dur
        self.args = {k: str(v) for k, v in (args or {}).items()}

    @property
    def end(self):
        return self.ts + self.dur

    def encloses(self, other):
        return self.ts <= other.ts + EPS and other.end <= self.end + EPS


def slices_from_json(path):
    """The complete slices and the thread names of a trace file."""
    with open(path) as f:
        doc = json.load(f)
    check(isinstance(doc.get("traceEvents"), list), path + ": traceEvents is a list")
    out, names = [], {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        if e["ph"] == "X":
            check(isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)),
                  path + ": ts and dur are numbers")
            out.append(Slice(e["name"], e["cat"], e["tid"], e["ts"], e["dur"], e.get("args")))
    return out, names


def perfetto_loader():
    """A function reading a trace's slices through Perfetto's trace processor,
    or None with the reason it cannot be used."""
    shell = os.environ.get("TFHOST_TRACE_PROCESSOR_SHELL", "")
    if not shell:
        return None, ("TFHOST_TRACE_PROCESSOR_SHELL is not set (the perfetto package would download "
                      "trace_processor_shell, which this machine cannot reach)")
    if not os.access(shell, os.X_OK):
        return None, "TFHOST_TRACE_PROCESSOR_SHELL=%s is not an executable file" % shell
    try:
        from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig
    except ImportError as e:
        return None, "the perfetto Python package is not importable (%s)" % e

    keys = ["id", "run", "parent", "request", "batch", "requests", "op", "backend", "status"]

    def load(path):
        tp = TraceProcessor(trace=path, config=TraceProcessorConfig(bin_path=shell))
        try:
            columns = ", ".join("EXTRACT_ARG(s.arg_set_id, 'args.%s') AS a_%s" % (k, k) for k in keys)
            rows = tp.query("SELECT s.name, s.category, s.ts, s.dur, t.tid, t.name AS thread, %s "
                            "FROM slice s JOIN thread_track tt ON s.track_id = tt.id "
                            "JOIN thread t USING (utid)" % columns)
            out, names = [], {}
            for r in rows:
                args = {k: getattr(r, "a_" + k) for k in keys if getattr(r, "a_" + k) is not None}
                # Perfetto keeps JSON arrays as indexed args; the batch's request
                # ids are read from the JSON pass instead.
                out.append(Slice(r.name, r.category, r.tid, r.ts / 1000.0, r.dur / 1000.0, args))
                if r.thread:
                    names[r.tid] = r.thread
            return out, names
        finally:
            tp.close()

    return load, None


def by_cat(slices, cat):
    return [s for s in slices if s.cat == cat]


def nodes_of_run(slices, run_id):
    return [s for s in slices if s.cat in ("node", "copy") and s.args.get("run") == run_id]


def run(cmd, expect_ok=True):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if expect_ok and not check(p.returncode == 0, "%s exits 0 (got %d): %s" % (" ".join(cmd[:2]), p.returncode,
                                                                            p.stderr[-2000:])):
        return p
    return p


# ---------------------------------------------------------------- run, bench


def model_runs(slices):
    """The session slices outside the model load (whose own runs restore the
    variables)."""
    loads = [s for s in slices if s.cat == "cli" and s.name == "load model"]
    return [s for s in by_cat(slices, "session") if not any(load.encloses(s) for load in loads)]


def check_run(slices, names, what):
    check(len([s for s in slices if s.cat == "cli" and s.name == "load model"]) == 1, what + ": a load model slice")
    sessions = model_runs(slices)
    if not check(len(sessions) == 1, what + ": one model run, got %d" % len(sessions)):
        return None
    session = sessions[0]
    check(names.get(session.tid) == "tfhost run", what + ": the command's thread is named")
    nodes = nodes_of_run(slices, session.args["id"])
    check(len(nodes) > 0, what + ": node slices")
    for n in nodes:
        check(n.args.get("backend"), what + ": node %s has a backend" % n.name)
        check(n.args.get("op"), what + ": node %s has an op" % n.name)
        check(session.encloses(n), what + ": node %s inside its run" % n.name)
    node_names = [n.name for n in nodes]
    check(len(set(node_names)) == len(node_names), what + ": each node once per run")
    return sorted(node_names)


def check_bench(slices, names, run_nodes, runs, what):
    sessions = by_cat(slices, "session")
    check(len(sessions) == runs, what + ": %d session slices, got %d" % (runs, len(sessions)))
    counts = {}
    for s in slices:
        if s.cat in ("node", "copy"):
            counts[s.name] = counts.get(s.name, 0) + 1
    check(sorted(counts) == run_nodes, what + ": the nodes `run` executed, no others")
    for name, n in counts.items():
        check(n == runs, what + ": node %s has %d slices, expected one per run (%d)" % (name, n, runs))
    total = sum(counts.values())
    check(total == len(run_nodes) * runs, what + ": slices per node == nodes executed x runs (%d != %d x %d)"
          % (total, len(run_nodes), runs))
    print("%s: %d runs, %d node slices (%d nodes x %d)" % (what, len(sessions), total, len(run_nodes), runs), flush=True)
    for sess in sessions:
        for n in nodes_of_run(slices, sess.args["id"]):
            check(sess.encloses(n), what + ": node %s inside run %s" % (n.name, sess.args["id"]))


def check_predict(slices, names, run_nodes, batches, what):
    stages = by_cat(slices, "predict")
    for stage in ("read", "decode", "run", "write"):
        got = sorted({s.args.get("batch") for s in stages if s.name == stage})
        check(len(got) == batches, what + ": %s slices for %d batches, got %s" % (stage, batches, got))
    runs = [s for s in stages if s.name == "run"]
    sessions = model_runs(slices)
    check(len(sessions) == batches, what + ": one session per batch (%d), got %d" % (batches, len(sessions)))
    for sess in sessions:
        stage = [r for r in runs if r.tid == sess.tid and r.encloses(sess)]
        check(len(stage) == 1, what + ": session %s inside a run stage" % sess.args["id"])
        check(sorted(n.name for n in nodes_of_run(slices, sess.args["id"])) == run_nodes,
              what + ": batch run executes the nodes `run` executed")
    print("%s: %d batches through read, decode, run and write" % (what, batches), flush=True)
    for thread in ("predict reader", "predict parse 0", "predict engine", "predict writer"):
        check(thread in names.values(), what + ": a thread named %r" % thread)


# ---------------------------------------------------------------------- serve


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(port, method, path, body=None, timeout=60):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with OPENER.open(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, OSError) as e:
        return None, str(e)


class Serve:
    def __init__(self, binary, demo_dir, extra):
        self.port = free_port()
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [binary, "serve", "--demo_models_dir", demo_dir, "--port", "0", "--rest_api_address", "127.0.0.1",
             "--rest_api_port", str(self.port), "--enable_batching",
             "--batching_parameters_file", os.path.join(os.path.dirname(demo_dir), "batching.txt")] + extra,
            stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            if http(self.port, "GET", "/readyz", timeout=5)[0] == 200:
                return
            time.sleep(0.2)
        check(False, "serve became ready: " + self.stderr())

    def stderr(self):
        self.log.seek(0)
        return self.log.read()[-3000:]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = None
        check(code == 0, "serve exits 0 after SIGTERM (got %s): %s" % (code, self.stderr()))


def predict_concurrently(port, n):
    statuses = []

    def one(i):
        statuses.append(http(port, "POST", "/v1/models/half_plus_two:predict",
                             {"instances": [[float(i)], [2.0]]})[0])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(statuses == [200] * n, "predicts answered 200: %s" % statuses)


def check_requests(slices, names, predicts, what, batch_requests=None):
    """Each predict's span encloses its queue wait, its batch's run and that
    run's node slices. `batch_requests` (batch id -> request ids) comes from
    the JSON pass (Perfetto flattens arrays)."""
    checked = {"batches": set(), "nodes": 0}
    requests = [s for s in by_cat(slices, "request") if s.name == "POST /v1/models/half_plus_two:predict"]
    check(len(requests) == predicts, what + ": %d predict spans, got %d" % (predicts, len(requests)))
    waits = [s for s in by_cat(slices, "batching") if s.name == "queue wait"]
    batches = {s.args["id"]: s for s in by_cat(slices, "batching") if s.name == "batch"}
    check(len(waits) >= predicts, what + ": a queue wait slice per request")
    for r in requests:
        rid = r.args["id"]
        check(names.get(r.tid, "").startswith("request lane "), what + ": request on a lane")
        check(r.args.get("status") == "200", what + ": request status 200")
        mine = [w for w in waits if w.args.get("request") == rid]
        if not check(len(mine) == 1, what + ": one queue wait for request %s" % rid):
            continue
        wait = mine[0]
        check(wait.tid == r.tid and r.encloses(wait), what + ": queue wait inside request %s" % rid)
        batch = batches.get(wait.args["batch"])
        if not check(batch is not None, what + ": batch %s of request %s" % (wait.args["batch"], rid)):
            continue
        if batch_requests is not None:
            check(rid in batch_requests.get(batch.args["id"], []), what + ": batch lists request %s" % rid)
        checked["batches"].add(batch.args["id"])
        runs = [s for s in by_cat(slices, "session") if s.args.get("parent") == batch.args["id"]]
        check(len(runs) == 1, what + ": one run for batch %s" % batch.args["id"])
        for run_slice in runs:
            nodes = nodes_of_run(slices, run_slice.args["id"])
            check(len(nodes) > 0, what + ": nodes in the run of request %s" % rid)
            for n in nodes:
                check(r.encloses(n), what + ": node %s inside request %s" % (n.name, rid))
            checked["nodes"] += len(nodes)
    print("%s: %d request spans, %d batches, %d node slices inside their requests"
          % (what, len(requests), len(checked["batches"]), checked["nodes"]), flush=True)


def batch_request_lists(path):
    with open(path) as f:
        doc = json.load(f)
    return {str(e["args"]["id"]): [str(i) for i in e["args"]["requests"]]
            for e in doc["traceEvents"] if e["ph"] == "X" and e["name"] == "batch"}


# ----------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfhost", required=True)
    args = ap.parse_args()
    binary = args.tfhost
    perfetto, why_not = perfetto_loader()
    if perfetto is None:
        print("SKIP perfetto trace processor pass: " + why_not, flush=True)
    traces = []  # (path, checker(slices, names))

    with tempfile.TemporaryDirectory(prefix="tfhost_trace_") as tmp:
        demo = os.path.join(tmp, "demo")
        run([binary, "demo-models", demo])
        mlp = os.path.join(demo, "mlp", "1")

        # run: the nodes one run executes.
        run_trace = os.path.join(tmp, "out", "nested", "run.json")  # folders made by --trace
        run([binary, "run", mlp, "--input", "x=[[1.0, 2.0, 3.0, 4.0]]", "--threads", "1", "--trace", run_trace])
        slices, names = slices_from_json(run_trace)
        run_nodes = check_run(slices, names, "run") or []
        print("run: %d nodes executed" % len(run_nodes), flush=True)
        traces.append((run_trace, lambda s, n: check_run(s, n, "run (perfetto)")))

        # bench: R timed runs per thread count, warm-up left out.
        runs = 4
        bench_trace = os.path.join(tmp, "bench.json")
        run([binary, "bench", mlp, "--runs", str(runs), "--warmup", "3", "--threads", "1,2", "--trace", bench_trace])
        slices, names = slices_from_json(bench_trace)
        check_bench(slices, names, run_nodes, 2 * runs, "bench")
        traces.append((bench_trace, lambda s, n: check_bench(s, n, run_nodes, 2 * runs, "bench (perfetto)")))

        # predict: 10 records in batches of 4 -> 3 batches.
        records = os.path.join(tmp, "records.jsonl")
        with open(records, "w") as f:
            for i in range(10):
                f.write(json.dumps({"x": [float(i), 1.0, 2.0, 3.0]}) + "\n")
        predict_trace = os.path.join(tmp, "predict.json")
        run([binary, "predict", mlp, "--input", records, "--output", os.path.join(tmp, "pred", "out"),
             "--batch", "4", "--threads", "1", "--quiet", "--no-sync", "--trace", predict_trace])
        slices, names = slices_from_json(predict_trace)
        check_predict(slices, names, run_nodes, 3, "predict")
        traces.append((predict_trace, lambda s, n: check_predict(s, n, run_nodes, 3, "predict (perfetto)")))

        # An unwritable --trace fails at once, naming the file.
        blocker = os.path.join(tmp, "a_file")
        open(blocker, "w").close()
        bad = os.path.join(blocker, "trace.json")
        p = run([binary, "run", mlp, "--input", "x=[[1.0, 2.0, 3.0, 4.0]]", "--trace", bad], expect_ok=False)
        check(p.returncode != 0, "unwritable --trace fails")
        check("trace file '%s'" % bad in p.stderr, "the error names the trace file: " + p.stderr)
        check("x:" not in p.stdout and "probabilities" not in p.stdout, "nothing ran before the error")

        # serve: a batching config whose timeout lets concurrent requests meet.
        with open(os.path.join(tmp, "batching.txt"), "w") as f:
            f.write("max_batch_size { value: 64 }\nbatch_timeout_micros { value: 20000 }\n"
                    "num_batch_threads { value: 1 }\nmax_enqueued_batches { value: 100 }\n")
        serve_trace = os.path.join(tmp, "serve.json")
        server = Serve(binary, demo, ["--trace", serve_trace])
        predict_concurrently(server.port, 4)
        status, body = http(server.port, "GET", "/v1/trace?seconds=1")
        check(status == 409 and "already being recorded" in body, "GET /v1/trace during serve --trace: 409 (%s %s)"
              % (status, body))
        server.stop()
        slices, names = slices_from_json(serve_trace)
        lists = batch_request_lists(serve_trace)
        check_requests(slices, names, 4, "serve --trace", lists)
        traces.append((serve_trace, lambda s, n: check_requests(s, n, 4, "serve --trace (perfetto)")))

        server = Serve(binary, demo, [])
        for query, what in (("", "missing"), ("?seconds=0", "zero"), ("?seconds=61", "too long"),
                            ("?seconds=abc", "not a number")):
            status, body = http(server.port, "GET", "/v1/trace" + query)
            check(status == 400 and "seconds" in body, "GET /v1/trace%s (%s): 400 naming seconds, got %s %s"
                  % (query, what, status, body))
        answer = {}

        def record():
            answer["status"], answer["body"] = http(server.port, "GET", "/v1/trace?seconds=2", timeout=60)

        recorder = threading.Thread(target=record)
        recorder.start()
        time.sleep(0.5)  # the recording has begun
        status, body = http(server.port, "GET", "/v1/trace?seconds=1")
        check(status == 409, "a second GET /v1/trace meanwhile: 409, got %s %s" % (status, body))
        predict_concurrently(server.port, 5)
        recorder.join()
        server.stop()
        if check(answer.get("status") == 200, "GET /v1/trace?seconds=2 answers 200: %s" % answer.get("status")):
            window = os.path.join(tmp, "window.json")
            with open(window, "w") as f:
                f.write(answer["body"])
            slices, names = slices_from_json(window)
            check_requests(slices, names, 5, "GET /v1/trace", batch_request_lists(window))
            traces.append((window, lambda s, n: check_requests(s, n, 5, "GET /v1/trace (perfetto)")))

        if perfetto is not None:
            for path, checker in traces:
                slices, names = perfetto(path)
                checker(slices, names)
                print("perfetto: %s checked (%d slices)" % (os.path.basename(path), len(slices)), flush=True)

    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("all trace checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
