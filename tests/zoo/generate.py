#!/usr/bin/env python3
"""Writes the model zoo: SavedModels plus TensorFlow's own outputs for fixed
inputs, laid out as tests/zoo/README.md describes.

    scripts/py tests/zoo/generate.py --out DIR [--only NAME,...] [--jobs N]
    scripts/py tests/zoo/generate.py --list

Each model is built, exported and run on its own; one that fails is reported
and the rest are still written, but the exit status is then non-zero. The
files written do not depend on --jobs or --only: every model starts from the
same seeds and process state.

After the models, DIR/tfserving/ receives equivalents of TF Serving's own
test models (tfserving_models.py), which the serving tests use where
the third-party fixtures (TFHOST_FIXTURES) are absent; --only includes them only when it names
"tfserving".
"""
import argparse
import multiprocessing
import os
import shutil
import sys
import time
import traceback
from concurrent import futures

# Before TensorFlow loads: its C++ INFO/WARNING lines would bury the timings.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# Keras 3 must stay tf.keras for everything but the tf_keras models, which
# import tf_keras by name; tensorflow_model_optimization flips this variable.
os.environ.pop("TF_USE_LEGACY_KERAS", None)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

# Bind tf.keras to Keras 3 now: tensorflow_model_optimization sets
# TF_USE_LEGACY_KERAS when imported, which would otherwise decide it later.
assert tf.keras.__version__.startswith("3."), tf.keras.__version__

import tfserving_models  # noqa: E402
import zoo_lib  # noqa: E402
from models import ALL_MODULES  # noqa: E402,F401  (importing registers the models)

tf.get_logger().setLevel("ERROR")

SEED = 0
TFSERVING = "tfserving"  # --only name of the TF Serving test model equivalents (DIR/tfserving/)


def _reset_globals():
    """Each model starts from the same process state, whatever ran before it,
    so --only NAME writes the same files as a full run."""
    keras.mixed_precision.set_global_policy("float32")
    keras.config.set_floatx("float32")
    keras.backend.clear_session()
    if "tf_keras" in sys.modules:
        tfk = sys.modules["tf_keras"]
        tfk.mixed_precision.set_global_policy("float32")
        tfk.backend.clear_session()
    tf.compat.v1.enable_control_flow_v2()
    os.environ.pop("TF_USE_LEGACY_KERAS", None)
    keras.utils.set_random_seed(SEED)


def _one(zoo, entry):
    model_dir = os.path.join(zoo, entry.name)
    shutil.rmtree(model_dir, ignore_errors=True)
    export_dir = os.path.join(model_dir, zoo_lib.VERSION)
    os.makedirs(model_dir)
    _reset_globals()
    t0 = time.monotonic()
    try:
        io = entry.fn(zoo_lib.Ctx(export_dir, SEED))
    finally:
        _reset_globals()
    t1 = time.monotonic()
    if not os.path.isfile(os.path.join(export_dir, "saved_model.pb")):
        raise RuntimeError(f"{entry.name}: no saved_model.pb under {export_dir}")
    # Scratch files (vocabularies) go before TensorFlow loads the model, so a
    # SavedModel that still points at them instead of its assets/ fails here.
    zoo_lib.clean_scratch(zoo, entry.name)
    manifest_entry = zoo_lib.write_reference(zoo, entry, io)
    return manifest_entry, t1 - t0, time.monotonic() - t1


def _work(zoo, name):
    """One model, in whichever process runs it; errors come back as text."""
    entry = zoo_lib.REGISTRY[name]
    try:
        m, build_s, ref_s = _one(zoo, entry)
        return name, m, build_s, ref_s, None
    except Exception:  # noqa: BLE001 - one broken model must not stop the others
        shutil.rmtree(os.path.join(zoo, name), ignore_errors=True)
        return name, None, 0.0, 0.0, traceback.format_exc()


def _run_all(zoo, names, jobs):
    if jobs <= 1:
        for name in names:
            yield _work(zoo, name)
        return
    # Fresh interpreters (spawn): TensorFlow's runtime does not survive fork.
    # Tracing and saving are single-threaded Python, so a second process is
    # what puts a second core to work. A worker that dies (killed for memory)
    # breaks the pool; its models and the unstarted ones are then reported as
    # failed instead of being waited for forever.
    ctx = multiprocessing.get_context("spawn")
    with futures.ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
        pending = {pool.submit(_work, zoo, name): name for name in names}
        for done in futures.as_completed(pending):
            try:
                yield done.result()
            except futures.process.BrokenProcessPool as e:
                yield pending[done], None, 0.0, 0.0, f"worker process died: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="zoo folder to write")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 4),
                    help="models generated at once, one process each (default: CPUs, at most 4)")
    ap.add_argument("--list", action="store_true", help="print the registered models and exit")
    args = ap.parse_args()
    if args.list:
        for e in zoo_lib.REGISTRY.values():
            print(f"{e.name:28} {e.family:20} {e.what}")
        print(f"{TFSERVING:28} {'tfserving':20} TF Serving's test models, equivalents (tfserving_models.py)")
        return 0
    if not args.out:
        ap.error("--out is required")
    only = [n for n in args.only.split(",") if n]
    with_tfserving = not only or TFSERVING in only
    names = [n for n in only if n != TFSERVING] if only else list(zoo_lib.REGISTRY)
    unknown = [n for n in names if n not in zoo_lib.REGISTRY]
    if unknown:
        ap.error(f"unknown models: {', '.join(unknown)}")

    os.makedirs(args.out, exist_ok=True)
    done, failed = {}, []
    start = time.monotonic()
    for name, m, build_s, ref_s, error in _run_all(args.out, names, min(args.jobs, len(names))):
        if error:
            failed.append(name)
            print(f"[zoo] {name:28} FAILED\n{error}", flush=True)
            continue
        done[name] = m
        sigs = ",".join(s["key"] for s in m["signatures"])
        print(f"[zoo] {name:28} {build_s + ref_s:6.1f}s  (export {build_s:.1f}s, "
              f"reference {ref_s:.1f}s)  {sigs}", flush=True)
    # The order asked for (registry order by default), not the finishing order.
    zoo_lib.write_manifest(args.out, [done[n] for n in names if n in done])
    if with_tfserving:
        t0 = time.monotonic()
        out = os.path.join(args.out, TFSERVING)
        try:
            written = tfserving_models.write_all(out)
            print(f"[zoo] {TFSERVING:28} {time.monotonic() - t0:6.1f}s  {', '.join(written)}", flush=True)
        except Exception:  # noqa: BLE001 - reported like a failed model
            shutil.rmtree(out, ignore_errors=True)
            failed.append(TFSERVING)
            print(f"[zoo] {TFSERVING:28} FAILED\n{traceback.format_exc()}", flush=True)
    total = time.monotonic() - start
    print(f"[zoo] {len(done)} models written to {args.out} in {total:.1f}s", flush=True)
    if failed:
        print(f"[zoo] FAILED: {', '.join(failed)}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
