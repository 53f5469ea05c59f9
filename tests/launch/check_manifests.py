#!/usr/bin/env python3
"""Structural check of `tfhost launch --emit k8s|k8s-indexed` output.

usage: check_manifests.py tfjob FILE WORKERS PS GPUS
       check_manifests.py indexed FILE WORKERS PS GPUS
Parses the YAML (PyYAML) and checks the fields Kubernetes and the training
operator require; for Indexed Jobs it also runs each entrypoint with
JOB_COMPLETION_INDEX set and checks the TF_CONFIG it builds. Exits non-zero
with a message on the first problem.
"""
import json
import os
import subprocess
import sys

import yaml


def fail(msg):
    print("manifest check failed: " + msg)
    sys.exit(1)


def need(cond, msg):
    if not cond:
        fail(msg)


def check_container(c, gpus, role):
    need(c["name"] == "tensorflow", "container must be named tensorflow")
    need(isinstance(c["image"], str) and c["image"], "image")
    need(isinstance(c["command"], list) and all(isinstance(x, str) for x in c["command"]), "command list")
    env = {e["name"]: e["value"] for e in c.get("env", [])}
    need(all(isinstance(v, str) for v in env.values()), "env values must be strings")
    need("TF_CONFIG" not in env, "TF_CONFIG must not be hard-coded")
    need(env.get("TF_GPU_ALLOCATOR") == "cuda_malloc_async", "tuning env missing")
    need(c["ports"][0]["containerPort"] == 2222, "port")
    limit = c.get("resources", {}).get("limits", {}).get("nvidia.com/gpu")
    if gpus and role not in ("ps", "PS"):
        need(limit == gpus, "GPU limit for %s: %r" % (role, limit))
    else:
        need(limit is None, "no GPU for %s" % role)
    return env


def check_tfjob(docs, workers, ps, gpus):
    need(len(docs) == 1, "one TFJob document")
    d = docs[0]
    need(d["apiVersion"] == "kubeflow.org/v1" and d["kind"] == "TFJob", "apiVersion/kind")
    need(d["metadata"]["name"], "name")
    specs = d["spec"]["tfReplicaSpecs"]
    expected = {"Worker": workers}
    if ps:
        expected.update({"Chief": 1, "PS": ps})
    need(set(specs) == set(expected), "replica types %s" % sorted(specs))
    for role, n in expected.items():
        need(specs[role]["replicas"] == n, "%s replicas" % role)
        need(specs[role]["restartPolicy"] in ("Never", "OnFailure", "Always", "ExitCode"), "restartPolicy")
        containers = specs[role]["template"]["spec"]["containers"]
        need(len(containers) == 1, "one container")
        check_container(containers[0], gpus, role)


def check_indexed(docs, workers, ps, gpus):
    svc = [d for d in docs if d["kind"] == "Service"]
    jobs = [d for d in docs if d["kind"] == "Job"]
    need(len(svc) == 1, "one Service")
    s = svc[0]
    need(s["apiVersion"] == "v1" and s["spec"]["clusterIP"] == "None", "headless Service")
    name = s["metadata"]["name"]
    roles = {"worker": workers}
    if ps:
        roles.update({"chief": 1, "ps": ps})
    need({j["metadata"]["name"] for j in jobs} == {"%s-%s" % (name, r) for r in roles}, "one Job per task type")
    configs = []
    for j in jobs:
        need(j["apiVersion"] == "batch/v1", "Job apiVersion")
        spec = j["spec"]
        role = j["metadata"]["name"][len(name) + 1:]
        need(spec["completionMode"] == "Indexed", "Indexed completion mode")
        need(spec["completions"] == roles[role] == spec["parallelism"], "completions/parallelism")
        pod = spec["template"]
        need(pod["spec"]["subdomain"] == name, "subdomain must be the Service")
        for k, v in s["spec"]["selector"].items():
            need(pod["metadata"]["labels"].get(k) == v, "Service selector must match pod labels")
        need(pod["spec"]["restartPolicy"] in ("Never", "OnFailure"), "Job restartPolicy")
        c = pod["spec"]["containers"][0]
        check_container(c, gpus, role)
        # Run the entrypoint as the pod would, with the user's command replaced by a printer.
        cmd = c["command"]
        need(cmd[:2] == ["/bin/sh", "-c"], "sh entrypoint")
        for i in range(roles[role]):
            env = dict(os.environ, JOB_COMPLETION_INDEX=str(i))
            out = subprocess.run(cmd[:4] + ["sh", "-c", 'printf %s "$TF_CONFIG"'], env=env,
                                 capture_output=True, text=True, check=True).stdout
            cfg = json.loads(out)
            need(cfg["task"] == {"type": role, "index": i}, "task from JOB_COMPLETION_INDEX: %r" % cfg["task"])
            mine = cfg["cluster"][role][i]
            need(mine == "%s-%s-%d.%s:2222" % (name, role, i, name), "pod DNS name %s" % mine)
            configs.append(cfg["cluster"])
    need(all(c == configs[0] for c in configs), "every pod sees the same cluster")


def main():
    kind, path, workers, ps, gpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if kind == "tfjob":
        check_tfjob(docs, workers, ps, gpus)
    else:
        check_indexed(docs, workers, ps, gpus)
    print("manifests OK")


if __name__ == "__main__":
    main()
