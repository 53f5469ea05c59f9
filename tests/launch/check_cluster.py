#!/usr/bin/env python3
"""One task of a test job started by `tfhost launch`: proves its wiring without TensorFlow.

It parses TF_CONFIG as TensorFlow would, checks that its own task is in the
cluster, listens on its own address, connects to every peer (retrying while
they start) and checks that the peer answering there is the task the cluster
says, then waits until every peer has connected to it. It writes
CHECK_DIR/<type>-<index>.json with its view (cluster, pid, peers reached) and
prints OK. Options make it fail or linger so that tests can exercise launch's
lifecycle:
  --fail-task TYPE:INDEX --code N  that task exits N after --fail-after seconds
  --fail-restart N                 ... only when TFHOST_RESTART is N (restart tests)
  --linger TYPES                   tasks of these types ("ps,worker" or "all") keep
                                   running after the checks until signalled
  --chief-waits                    the chief exits only after every cluster task has
                                   written its report (the chief's exit ends a ps job)
  --marker TEXT                    ignored; lets a test find stray processes
"""
import argparse
import json
import os
import signal
import socket
import sys
import threading
import time


def parse_address(addr):
    host, _, port = addr.rpartition(":")
    return host.strip("[]"), int(port)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fail-task", default="")
    ap.add_argument("--code", type=int, default=3)
    ap.add_argument("--fail-after", type=float, default=0.5)
    ap.add_argument("--fail-restart", type=int, default=-1)
    ap.add_argument("--linger", default="")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--marker", default="")
    ap.add_argument("--chief-waits", action="store_true")
    args = ap.parse_args()
    out_dir = os.environ["CHECK_DIR"]

    got_signal = []

    def on_signal(signo, frame):
        got_signal.append(signo)
        with open(os.path.join(out_dir, "signal-%d" % os.getpid()), "w") as f:
            f.write(signal.Signals(signo).name + "\n")
        print("got %s" % signal.Signals(signo).name, flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    config = json.loads(os.environ["TF_CONFIG"])
    cluster, task = config["cluster"], config["task"]
    me = "%s:%d" % (task["type"], task["index"])
    with open(os.path.join(out_dir, "pid-%s-%d" % (task["type"], task["index"])), "w") as f:
        f.write("%d\n" % os.getpid())
    restart = int(os.environ.get("TFHOST_RESTART", "0"))
    failing = args.fail_task and (args.fail_restart < 0 or args.fail_restart == restart)
    if failing and args.fail_task == me:
        time.sleep(args.fail_after)
        print("failing on purpose with status %d" % args.code, flush=True)
        sys.exit(args.code)
    if failing:
        # Not the failing task: wait to be stopped by launch.
        while True:
            time.sleep(0.1)

    assert set(cluster) <= {"chief", "worker", "ps"}, cluster
    assert "evaluator" not in cluster
    for kind, addrs in cluster.items():
        assert isinstance(addrs, list) and addrs, (kind, addrs)
    if task["type"] == "evaluator":
        peers = []
        my_addr = None
    else:
        my_addr = cluster[task["type"]][task["index"]]
        peers = [(k, i, a) for k, addrs in cluster.items() for i, a in enumerate(addrs) if a != my_addr]
    assert os.environ.get("TFHOST_TASK_TYPE") == task["type"]
    assert os.environ.get("TFHOST_TASK_INDEX") == str(task["index"])

    incoming = set()
    lock = threading.Lock()
    if my_addr is not None:
        host, port = parse_address(my_addr)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        server = socket.socket(family, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((socket.gethostbyname(host) if family == socket.AF_INET else host, port))
        server.listen(64)

        def serve():
            while True:
                conn, _ = server.accept()
                with conn:
                    f = conn.makefile("rw")
                    who = f.readline().strip()
                    f.write(me + "\n")
                    f.flush()
                    with lock:
                        incoming.add(who)

        threading.Thread(target=serve, daemon=True).start()

    deadline = time.time() + args.timeout
    reached = []
    for kind, index, addr in peers:
        host, port = parse_address(addr)
        while True:
            try:
                with socket.create_connection((host, port), timeout=2) as s:
                    f = s.makefile("rw")
                    f.write(me + "\n")
                    f.flush()
                    answer = f.readline().strip()
                break
            except OSError:
                if time.time() > deadline:
                    print("cannot reach %s:%d at %s" % (kind, index, addr), flush=True)
                    sys.exit(10)
                time.sleep(0.1)
        if answer != "%s:%d" % (kind, index):
            print("%s answered as %r, expected %s:%d" % (addr, answer, kind, index), flush=True)
            sys.exit(11)
        reached.append(answer)

    expected_in = {"%s:%d" % (k, i) for k, i, _ in peers}
    while True:
        with lock:
            if expected_in <= incoming:
                break
        if time.time() > deadline:
            print("peers never connected: %s" % sorted(expected_in - incoming), flush=True)
            sys.exit(12)
        time.sleep(0.05)

    with open(os.path.join(out_dir, "%s-%d.json" % (task["type"], task["index"])), "w") as f:
        json.dump({"cluster": cluster, "task": task, "pid": os.getpid(), "reached": reached,
                   "restart": os.environ.get("TFHOST_RESTART")}, f)
    print("OK %s reached %d peers" % (me, len(reached)), flush=True)
    if args.chief_waits and task["type"] == "chief":
        reports = ["%s-%d.json" % (k, i) for k, addrs in cluster.items() for i in range(len(addrs))]
        while not all(os.path.exists(os.path.join(out_dir, r)) for r in reports):
            if time.time() > deadline:
                print("not every task reported", flush=True)
                sys.exit(13)
            time.sleep(0.05)
    if args.linger == "all" or task["type"] in args.linger.split(","):
        while True:
            time.sleep(0.1)


if __name__ == "__main__":
    main()
