#!/usr/bin/env python3
"""Validates `tfhost serve --emit k8s` output for one flag combination.

usage: check_manifests.py K8S_VERSION CASE PATH [MODEL_CONFIG BATCHING_CONFIG]
PATH is one YAML stream, or a directory of one file per object. Every
document is validated with kubernetes-validate against the schemas of
K8S_VERSION in strict mode (unknown fields are errors); then the fields CASE
(cpu, gpu, queue, config) must set are checked. Exits non-zero with every
problem found.
"""
import os
import sys

import kubernetes_validate
import yaml

KINDS = ["ConfigMap", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"]
problems = []


def need(cond, msg):
    if not cond:
        problems.append(msg)


def load(path):
    if os.path.isdir(path):
        docs = []
        for name in ["configmap.yaml", "deployment.yaml", "service.yaml", "hpa.yaml", "pdb.yaml"]:
            with open(os.path.join(path, name)) as f:
                docs.extend(d for d in yaml.safe_load_all(f) if d is not None)
        return docs
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def validate(docs, version):
    for d in docs:
        where = "%s/%s" % (d.get("kind"), d.get("metadata", {}).get("name"))
        try:
            kubernetes_validate.validate(d, version, strict=True)
        except kubernetes_validate.ValidationError as e:
            path = ".".join(str(p) for p in e.path)
            problems.append("%s does not validate for Kubernetes %s at %s: %s" % (where, version, path, e.message))


def common(by_kind):
    dep = by_kind["Deployment"]
    pod = dep["spec"]["template"]
    c = pod["spec"]["containers"][0]
    need(c["command"] == ["tfhost"] and c["args"][0] == "serve", "the container runs tfhost serve")
    need(c["readinessProbe"]["httpGet"]["path"] == "/readyz", "readiness on /readyz")
    need(c["livenessProbe"]["httpGet"]["path"] == "/healthz", "liveness on /healthz")
    need(c["lifecycle"]["preStop"]["sleep"]["seconds"] == 5, "preStop pause")
    need("--model_config_file=/etc/tfhost/models.config" in c["args"], "serve reads the mounted model config")
    need(not any(a.startswith(("--emit", "--model_base_path", "--image")) for a in c["args"]), "emit flags stay out")
    labels = pod["metadata"]["labels"]
    need(all(labels.get(k) == v for k, v in dep["spec"]["selector"]["matchLabels"].items()), "selector matches pods")
    need(by_kind["Service"]["spec"]["selector"] == dep["spec"]["selector"]["matchLabels"], "Service selects pods")
    need(by_kind["PodDisruptionBudget"]["spec"]["selector"] == dep["spec"]["selector"], "PDB selects pods")
    hpa = by_kind["HorizontalPodAutoscaler"]["spec"]
    need(hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                   "name": dep["metadata"]["name"]}, "HPA scales the Deployment")
    need("replicas" not in dep["spec"], "the HPA owns the replica count")
    volume = [v for v in pod["spec"]["volumes"] if v["name"] == "config"][0]
    need(volume["configMap"]["name"] == by_kind["ConfigMap"]["metadata"]["name"], "the ConfigMap is mounted")
    return pod, c, hpa


def ports(c):
    return {p["name"]: p["containerPort"] for p in c["ports"]}


def check(case, by_kind, extra):
    pod, c, hpa = common(by_kind)
    ann = pod["metadata"]["annotations"]
    limits = c["resources"]["limits"]
    grace = pod["spec"]["terminationGracePeriodSeconds"]
    if case == "cpu":
        need(ports(c) == {"http": 8501, "grpc": 8500}, "default ports: %r" % ports(c))
        need(ann["prometheus.io/scrape"] == "true" and ann["prometheus.io/port"] == "8501"
             and ann["prometheus.io/path"] == "/monitoring/prometheus/metrics", "scrape annotations: %r" % ann)
        need(grace == 5 + 10 + 30, "grace period %r" % grace)
        need("nvidia.com/gpu" not in limits, "no GPU on a CPU pod")
        need(hpa["metrics"][0]["resource"]["name"] == "cpu", "CPU autoscaling")
        need(hpa["minReplicas"] == 2 and hpa["maxReplicas"] == 10, "default replica bounds")
        claim = [v for v in pod["spec"]["volumes"] if v["name"] == "models"][0]
        need(claim["persistentVolumeClaim"]["claimName"] == "models", "the models claim is mounted")
        need('name: "resnet"' in by_kind["ConfigMap"]["data"]["models.config"], "model config from --model_name")
    elif case == "gpu":
        need(limits.get("nvidia.com/gpu") == 1, "GPU limit: %r" % limits)
        need(limits.get("cpu") == "4" and limits.get("memory") == "8Gi", "limits: %r" % limits)
        need("--device=gpu" in c["args"], "serve runs on the pod's GPU")
        need(c["image"] == "registry.example.com/tfhost:0.1.0-cuda", "image from --image")
        need(all(d["metadata"]["name"].startswith("resnet-gpu") for d in by_kind.values()), "--k8s_name")
    elif case == "queue":
        m = hpa["metrics"][0]
        need(m["type"] == "Pods" and m["pods"]["metric"]["name"] == "tfhost_serving_batch_queue_depth",
             "queue metric: %r" % m)
        need(m["pods"]["target"] == {"type": "AverageValue", "averageValue": "8"}, "queue target: %r" % m)
        need(hpa["minReplicas"] == 1 and hpa["maxReplicas"] == 4, "replica bounds")
        need("--enable_batching" in c["args"], "batching on in the pod")
        need(all(d["metadata"]["namespace"] == "ml" for d in by_kind.values()), "--k8s_namespace")
    elif case == "config":
        model_config, batching_config = extra
        data = by_kind["ConfigMap"]["data"]
        with open(model_config) as f:
            need(data["models.config"] == f.read(), "models.config is the file verbatim")
        with open(batching_config) as f:
            need(data["batching.config"] == f.read(), "batching.config is the file verbatim")
        need("enable: true" in data["monitoring.config"], "monitoring.config carried")
        need("--batching_parameters_file=/etc/tfhost/batching.config" in c["args"], "batching file mounted")
        need("--monitoring_config_file=/etc/tfhost/monitoring.config" in c["args"], "monitoring file mounted")
        need("--model_config_file_poll_wait_seconds=60" in c["args"], "other serve flags pass through")
        need(ports(c) == {"http": 9001, "grpc": 9000}, "ports from the flags: %r" % ports(c))
        svc_ports = {p["name"]: p["port"] for p in by_kind["Service"]["spec"]["ports"]}
        need(svc_ports == {"http": 9001, "grpc": 9000}, "Service ports: %r" % svc_ports)
        need(ann["prometheus.io/path"] == "/metrics" and ann["prometheus.io/port"] == "9001", "scrape: %r" % ann)
        need(grace == 5 + 25 + 30, "grace period %r" % grace)
    else:
        problems.append("unknown case " + case)


def main():
    version, case, path, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    docs = load(path)
    kinds = [d.get("kind") for d in docs]
    need(kinds == KINDS, "kinds %r, expected %r" % (kinds, KINDS))
    validate(docs, version)
    if not problems:
        check(case, {d["kind"]: d for d in docs}, extra)
    for p in problems:
        print("manifest check failed (%s): %s" % (case, p))
    if problems:
        sys.exit(1)
    print("%s: %d documents valid for Kubernetes %s" % (case, len(docs), version))


if __name__ == "__main__":
    main()
