"""Writes one .npy file per input of a model's signature, so that every
`tfhost bench`/`tfhost run` of it in a benchmark is fed the same values, and
prints one NAME=FILE line per input (NAME being the graph tensor, e.g.
"input:0", "src:0", "r1i:0"), ready for `--input`.

  scripts/py bench/fast_cpu/make_inputs.py MODEL_DIR OUT_DIR [--frame N]
      [--tfhost BIN] [--signature NAME] [--seed N]

The inputs (tensor, dtype, shape) are what `tfhost inspect MODEL_DIR --json`
lists for the signature. Where the model has fixture reference inputs
(MODEL_DIR/reference/reference.json, as the TF.js fixture models do), an
input takes that frame's values, so figures stay comparable with earlier
runs and with the fixtures' reference outputs. --frame defaults to the last
frame: for rvm that is frame 1, whose recurrent states r1i..r4i are frame
0's outputs (frame 0 starts them as zero scalars) and whose
downsample_ratio is 0.5, as the fixtures' README says. Any other input is
seeded random, as `tfhost bench` synthesizes it: uniform [0, 1) floats,
integers 0..9, a leading unknown dim of 1; other unknown dims are an error.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


def fail(msg):
    sys.exit(f"make_inputs.py: {msg}")


def signature_inputs(tfhost, model_dir, name):
    out = subprocess.run([tfhost, "inspect", str(model_dir), "--json"], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    signatures = json.loads(out)["signatures"]
    if name is None:
        name = "serving_default" if "serving_default" in signatures or len(signatures) != 1 else next(iter(signatures))
    if name not in signatures:
        fail(f"{model_dir} has no signature '{name}' (it has: {', '.join(signatures) or 'none'})")
    return signatures[name]["inputs"]


def reference_frame(model_dir, frame):
    """The reference directory and the chosen frame's inputs, or (None, [])."""
    ref_dir = model_dir / "reference"
    ref_file = ref_dir / "reference.json"
    if not ref_file.exists():
        if frame is not None:
            fail(f"--frame {frame}: {ref_file} does not exist")
        return None, []
    frames = json.loads(ref_file.read_text(encoding="utf-8")).get("frames", [])
    if not frames:
        fail(f"{ref_file} lists no frames")
    f = len(frames) - 1 if frame is None else frame
    if f >= len(frames):
        fail(f"--frame {f}: {ref_file} has {len(frames)} frame(s)")
    return ref_dir, frames[f]["inputs"]


def from_reference(ref_dir, entry):
    dtype = np.dtype(entry["dtype"]).newbyteorder("<")
    data = np.fromfile(ref_dir / entry["file"], dtype=dtype)
    shape = tuple(entry["shape"])
    if data.size != int(np.prod(shape, dtype=np.int64)):
        fail(f"{entry['file']}: {data.size} values, expected {int(np.prod(shape))} for shape {list(shape)}")
    return data.reshape(shape)


def synthesized(spec, rng):
    if spec["shape"] is None:
        fail(f"input '{spec['key']}' has an unknown shape; give the model reference inputs")
    shape = list(spec["shape"])
    for i, d in enumerate(shape):
        if d < 0:
            if i > 0:
                fail(f"input '{spec['key']}' has unknown dim {i} in shape {spec['shape']}")
            shape[i] = 1
    dtype = spec["dtype"]
    if dtype in ("float16", "float32", "float64"):
        return rng.random(shape, dtype=np.float32).astype(dtype)
    if dtype == "bool":
        return rng.integers(0, 10, shape) < 5
    if re.fullmatch(r"u?int(8|16|32|64)", dtype):
        return rng.integers(0, 10, shape).astype(dtype)
    fail(f"cannot synthesize values for input '{spec['key']}' of dtype {dtype}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model_dir", type=pathlib.Path)
    p.add_argument("out_dir", type=pathlib.Path)
    p.add_argument("--frame", type=int, help="reference frame (default: the last)")
    p.add_argument("--tfhost", default=os.environ.get("TFHOST", str(ROOT / "build" / "tfhost")),
                   help="the tfhost binary (default: $TFHOST, else build/tfhost)")
    p.add_argument("--signature", help="default: serving_default, or the model's only signature")
    p.add_argument("--seed", type=int, default=1, help="seed of the synthesized inputs (default: 1)")
    args = p.parse_args()
    if args.frame is not None and args.frame < 0:
        fail("--frame must be a non-negative integer")

    inputs = signature_inputs(args.tfhost, args.model_dir, args.signature)
    ref_dir, ref_inputs = reference_frame(args.model_dir, args.frame)
    # Reference entries name the graph tensor ("src:0") and the signature key.
    by_name = {}
    for entry in ref_inputs:
        by_name[entry["graphTensor"]] = entry
        by_name.setdefault(entry["name"], entry)
    used = set()
    rng = np.random.default_rng(args.seed)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for spec in inputs:
        entry = by_name.get(spec["tensor"]) or by_name.get(spec["key"])
        if entry is not None:
            used.add(entry["graphTensor"])
            value = from_reference(ref_dir, entry)
        else:
            value = synthesized(spec, rng)
        path = args.out_dir / (re.sub(r"[:/]", "_", spec["tensor"]) + ".npy")
        np.save(path, value, allow_pickle=False)
        print(f"{spec['tensor']}={path}")
    # A reference input that matches no signature input means the reference
    # belongs to another model or the signature changed: stop rather than
    # benchmark on different inputs than the fixtures' outputs were made from.
    unused = [e["graphTensor"] for e in ref_inputs if e["graphTensor"] not in used]
    if unused:
        fail(f"reference inputs {', '.join(unused)} match no input of the signature")


if __name__ == "__main__":
    main()
