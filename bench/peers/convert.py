"""Converts one exported SavedModel for one peer runtime, the way that
runtime's documentation tells users to:

  scripts/py bench/peers/convert.py {onnxruntime|openvino|litert} MODEL

  onnxruntime  tf2onnx's command line on the SavedModel (serving_default)
  openvino     ov.convert_model on the SavedModel directory, saved as IR with
               float32 weights (save_model compresses to float16 unless told
               not to, which would put an error into the cross-check that is
               the saving's, not the runtime's)
  litert       tf.lite.TFLiteConverter.from_saved_model, built-in ops only
               (what the XNNPACK path runs), no optimisations: float32

Writes the converted file (common.CONVERTED) beside the SavedModel and
convert_<runtime>.json with ok, seconds and, on failure, a short reason and
the log's tail. bench.py runs each conversion in its own process so that a
converter that crashes or hangs is recorded as failed, not fatal. Exits 0
either way; the JSON says what happened.
"""
import os
import subprocess
import sys
import tempfile
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import common  # noqa: E402

ONNX_OPSET = 17


def to_onnx(sm, out):
    # The command line is tf2onnx's documented SavedModel path; its stderr
    # carries the reason when an op has no ONNX counterpart.
    cmd = [sys.executable, "-m", "tf2onnx.convert", "--saved-model", str(sm), "--signature_def",
           "serving_default", "--tag", "serve", "--opset", str(ONNX_OPSET), "--output", str(out)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = p.stdout
    # tf2onnx can write a model and still report ops it could not convert.
    bad = [l for l in log.splitlines() if "Unsupported ops" in l or "is not supported" in l]
    if p.returncode != 0 or not out.exists():
        raise RuntimeError(log)
    if bad:
        raise RuntimeError("\n".join(bad))
    return log


def to_openvino(sm, out):
    import openvino as ov
    model = ov.convert_model(str(sm))
    out.parent.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, str(out), compress_to_fp16=False)
    return ""


def to_litert(sm, out):
    import tensorflow as tf
    conv = tf.lite.TFLiteConverter.from_saved_model(str(sm), signature_keys=["serving_default"])
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    conv.optimizations = []
    out.write_bytes(conv.convert())
    return ""


CONVERTERS = {"onnxruntime": to_onnx, "openvino": to_openvino, "litert": to_litert}


def main(runtime, model):
    mdir = common.model_dir(model)
    out = mdir / common.CONVERTED[runtime]
    status = mdir / f"convert_{runtime}.json"
    t0 = time.time()
    # The converters' C++ parts print the telling line (which ops are
    # missing) on file descriptor 2, not into the exception; it is captured
    # to read the reason from, and passed on to this process's log.
    with tempfile.TemporaryFile() as cap:
        saved = os.dup(2)
        os.dup2(cap.fileno(), 2)
        try:
            CONVERTERS[runtime](mdir / "saved_model", out)
            result = {"ok": True}
        except BaseException as e:  # noqa: BLE001 - any failure is a table entry
            text = str(e) if isinstance(e, RuntimeError) else traceback.format_exc()
            result = {"ok": False, "error": text}
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            cap.seek(0)
            captured = cap.read().decode("utf-8", "replace")
    sys.stderr.write(captured)
    if not result["ok"]:
        text = result.pop("error") + "\n" + captured
        result.update(reason=common.short_reason(text), log_tail=text[-4000:])
        if out.exists():
            out.unlink()
    result["seconds"] = round(time.time() - t0, 1)
    if result["ok"]:
        files = list(out.parent.iterdir()) if runtime == "openvino" else [out]
        result["bytes"] = sum(f.stat().st_size for f in files)
    common.write_json(status, result)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in CONVERTERS or sys.argv[2] not in common.MODELS:
        sys.exit(f"usage: convert.py {{{'|'.join(CONVERTERS)}}} {{{'|'.join(common.MODELS)}}}")
    main(sys.argv[1], sys.argv[2])
