"""Runs one Python runtime on one model in this process, and nothing else:

  python bench/peers/worker.py RUNTIME MODEL --batch B --threads N
      --runs R --warmup W --spawned T --out RESULT.json [--save-outputs DIR]

RUNTIME is tensorflow, onnxruntime, openvino or litert. --spawned is the
parent's time.time() just before it started this process, so the cold start
(process start to first result: interpreter, imports, model load, first
inference) is measured the way a user waits for it. Only the chosen
runtime's library is imported. Writes RESULT.json with every latency; the
parent adds peak RSS from the process's rusage. Exits non-zero on failure
with the reason on stderr.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

import common  # noqa: E402


def tensorflow_runner(model, inputs, threads):
    import tensorflow as tf
    # Must precede anything that creates TensorFlow's thread pools. One
    # inter-op thread: the setting's thread count is then all TensorFlow uses,
    # as it is for tfhost's --threads.
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    fn = tf.saved_model.load(str(common.model_dir(model) / "saved_model")).signatures["serving_default"]
    feeds = {k: tf.constant(v) for k, v in inputs.items()}

    def run():
        return {k: v.numpy() for k, v in fn(**feeds).items()}
    return run, {"intra_op": threads, "inter_op": 1}


def onnxruntime_runner(model, inputs, threads, wanted):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    path = common.model_dir(model) / common.CONVERTED["onnxruntime"]
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    ins, note_in = common.match_names(inputs, [[i.name] for i in sess.get_inputs()])
    outs = sess.get_outputs()
    omap, note_out = common.match_names(wanted, [[o.name] for o in outs])
    feeds = {sess.get_inputs()[i].name: inputs[k] for k, i in ins.items()}
    names = [outs[omap[k]].name for k in wanted if k in omap]
    keys = [k for k in wanted if k in omap]

    def run():
        return dict(zip(keys, sess.run(names, feeds)))
    return run, {"providers": sess.get_providers(), "names": "; ".join(filter(None, (note_in, note_out)))}


def openvino_runner(model, inputs, threads, wanted):
    import openvino as ov
    import openvino.properties as props
    import openvino.properties.hint as hints
    core = ov.Core()
    m = core.read_model(str(common.model_dir(model) / common.CONVERTED["openvino"]))
    ins, note_in = common.match_names(inputs, [list(p.get_names()) for p in m.inputs])
    # Static shapes, as OpenVINO's guides tell users to set before compiling:
    # the CPU plugin plans memory and picks kernels per shape.
    m.reshape({m.inputs[i]: ov.PartialShape(list(inputs[k].shape)) for k, i in ins.items()})
    config = {
        props.inference_num_threads: threads,
        # CPUs with AVX512_BF16/AMX run bf16 by default; the comparison is of
        # float32 inference.
        hints.inference_precision: ov.Type.f32,
        hints.performance_mode: hints.PerformanceMode.LATENCY,
        props.num_streams: 1,
    }
    compiled = core.compile_model(m, "CPU", config)
    outs = compiled.outputs
    omap, note_out = common.match_names(wanted, [list(o.get_names()) for o in outs])
    req = compiled.create_infer_request()
    feeds = {i: inputs[k] for k, i in ins.items()}

    def run():
        req.infer(feeds)
        return {k: req.get_output_tensor(omap[k]).data.copy() for k in wanted if k in omap}
    info = {"inference_precision": str(compiled.get_property(hints.inference_precision)),
            "threads": int(compiled.get_property(props.inference_num_threads)),
            "names": "; ".join(filter(None, (note_in, note_out)))}
    return run, info


def litert_runner(model, inputs, threads, wanted):
    from ai_edge_litert.interpreter import Interpreter
    # The default op resolver applies the XNNPACK delegate to float models.
    it = Interpreter(model_path=str(common.model_dir(model) / common.CONVERTED["litert"]), num_threads=threads)
    sig = it.get_signature_runner("serving_default")
    in_det, out_det = sig.get_input_details(), sig.get_output_details()
    # The runner holds the interpreter's internals, which makes
    # resize_tensor_input refuse to run; only its name -> index maps are kept.
    del sig
    for k, v in inputs.items():
        it.resize_tensor_input(in_det[k]["index"], list(v.shape), strict=False)
    # Allocated once for the fed shapes; the timed loop only copies in,
    # invokes and copies out, as an application serving one shape would.
    it.allocate_tensors()
    omap = {k: out_det[k]["index"] for k in wanted if k in out_det}

    def run():
        for k, v in inputs.items():
            it.set_tensor(in_det[k]["index"], v)
        it.invoke()
        return {k: it.get_tensor(i) for k, i in omap.items()}
    return run, {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runtime", choices=["tensorflow", "onnxruntime", "openvino", "litert"])
    ap.add_argument("model", choices=list(common.MODELS))
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--spawned", type=float, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--save-outputs")
    a = ap.parse_args()

    inputs = common.load_npy_dir(common.inputs_dir(a.model, a.batch))
    meta = common.read_json(common.model_dir(a.model) / "export.json")["outputs"][str(a.batch)]
    wanted = list(meta)
    t_load = time.time()
    if a.runtime == "tensorflow":
        run, info = tensorflow_runner(a.model, inputs, a.threads)
    else:
        run, info = globals()[f"{a.runtime}_runner"](a.model, inputs, a.threads, wanted)
    t_loaded = time.time()
    outputs = run()
    t_first = time.time()
    for _ in range(a.warmup):
        run()
    lat = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(a.runs):
        t = time.perf_counter()
        run()
        lat.append((time.perf_counter() - t) * 1e3)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if a.save_outputs:
        common.save_npy_dir(a.save_outputs, outputs)
    common.write_json(a.out, {
        "latencies_ms": lat,
        "cold_start_ms": (t_first - a.spawned) * 1e3,
        "load_ms": (t_loaded - t_load) * 1e3,
        "first_run_ms": (t_first - t_loaded) * 1e3,
        "startup_ms": (t_load - a.spawned) * 1e3,
        # CPU seconds per wall second over the timed runs: above the thread
        # count means the runtime ran threads it was not asked for.
        "cpu_cores_used": cpu / wall if wall > 0 else None,
        "info": info,
        "versions": {a.runtime: _version(a.runtime)},
    })


def _version(runtime):
    mod = {"tensorflow": "tensorflow", "onnxruntime": "onnxruntime", "openvino": "openvino",
           "litert": "ai_edge_litert"}[runtime]
    m = sys.modules.get(mod)
    return getattr(m, "__version__", None) if m else None


if __name__ == "__main__":
    main()
