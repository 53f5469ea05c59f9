#!/usr/bin/env python3
"""ResNet-50 and BERT-base made with PyTorch on the device check's machine.

Their weights cannot travel in the bundle (ResNet-50 alone is about 100 MB),
so the device check (scripts/gpu_check.sh, docs/backends.md "The device
check") makes them there: it exports both to ONNX for `tfhost bench` and
times PyTorch eager on the same GPU as the reference of each tfhost figure.

The weights are random (seeded): the figures are speeds, not accuracies.
ResNet-50 is torchvision's resnet50 when torchvision imports, else the same
network (v1.5: stride 2 on the bottlenecks' 3x3 convolution; blocks 3, 4, 6,
3) built here from torch.nn layers. BERT-base is transformers' BertModel
(without the pooler) when transformers imports, else the same shape built
here: word, position and token-type embeddings with LayerNorm, then 12
torch.nn.TransformerEncoderLayer (hidden 768, 12 heads, FFN 3072, GELU,
post-norm).

  gpu_models.py --export-only --out DIR           DIR/resnet50.onnx and DIR/bert_base.onnx
                                                  (opset 17), on the CPU
  gpu_models.py --time-only --device cuda         PyTorch eager: items/s and p50 per setting
  gpu_models.py --out DIR --device cpu --quick    both, batches 1 and 2 and a few runs: to check
                                                  the paths on a machine without a GPU

Every result is one JSON line on stdout with an "event" key (env, model,
export, time, skip, error); progress notes go to stderr. Exit status: 0 when
every export and timing asked for succeeded, 1 when some failed (each said
so in its line), 2 for a usage error, 3 when the device asked for is absent.
"""
import argparse
import contextlib
import json
import os
import statistics
import sys
import time

SEQ_LEN = 128
RESNET_BATCHES = (1, 32, 256)
BERT_BATCHES = (1, 32)
QUICK_BATCHES = (1, 2)


def emit(event, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)


def note(msg):
    print(f"gpu_models: {msg}", file=sys.stderr, flush=True)


def version_of(module_name):
    try:
        module = __import__(module_name)
        return getattr(module, "__version__", "unknown")
    except Exception:  # absent or broken: the fallback is used and the line says so
        return None


# --- ResNet-50 v1.5 from torch.nn layers (used when torchvision is absent) ---

def resnet50_from_layers(torch):
    nn = torch.nn

    class Bottleneck(nn.Module):
        """1x1 reduce, 3x3 (carrying the stride, as in v1.5), 1x1 expand x4, plus the shortcut."""

        def __init__(self, in_ch, width, stride):
            super().__init__()
            out_ch = width * 4
            self.conv1 = nn.Conv2d(in_ch, width, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3 = nn.Conv2d(width, out_ch, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(out_ch)
            self.relu = nn.ReLU(inplace=True)
            self.shortcut = None
            if stride != 1 or in_ch != out_ch:
                self.shortcut = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False),
                                              nn.BatchNorm2d(out_ch))

        def forward(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.relu(self.bn2(self.conv2(y)))
            y = self.bn3(self.conv3(y))
            return self.relu(y + (x if self.shortcut is None else self.shortcut(x)))

    class ResNet50(nn.Module):
        def __init__(self, num_classes=1000):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64),
                                      nn.ReLU(inplace=True), nn.MaxPool2d(3, stride=2, padding=1))
            stages, in_ch = [], 64
            for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
                for i in range(blocks):
                    stages.append(Bottleneck(in_ch, width, stride if i == 0 else 1))
                    in_ch = width * 4
            self.stages = nn.Sequential(*stages)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(in_ch, num_classes)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(self.stages(self.stem(x))), 1))

    return ResNet50()


def make_resnet50(torch, impl):
    if impl in ("auto", "library") and version_of("torchvision"):
        import torchvision
        return torchvision.models.resnet50(weights=None), f"torchvision {torchvision.__version__} resnet50"
    if impl == "library":
        raise RuntimeError("torchvision is not importable")
    return resnet50_from_layers(torch), "ResNet-50 v1.5 built here from torch.nn (torchvision absent)"


