#!/usr/bin/env bash
# `tfhost serve ... --emit k8s` for several flag combinations (CPU, GPU, the
# queue-depth autoscaler, a model config file with batching and monitoring
# configs written to a directory), each document validated against
# Kubernetes' schemas for KUBERNETES_VERSION (strict: unknown fields fail)
# and checked for the fields each combination must set.
#
# Usage: k8s_manifests_test.sh TFHOST_BINARY   (exit 77 = skipped, says why)
set -euo pipefail

tfhost="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# The release the manifests are written for (docs/kubernetes.md); the
# preStop sleep action they use needs 1.30 or newer.
kubernetes_version=1.31

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
venv="$("$root/scripts/python_env.sh" k8s)" \
  || skip "the Python environment of requirements/k8s.txt could not be made (scripts/python_env.sh k8s)"
"$venv/bin/python" -c "import kubernetes_validate" 2>/dev/null \
  || skip "kubernetes_validate is missing from $venv (requirements/k8s.txt pins it)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
check() { "$venv/bin/python" "$here/check_manifests.py" "$kubernetes_version" "$@"; }

echo "== cpu: one model from a claim, CPU autoscaling"
"$tfhost" serve --model_name resnet --model_base_path /models/resnet --models_pvc models \
  --emit k8s >"$work/cpu.yaml" || fail "emit (cpu) failed"
check cpu "$work/cpu.yaml" || fail "cpu manifests"

echo "== gpu: --device gpu, limits, a custom name and image"
"$tfhost" serve --model_base_path=/models/resnet --device=gpu --cpu_limit=4 --memory_request=4Gi \
  --memory_limit=8Gi --k8s_name=resnet-gpu --image=registry.example.com/tfhost:0.1.0-cuda \
  --emit=k8s >"$work/gpu.yaml" || fail "emit (gpu) failed"
check gpu "$work/gpu.yaml" || fail "gpu manifests"

echo "== queue: batching, the queue-depth autoscaler, a namespace"
"$tfhost" serve --model_base_path /models/resnet --enable_batching --hpa_metric queue --hpa_target 8 \
  --min_replicas 1 --max_replicas 4 --k8s_namespace ml --emit k8s >"$work/queue.yaml" || fail "emit (queue) failed"
check queue "$work/queue.yaml" || fail "queue manifests"

echo "== config: a model config file, batching and monitoring files, --emit_dir"
cat >"$work/models.config" <<'EOF'
model_config_list {
  config {
    name: "resnet"
    base_path: "/models/resnet"
    model_platform: "tensorflow"
  }
  config {
    name: "bert"
    base_path: "/models/bert"
    model_platform: "tensorflow"
    model_version_policy { all {} }
  }
}
EOF
cat >"$work/batching.config" <<'EOF'
max_batch_size { value: 32 }
batch_timeout_micros { value: 2000 }
num_batch_threads { value: 4 }
EOF
cat >"$work/monitoring.config" <<'EOF'
prometheus_config { enable: true path: "/metrics" }
EOF
"$tfhost" serve --model_config_file "$work/models.config" --model_config_file_poll_wait_seconds 60 \
  --batching_parameters_file "$work/batching.config" --monitoring_config_file "$work/monitoring.config" \
  --port 9000 --rest_api_port 9001 --shutdown_timeout_ms 25000 --models_pvc models \
  --emit k8s --emit_dir "$work/config" || fail "emit (config) failed"
check config "$work/config" "$work/models.config" "$work/batching.config" || fail "config manifests"

echo "== a bad flag writes nothing and names the flag"
if out="$("$tfhost" serve --model_base_path /models/m --emit k8s --min_replicas 3 --max_replicas 2 2>&1)"; then
  fail "min_replicas > max_replicas was accepted"
fi
grep -q -- "--min_replicas 3 is above --max_replicas 2" <<<"$out" || fail "unexpected error: $out"
echo "PASS"
