#!/usr/bin/env bash
# The CUDA backend's device check: one prepared run on a GPU machine that has
# no network and none of the build's -dev libraries (docs/backends.md).
#
#   scripts/gpu_check.sh pack [BUILD]   here, after `make build` and `make dist`
#   scripts/gpu_check.sh run [OUTDIR]   there, from the repository's root
#
# pack writes gpu_check/bundle.tar.xz (gpu_check/ is ignored by git; the
# device tool carries it) holding tfhost and every shared library it loads
# (make dist's tarball), the CUDA plugin, op_conformance_test and zoo_test
# (stripped), and the zoo's models that fit, with TensorFlow's outputs for
# them and a manifest that lists only those. It says how big the bundle is:
# the tree and the bundle must travel within 64 MiB.
#
# run finds the machine's CUDA libraries (cudart, cuBLASLt, cuDNN 9 and the
# sub-libraries it dlopens: the toolkit's, or PyTorch's wheels'), puts their
# folders on LD_LIBRARY_PATH (cuDNN never travels in the bundle: too big),
# unpacks the bundle under /tmp and runs these steps, each with a time limit, in
# about 8 minutes at most; a failing step never stops the rest:
#   1. nvidia-smi -L and tfhost probe: the GPU, and what the plugin made of it;
#   2. every conformance case the CUDA backend takes, on the GPU against the
#      CPU reference, fp32-strict (tests/conformance);
#   3. the packed zoo models on the GPU (with the host backends for the rest)
#      against TensorFlow's outputs, fp32-strict (tests/zoo);
#   4. a GEMM roofline: chains of N x N matrix products through `tfhost
#      bench --device gpu`, TF32 (the default) and fp32-strict, beside
#      PyTorch's torch.mm on the same GPU in the same run;
#   5. ResNet-50 and BERT-base, made there by PyTorch (scripts/gpu_models.py:
#      torchvision's and transformers' models when they import, else the same
#      networks from torch.nn layers; random weights, the figures are speeds):
#      exported to ONNX on the CPU, then PyTorch eager timed on the GPU
#      (ResNet-50 channels_last at batch 1/32/256, BERT-base at sequence 128
#      and batch 1/32, fp32 with TF32 and bf16 autocast);
#   6. `tfhost bench MODEL.onnx --device gpu` on the same settings in fp32 and
#      bf16 (fp16: tfhost has no such precision yet, and the table says so),
#      batch 256 last, skipped when the time is spent;
#   7. the table of both (scripts/gpu_perf_table.py).
# Every step's limit is cut to what is left of the run's GPU_CHECK_DEADLINE_S
# (default 480 s); a step with under 10 s left is skipped, saying so.
# Without torch in python3 (GPU_CHECK_PYTHON names another) or without a
# GPU for it, steps 5-6 say so and end at once (GPU_CHECK_FORCE_MODELS=1
# exports and benches all the same: a check of the paths without a GPU).
# OUTDIR (default $OUT, else gpu_check/out) gets summary.txt and one log per
# step; summary.txt is what goes into the issue note and docs/perf.md.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-}"