# --- BERT-base from torch.nn layers (used when transformers is absent) ---
#
# Written out rather than torch.nn.TransformerEncoderLayer: nn.MultiheadAttention
# traces `embed_dim // num_heads` from the input's shape, which the exporter
# writes as a floor division with ONNX Mod, an op tfhost's loader does not map.

def bert_from_layers(torch, fused_attention):
    nn, F = torch.nn, torch.nn.functional

    class Layer(nn.Module):
        """Post-norm encoder layer: self-attention, add & LayerNorm, GELU FFN, add & LayerNorm."""

        def __init__(self, hidden, heads, ffn):
            super().__init__()
            self.heads, self.head_dim = heads, hidden // heads
            self.q, self.k, self.v = (nn.Linear(hidden, hidden) for _ in range(3))
            self.out = nn.Linear(hidden, hidden)
            self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
            self.ffn_in = nn.Linear(hidden, ffn)
            self.ffn_out = nn.Linear(ffn, hidden)
            self.norm2 = nn.LayerNorm(hidden, eps=1e-12)

        def forward(self, x, mask):  # x [B, S, H]; mask [B, 1, 1, S], additive
            q, k, v = (proj(x).reshape(x.shape[0], -1, self.heads, self.head_dim).transpose(1, 2)
                       for proj in (self.q, self.k, self.v))
            if fused_attention:  # PyTorch's fused kernels, for its timing
                a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask.to(q.dtype))
            else:  # MatMul + Softmax, plain ONNX ops, for the export
                a = torch.softmax(q @ k.transpose(-1, -2) * self.head_dim ** -0.5 + mask, dim=-1) @ v
            a = a.transpose(1, 2).reshape(x.shape[0], -1, self.heads * self.head_dim)
            x = self.norm1(x + self.out(a))
            return self.norm2(x + self.ffn_out(F.gelu(self.ffn_in(x))))

    class BertBase(nn.Module):
        def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, max_pos=512):
            super().__init__()
            self.word = nn.Embedding(vocab, hidden)
            self.position = nn.Embedding(max_pos, hidden)
            self.token_type = nn.Embedding(2, hidden)
            self.norm = nn.LayerNorm(hidden, eps=1e-12)
            self.layers = nn.ModuleList(Layer(hidden, heads, ffn) for _ in range(layers))
            self.register_buffer("position_ids", torch.arange(SEQ_LEN).unsqueeze(0), persistent=False)

        def forward(self, input_ids, attention_mask):
            x = self.word(input_ids) + self.position(self.position_ids) + self.token_type(torch.zeros_like(input_ids))
            x = self.norm(x)
            # BERT's additive mask over the keys: 0 where attended, a large negative where padded.
            mask = ((1.0 - attention_mask.to(x.dtype)) * -10000.0)[:, None, None, :]
            for layer in self.layers:
                x = layer(x, mask)
            return x

    return BertBase()


def make_bert(torch, impl, for_export):
    if impl in ("auto", "library") and version_of("transformers"):
        import transformers
        config = transformers.BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                                         num_attention_heads=12, intermediate_size=3072, hidden_act="gelu",
                                         max_position_embeddings=512)
        # The export takes eager attention (MatMul + Softmax, plain ONNX ops); the
        # timing transformers' default, PyTorch's fused scaled_dot_product_attention.
        attention = "eager" if for_export else "sdpa"
        config._attn_implementation = attention
        model = transformers.BertModel(config, add_pooling_layer=False)
        model.config.return_dict = False
        return model, f"transformers {transformers.__version__} BertModel (no pooler, {attention} attention)"
    if impl == "library":
        raise RuntimeError("transformers is not importable")
    attention = "MatMul + Softmax attention" if for_export else "scaled_dot_product_attention"
    return bert_from_layers(torch, fused_attention=not for_export), (
        f"BERT-base built here from torch.nn layers, {attention} (transformers absent)")


def first_output(torch, model, takes_ids):
    """The model taking (input_ids, attention_mask) and returning one tensor, the last hidden state.

    BertModel is given its position and token-type ids: by default it slices them
    from buffers at the traced sequence length, a Slice whose ends are computed at
    run time, which tfhost's ONNX loader refuses on an axis other than the first.
    The sequence length is fixed (128), so constants do the same.
    """
    class First(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.register_buffer("position_ids", torch.arange(SEQ_LEN).unsqueeze(0), persistent=False)

        def forward(self, input_ids, attention_mask):
            if takes_ids:
                out = self.inner(input_ids=input_ids, attention_mask=attention_mask,
                                 token_type_ids=torch.zeros_like(input_ids),
                                 position_ids=self.position_ids.expand(input_ids.shape[0], -1))
            else:
                out = self.inner(input_ids, attention_mask)
            return out[0] if isinstance(out, (tuple, list)) else out

    return First(model)


def build(torch, name, impl, for_export):
    torch.manual_seed(0)
    if name == "resnet50":
        model, desc = make_resnet50(torch, impl)
    else:
        model, desc = make_bert(torch, impl, for_export)
        model = first_output(torch, model, takes_ids=desc.startswith("transformers"))
    model.eval()
    params = sum(p.numel() for p in model.parameters())
    emit("model", model=name, impl=desc, params=params, weights="random (seed 0): for speed only",
         use="export" if for_export else "timing")
    return model


def example_inputs(torch, name, batch, device):
    if name == "resnet50":
        return (torch.randn(batch, 3, 224, 224, device=device),)
    ids = torch.randint(0, 30522, (batch, SEQ_LEN), device=device, dtype=torch.int64)
    return ids, torch.ones(batch, SEQ_LEN, device=device, dtype=torch.int64)


NO_ONNX_NOTE = ("the onnx package is absent: written without the exporter's pass that adds onnxscript "
                "functions (these models have none), the only step that imports it")
NO_ONNX_PATCHED = False


def export(torch, name, model, out_dir, opset):
    """Writes OUT_DIR/NAME.onnx with the TorchScript exporter, batch dim dynamic."""
    path = os.path.join(out_dir, f"{name}.onnx")
    if name == "resnet50":
        input_names, output_names = ["input"], ["logits"]
    else:
        input_names, output_names = ["input_ids", "attention_mask"], ["last_hidden_state"]
    dynamic = {n: {0: "batch"} for n in input_names + output_names}
    kwargs = dict(input_names=input_names, output_names=output_names, dynamic_axes=dynamic,
                  opset_version=opset, do_constant_folding=True)
    import inspect
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False  # the TorchScript exporter (the dynamo one needs onnxscript too)
    # Batch 2, not 1, so that no shape is traced as a constant 1 that a Reshape then bakes in.
    args = example_inputs(torch, name, 2, "cpu")
    t0 = time.perf_counter()
    try:
        with warnings_quiet():
            try:
                torch.onnx.export(model, args, path, **kwargs)
            except Exception as e:
                if "onnx is not installed" not in str(e) or not without_onnx_package(torch):
                    raise
                torch.onnx.export(model, args, path, **kwargs)
    except Exception as e:  # the exporter raises many kinds; the line says which
        emit("export", model=name, ok=False, opset=opset, exporter="torchscript",
             error=f"{type(e).__name__}: {str(e).strip()[:800]}")
        return False
    inputs = [{"name": n, "shape": ["batch"] + ([3, 224, 224] if name == "resnet50" else [SEQ_LEN]),
               "dtype": "float32" if name == "resnet50" else "int64"} for n in input_names]
    emit("export", model=name, ok=True, path=path, opset=opset, exporter="torchscript",
         bytes=os.path.getsize(path), seconds=round(time.perf_counter() - t0, 1), inputs=inputs,
         outputs=output_names, **({"note": NO_ONNX_NOTE} if NO_ONNX_PATCHED else {}))
    return True


def without_onnx_package(torch):
    """Lets the TorchScript exporter write a model where the onnx package is absent.

    The exporter serializes the graph itself (in C++); it imports onnx only to
    parse those bytes back and insert custom onnxscript functions, which a model
    made of standard torch.nn layers does not call. That step becomes the
    identity here. Returns False where this torch has no such step (another
    version): the export's error then stands.
    """
    try:
        from torch.onnx._internal.torchscript_exporter import onnx_proto_utils
    except ImportError:
        return False
    if not hasattr(onnx_proto_utils, "_add_onnxscript_fn"):
        return False

    def unchanged(model_bytes, custom_opsets):
        return model_bytes

    global NO_ONNX_PATCHED
    onnx_proto_utils._add_onnxscript_fn = unchanged
    NO_ONNX_PATCHED = True
    return True


@contextlib.contextmanager
def warnings_quiet():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def time_one(torch, model, name, batch, precision, device, budget_s, quick):
    """Warm-up, then per-iteration synchronized wall times until the budget is spent."""
    inputs = example_inputs(torch, name, batch, device)
    if name == "resnet50":
        inputs = tuple(x.contiguous(memory_format=torch.channels_last) for x in inputs)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    autocast = (torch.autocast(device_type=device, dtype=torch.bfloat16) if precision == "bf16"
                else contextlib.nullcontext())
    min_iters, warmup = (2, 1) if quick else (5, 3)
    with torch.inference_mode(), autocast:
        t_warm = time.perf_counter()
        for _ in range(warmup):
            model(*inputs)
        sync()
        warm_s = time.perf_counter() - t_warm
        lat = []
        start = time.perf_counter()
        while len(lat) < min_iters or (time.perf_counter() - start < budget_s and len(lat) < 2000):
            t0 = time.perf_counter()
            model(*inputs)
            sync()
            lat.append(time.perf_counter() - t0)
        total = time.perf_counter() - start
    return {"items_per_s": round(batch * len(lat) / total, 2), "p50_ms": round(statistics.median(lat) * 1e3, 3),
            "min_ms": round(min(lat) * 1e3, 3), "iters": len(lat), "warmup": warmup,
            "warmup_s": round(warm_s, 2), "timed_s": round(total, 2)}


def time_models(torch, models, impl, device, budget_s, quick):
    """Times every setting in priority order; the budget is shared among those left."""
    plan = []
    for name in models:
        batches = QUICK_BATCHES if quick else (RESNET_BATCHES if name == "resnet50" else BERT_BATCHES)
        small = [b for b in batches if b <= 32]
        for precision in ("fp32", "bf16"):
            plan += [(name, b, precision) for b in small]
    for name in models:  # the large batches last: they are the first to go when time runs out
        batches = QUICK_BATCHES if quick else (RESNET_BATCHES if name == "resnet50" else BERT_BATCHES)
        for precision in ("fp32", "bf16"):
            plan += [(name, b, precision) for b in batches if b > 32]
    built = {}
    failed = False
    deadline = time.perf_counter() + budget_s
    for i, (name, batch, precision) in enumerate(plan):
        left = deadline - time.perf_counter()
        setting = dict(model=name, batch=batch, precision=precision, runtime="pytorch", device=device)
        if left < (0.5 if quick else 2.0):
            emit("skip", **setting, reason=f"the PyTorch timing budget of {budget_s:.0f} s is spent")
            continue
        if name not in built:
            try:
                model = build(torch, name, impl, for_export=False)
                if name == "resnet50":
                    model = model.to(memory_format=torch.channels_last)
                built[name] = model.to(device)
            except Exception as e:
                emit("error", **setting, error=f"building {name}: {type(e).__name__}: {e}")
                built[name] = None
                failed = True
        if built[name] is None:
            emit("skip", **setting, reason=f"{name} could not be built")
            continue
        share = max(0.3, (deadline - time.perf_counter()) / (len(plan) - i) * 0.8)
        if quick:
            share = min(share, 0.5)
        try:
            r = time_one(torch, built[name], name, batch, precision, device, share, quick)
            layout = "channels_last" if name == "resnet50" else "seq 128"
            emit("time", **setting, layout=layout, **r)
        except Exception as e:  # out of memory, a kernel the build lacks: the line says which
            emit("error", **setting, error=f"{type(e).__name__}: {str(e).strip()[:400]}")
            failed = True
            if device == "cuda":
                torch.cuda.empty_cache()
    return not failed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="folder for the .onnx files (needed unless --time-only)")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"), help="where PyTorch is timed")
    p.add_argument("--models", default="resnet50,bert_base", help="comma-separated: resnet50, bert_base")
    p.add_argument("--export-only", action="store_true", help="export, do not time")
    p.add_argument("--time-only", action="store_true", help="time, do not export")
    p.add_argument("--opset", type=int, default=17, help="ONNX opset of the exports (default 17)")
    p.add_argument("--budget-s", type=float, default=90, help="seconds for all PyTorch timings together")
    p.add_argument("--impl", default="auto", choices=("auto", "library", "builtin"),
                   help="auto: torchvision/transformers when importable; builtin: the torch.nn versions here")
    p.add_argument("--quick", action="store_true", help="batches 1 and 2, a few runs: a check of the paths")
    a = p.parse_args()
    models = [m for m in a.models.split(",") if m]
    if any(m not in ("resnet50", "bert_base") for m in models):
        p.error(f"--models takes resnet50 and bert_base, not {a.models}")
    if a.export_only and a.time_only:
        p.error("--export-only and --time-only exclude each other")
    if not a.time_only and not a.out:
        p.error("--out is needed to export")

    try:
        import torch
    except Exception as e:
        emit("error", error=f"no torch in {sys.executable}: {type(e).__name__}: {e}")
        return 3
    env = dict(python=sys.version.split()[0], torch=torch.__version__, torchvision=version_of("torchvision"),
               transformers=version_of("transformers"), device=a.device)
    if not a.export_only:
        if a.device == "cuda":
            if not torch.cuda.is_available():
                emit("env", **env)
                emit("error", error=f"no CUDA device: torch.cuda.is_available() is False (torch {torch.__version__}, "
                                    f"built for CUDA {torch.version.cuda})")
                return 3
            # fp32 as tfhost's --precision fp32 computes it: TF32 on the tensor cores for
            # convolutions (cuDNN's default) and matrix products (set here; PyTorch's default is off).
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cudnn.allow_tf32 = True
            torch.backends.cudnn.benchmark = True  # fixed shapes: autotuned in the warm-up
            env.update(device_name=torch.cuda.get_device_name(0), cuda=torch.version.cuda,
                       cudnn=torch.backends.cudnn.version())
        env.update(fp32_matmul_tf32=torch.backends.cuda.matmul.allow_tf32,
                   fp32_conv_tf32=torch.backends.cudnn.allow_tf32, bf16="torch.autocast(bfloat16)",
                   threads=torch.get_num_threads())
    emit("env", **env)

    ok = True
    if not a.time_only:
        os.makedirs(a.out, exist_ok=True)
        for name in models:
            opset = a.opset
            try:
                model = build(torch, name, a.impl, for_export=True)
            except Exception as e:
                emit("export", model=name, ok=False, opset=opset, error=f"building {name}: {type(e).__name__}: {e}")
                ok = False
                continue
            note(f"exporting {name} at opset {opset}")
            ok = export(torch, name, model, a.out, opset) and ok
            del model
    if not a.export_only:
        note(f"timing PyTorch on {a.device}, {a.budget_s:.0f} s in all")
        ok = time_models(torch, models, a.impl, a.device, a.budget_s, a.quick) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