pack() {
  local build="${1:-$root/build}" zoo_max_kb=1024
  local tarball stage zoo
  tarball="$("$root/scripts/make_dist.sh" --print-path --build-dir "$build")" || exit 1
  [ -f "$tarball" ] || { echo "gpu_check: no $tarball; run make dist first" >&2; exit 1; }
  for f in "$build/libtfhost_cuda.so" "$build/tests/conformance/op_conformance_test" "$build/tests/zoo/zoo_test"; do
    [ -f "$f" ] || { echo "gpu_check: no $f; build it first (the CUDA toolkit must be found)" >&2; exit 1; }
  done
  zoo="$(cd "$root" && bash tests/zoo/zoo_dir.sh 2>/dev/null)" || zoo=""
  stage="$(mktemp -d)"
  trap 'rm -rf "$stage"' RETURN
  tar xzf "$tarball" -C "$stage"
  mv "$stage"/tfhost-* "$stage/tfhost"
  cp "$build/libtfhost_cuda.so" "$stage/tfhost/lib/"
  mkdir -p "$stage/tests"
  cp "$build/tests/conformance/op_conformance_test" "$build/tests/zoo/zoo_test" "$stage/tests/"
  strip "$stage/tfhost/bin/tfhost" "$stage/tests/"* 2>/dev/null
  if [ -n "$zoo" ] && [ -f "$zoo/manifest.json" ]; then
    mkdir -p "$stage/zoo"
    # The zoo's small models (each folder at most zoo_max_kb), and a manifest of them alone.
    python3 - "$zoo" "$stage/zoo" "$zoo_max_kb" <<'PY'
import json, os, shutil, subprocess, sys
src, dst, max_kb = sys.argv[1], sys.argv[2], int(sys.argv[3])
manifest = json.load(open(os.path.join(src, "manifest.json")))
kept = []
for m in manifest["models"]:
    kb = int(subprocess.check_output(["du", "-sk", os.path.join(src, m["path"])]).split()[0])
    if kb <= max_kb:
        shutil.copytree(os.path.join(src, m["path"]), os.path.join(dst, m["path"]))
        kept.append(m)
manifest["models"] = kept
json.dump(manifest, open(os.path.join(dst, "manifest.json"), "w"))
print(f"gpu_check: {len(kept)} zoo models of at most {max_kb} KiB")
PY
  else
    echo "gpu_check: no zoo in the cache (tests/zoo/zoo_dir.sh --ensure makes it); packing none"
  fi
  mkdir -p "$root/gpu_check"
  tar cf - -C "$stage" . | xz -T0 -6 > "$root/gpu_check/bundle.tar.xz"
  local tree_kb bundle_kb
  bundle_kb=$(du -k "$root/gpu_check/bundle.tar.xz" | cut -f1)
  tree_kb=$(cd "$root" && git ls-files -co --exclude-standard -z | du -ck --files0-from=- 2>/dev/null | tail -1 | cut -f1)
  echo "gpu_check: gpu_check/bundle.tar.xz is $((bundle_kb / 1024)) MiB; with the tree's $((tree_kb / 1024)) MiB," \
       "$(((bundle_kb + tree_kb) / 1024)) of the 64 MiB that may travel"
  [ $((bundle_kb + tree_kb)) -le $((64 * 1024)) ] || { echo "gpu_check: too big to travel" >&2; exit 1; }
}

# The GEMM chain graph: y0 = A * x, y(i+1) = y(i) B (L products of N x N),
# out = y(L) v. The constant folding pass turns the Fills into Consts, which
# are uploaded once, so a run moves almost nothing between host and GPU.
gemm_graph() {  # N L FILE
  local n="$1" l="$2" i
  local t="attr { key: 'T' value { type: DT_FLOAT } }"
  local it="attr { key: 'index_type' value { type: DT_INT32 } }"
  {
    echo "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: 1 } dim { size: 1 } } } } }"
    echo "node { name: 'nn' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: $n int_val: $n } } } }"
    echo "node { name: 'n1' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: $n int_val: 1 } } } }"
    echo "node { name: 'one' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }"
    echo "node { name: 'inv' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: $(python3 -c "print(1/$n)") } } } }"
    echo "node { name: 'a' op: 'Fill' input: 'nn' input: 'one' $t $it }"
    echo "node { name: 'b' op: 'Fill' input: 'nn' input: 'inv' $t $it }"
    echo "node { name: 'v' op: 'Fill' input: 'n1' input: 'inv' $t $it }"
    echo "node { name: 'y0' op: 'Mul' input: 'a' input: 'x' $t }"
    for ((i = 0; i < l; i++)); do echo "node { name: 'y$((i + 1))' op: 'MatMul' input: 'y$i' input: 'b' $t }"; done
    echo "node { name: 'out' op: 'MatMul' input: 'y$l' input: 'v' $t }"
  } > "$3"
}

run() {
  local outdir="${1:-${OUT:-$root/gpu_check/out}}" unpack=/tmp/tfhost_gpu_check
  mkdir -p "$outdir"
  local summary="$outdir/summary.txt"
  : > "$summary"
  say() { echo "$*" | tee -a "$summary"; }
  local deadline="${GPU_CHECK_DEADLINE_S:-480}"
  left() { echo $((deadline - SECONDS)); }
  step() {  # step NAME SECONDS COMMAND...: output to OUTDIR/NAME.log, exit status to the summary
    local name="$1" secs="$2"
    shift 2
    # No step outlives the run's deadline; 124 is timeout's own status.
    [ "$secs" -le "$(left)" ] || secs=$(left)
    if [ "$secs" -lt 10 ]; then
      say "$name: skipped, the run's $deadline s are spent" | tee "$outdir/$name.log"
      return 124
    fi
    local t0=$SECONDS rc why=""
    timeout -k 10 "$secs" "$@" > "$outdir/$name.log" 2>&1
    rc=$?
    [ "$rc" -eq 124 ] && why=" (its limit of $secs s)"
    say "$name: exit $rc in $((SECONDS - t0)) s$why"
    return $rc
  }
  gtest_summary() {  # LOG: how many ran and passed, and the first 40 that failed or skipped
    grep -E "tests? from .* ran|^\[  PASSED  \]" "$1" | sed 's/^/  /' | tee -a "$summary"
    grep -E "^\[  (FAILED|SKIPPED) +\] [A-Za-z]" "$1" | sort -u | head -40 | sed 's/^/  /' | tee -a "$summary"
  }
  [ -f "$root/gpu_check/bundle.tar.xz" ] || { say "no gpu_check/bundle.tar.xz: run 'scripts/gpu_check.sh pack' first and carry gpu_check"; exit 2; }
  rm -rf "$unpack" && mkdir -p "$unpack" && xz -dc "$root/gpu_check/bundle.tar.xz" | tar xf - -C "$unpack"
  local tfhost="$unpack/tfhost/bin/tfhost" lib="$unpack/tfhost/lib" cudnn_dir=""
  export TFHOST_PLUGIN_PATH="$lib"
  # The plugin loads CUDA's own libraries (cudart, cublasLt, cuDNN) from the
  # machine, not from the bundle (cuDNN alone is far over the 64 MiB that may
  # travel): the toolkit's folder, or the ones PyTorch's wheels bring
  # (site-packages/nvidia/*/lib; Python says where its nvidia.cudnn is, the
  # search below finds the rest). cuDNN 9 dlopens its sub-libraries
  # (graph, engines, ops, cnn, heuristic) from the folder of libcudnn.so.9,
  # so that folder goes on LD_LIBRARY_PATH too.
  local cuda_dirs="" name found roots="/usr/local/cuda/lib64 /usr/local/cuda/targets /usr/local /opt /usr/lib /root"
  local py_cudnn
  py_cudnn="$(python3 -c 'import importlib.util as u; s = u.find_spec("nvidia.cudnn"); print(list(s.submodule_search_locations)[0] + "/lib")' 2>/dev/null)"
  [ -d "$py_cudnn" ] && roots="$py_cudnn $roots"
  for name in libcudart.so.13 libcublasLt.so.13 libcudnn.so.9; do
    found="$(find $roots -name "$name" 2>/dev/null | head -1)"
    [ -n "$found" ] || continue
    case ":$cuda_dirs:" in *":$(dirname "$found"):"*) ;; *) cuda_dirs="${cuda_dirs:+$cuda_dirs:}$(dirname "$found")" ;; esac
    [ "$name" = libcudnn.so.9 ] && cudnn_dir="$(dirname "$found")"
  done
  export LD_LIBRARY_PATH="${cuda_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "tfhost device check, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  say "CUDA libraries from: ${cuda_dirs:-none found (the plugin will say what it misses)}"
  if [ -n "${cudnn_dir:-}" ]; then
    local missing=""
    for name in libcudnn_graph.so.9 libcudnn_engines_precompiled.so.9 libcudnn_engines_runtime_compiled.so.9 \
                libcudnn_ops.so.9 libcudnn_cnn.so.9 libcudnn_heuristic.so.9; do
      [ -e "$cudnn_dir/$name" ] || missing="$missing $name"
    done
    say "cuDNN from: $cudnn_dir${missing:+ (missing:$missing; convolutions will fail when cuDNN loads them)}"
  else
    say "cuDNN: libcudnn.so.9 not found (the plugin will not load; see probe)"
  fi

  # 1. The machine.
  step nvidia-smi 20 nvidia-smi -L && sed 's/^/  /' "$outdir/nvidia-smi.log" >> "$summary"
  step probe 60 "$tfhost" probe
  grep -E "cuda plugin|cuda:[0-9]" "$outdir/probe.log" | sed 's/^/  /' | tee -a "$summary"

  # 2. Kernels against the CPU reference.
  step conformance 180 env LD_LIBRARY_PATH="$lib:$LD_LIBRARY_PATH" TFHOST_CONFORMANCE_DEVICE=gpu \
    TFHOST_CONFORMANCE_CASES="$root/tests/conformance/cases" \
    TFHOST_CONFORMANCE_KNOWN_FAILURES="$root/tests/conformance/known_failures.txt" \
    "$unpack/tests/op_conformance_test" "--gtest_filter=*cuda_0:*RequestedDeviceIsUsable" --gtest_brief=1
  gtest_summary "$outdir/conformance.log"

  # 3. Models against TensorFlow's outputs.
  if [ -f "$unpack/zoo/manifest.json" ]; then
    step zoo 180 env LD_LIBRARY_PATH="$lib:$LD_LIBRARY_PATH" TFHOST_ZOO_DIR="$unpack/zoo" TFHOST_ZOO_DEVICE=gpu \
      TFHOST_ZOO_KNOWN_FAILURES="$root/tests/zoo/known_failures.txt" \
      "$unpack/tests/zoo_test" "--gtest_filter=Zoo.*" --gtest_brief=1
    gtest_summary "$outdir/zoo.log"
  else
    say "zoo: none packed"
  fi

  # 4. GEMM roofline, tfhost then PyTorch, same GPU, same run.
  local n
  for n in 4096 8192; do
    gemm_graph "$n" 8 "$unpack/gemm_$n.pbtxt"
    local p
    for p in fp32 fp32-strict; do
      step "gemm_${n}_$p" 90 "$tfhost" bench "$unpack/gemm_$n.pbtxt" --device gpu --shape x=1,1 --precision "$p" \
        --runs 20 --warmup 3
      awk -v tag="tfhost $p N=$n" '$1 == 1 && NF >= 10 { printf "  %s: p50 %s ms, %.1f TFLOP/s\n", tag, $4, $10 / 1000 }' \
        "$outdir/gemm_${n}_$p.log" | tee -a "$summary"
    done
  done
  step torch_gemm 90 "${GPU_CHECK_PYTHON:-python3}" - <<'PY'
import torch, time
for n in (4096, 8192):
    for tf32 in (True, False):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.ones(n, n, device="cuda")
        b = torch.full((n, n), 1.0 / n, device="cuda")
        for _ in range(3):
            a = torch.mm(a, b)
        torch.cuda.synchronize()
        reps = 8 * 20
        t0 = time.perf_counter()
        for _ in range(reps):
            a = torch.mm(a, b)
        torch.cuda.synchronize()
        dt = (time.perf_counter() - t0) / reps
        print(f"torch {'tf32' if tf32 else 'fp32-strict'} N={n}: {dt * 1e3:.3f} ms per product, "
              f"{2 * n ** 3 / dt / 1e12:.1f} TFLOP/s")
PY
  sed 's/^/  /' "$outdir/torch_gemm.log" | tee -a "$summary"

  # 5-7. ResNet-50 and BERT-base: PyTorch against tfhost.
  models "$tfhost" "$unpack/models"
  say "done in $SECONDS s; logs in $outdir"
}

# Steps 5-7 of run (it defines say, step, left, outdir and summary).
models() {  # TFHOST MODELDIR
  local tfhost="$1" dir="$2" py="${GPU_CHECK_PYTHON:-python3}"
  local torch_budget="${GPU_CHECK_TORCH_BUDGET_S:-75}" tfhost_budget="${GPU_CHECK_TFHOST_BUDGET_S:-150}"
  local gm="$root/scripts/gpu_models.py" probe_out
  rm -rf "$dir" && mkdir -p "$dir"
  # One quick look first, so that a machine without torch or without a GPU
  # says so at once instead of exporting models nothing will run.
  probe_out="$(timeout -k 5 60 "$py" -c 'import torch; print(torch.__version__, torch.cuda.is_available())' 2>&1 | tail -1)"
  case "$probe_out" in
    *" True") say "models: $py has torch ${probe_out% True} and a GPU for it" ;;
    *" False")
      if [ -z "${GPU_CHECK_FORCE_MODELS:-}" ]; then
        say "models: $py has torch ${probe_out% False} but no GPU for it (torch.cuda.is_available() is False):" \
            "ResNet-50 and BERT-base are not made, PyTorch is not timed, tfhost is not benched"
        return 0
      fi
      say "models: no GPU for torch ${probe_out% False}; GPU_CHECK_FORCE_MODELS is set, so the steps run anyway" ;;
    *)
      say "models: $py cannot import torch ($probe_out): ResNet-50 and BERT-base are not made," \
          "PyTorch is not timed, tfhost is not benched"
      return 0 ;;
  esac

  # 5. The ONNX files (on the CPU), then PyTorch's own timing on the GPU.
  # At opset 17 BERT's nn.LayerNorm is one LayerNormalization, which tfhost
  # maps to its fused layer norm.
  step torch_export 120 "$py" "$gm" --export-only --out "$dir" --opset 17
  python3 - "$outdir/torch_export.log" <<'PY' | tee -a "$summary"
import json, sys
for line in open(sys.argv[1], errors="replace"):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if not isinstance(r, dict):
        continue
    if r["event"] == "model":
        print(f"  {r['model']}: {r['impl']}, {r['params']:,} parameters, {r['weights']}")
    elif r["event"] == "export" and r["ok"]:
        print(f"  {r['model']}.onnx: opset {r['opset']}, {r['bytes'] / 2**20:.0f} MiB in {r['seconds']} s"
              + (f" ({r['note']})" if "note" in r else ""))
    elif r["event"] in ("export", "error"):
        print(f"  {r.get('model', '')} export failed: {r['error']}")
PY
  step torch_time $((torch_budget + 45)) "$py" "$gm" --time-only --device cuda --budget-s "$torch_budget"
  grep -E '"event": "(env|error)"' "$outdir/torch_time.log" | cut -c1-400 | sed 's/^/  /' | tee -a "$summary"

  # 6. tfhost on the same settings, most wanted first: batch 256 goes when time is short.
  local spec model precision batches runs warmup t0=$SECONDS need secs
  for spec in "resnet50 fp32 1,32 20 3" "bert_base fp32 1,32 20 3" "resnet50 bf16 1,32 20 3" \
              "bert_base bf16 1,32 20 3" "resnet50 fp32 256 8 2" "resnet50 bf16 256 8 1"; do
    read -r model precision batches runs warmup <<< "$spec"
    local name="tfhost_bench-$model-$precision-b${batches//,/_}"
    if [ ! -f "$dir/$model.onnx" ]; then
      say "$name: skipped, no $model.onnx (see torch_export)"
      continue
    fi
    need=20
    [ "$batches" = 256 ] && need=30
    secs=$((tfhost_budget - (SECONDS - t0)))
    [ "$secs" -le 75 ] || secs=75
    if [ "$secs" -lt "$need" ] || [ "$(left)" -lt $((need + 10)) ]; then
      say "$name: skipped, $((tfhost_budget - (SECONDS - t0))) s left of tfhost's $tfhost_budget s and $(left) s of the run's"
      continue
    fi
    step "$name" "$secs" "$tfhost" bench "$dir/$model.onnx" --device gpu --batch "$batches" --threads 0 \
      --precision "$precision" --runs "$runs" --warmup "$warmup" --json
  done
  say "fp16: not measured: tfhost bench --precision takes fp32, fp32-strict and bf16 only (no fp16 path yet)"
  # Where the nodes went (GPU, host backends, copies) and where the time goes,
  # at batch 1: what explains the figures above, bf16's above all (a node the
  # CUDA backend declines runs on the host). Only with time to spare.
  for spec in "resnet50 fp32" "resnet50 bf16" "bert_base fp32" "bert_base bf16"; do
    read -r model precision <<< "$spec"
    [ -f "$dir/$model.onnx" ] || continue
    local name="tfhost_profile-$model-$precision"
    if [ "$(left)" -lt 45 ]; then
      say "$name: skipped, $(left) s left of the run's"
      continue
    fi
    step "$name" 30 "$tfhost" bench "$dir/$model.onnx" --device gpu --batch 1 --threads 0 \
      --precision "$precision" --runs 3 --warmup 2 --profile
    grep -A7 -E "^  placement:" "$outdir/$name.log" | sed 's/^/  /' | tee -a "$summary"
  done

  # 7. The table.
  say "ResNet-50 and BERT-base, tfhost against PyTorch eager, same GPU, same run:"
  python3 "$root/scripts/gpu_perf_table.py" "$outdir" 2>&1 | sed 's/^/  /' | tee -a "$summary"
}

case "$mode" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: scripts/gpu_check.sh pack [BUILD] | run [OUTDIR]" >&2; exit 2 ;;
esac
