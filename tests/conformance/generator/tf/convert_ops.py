"""Type conversion and rearrangement: Cast between every pair of registered
types, Bitcast, quantization (QuantizeV2, Dequantize, FakeQuant*,
QuantizeAndDequantizeV2-V4), and the
space/batch/depth rearrangements with ExtractImagePatches."""
import numpy as np

from case_builder import COMPLEX, FLOATS, INTS, Builder, as_np_dtype, dtypes_of, tf

FAMILY = "convert"


def _cast_source(b, src, dst):
    """Values of `src` whose conversion to `dst` C++ (and so TensorFlow)
    defines: a float converts to an integer only when its truncation fits,
    so NaN, infinities and out-of-range floats are left out there."""
    if src == "bool":
        return b.const([True, False, True], "bool")
    if src in FLOATS + COMPLEX and dst in INTS + ["bool"]:
        info = np.iinfo(as_np_dtype(dst)) if dst != "bool" else None
        lo = 0 if dst == "bool" or info.min == 0 else -100
        vals = [lo + 0.5, 0.0, 1.9, 99.7, -0.0, 3.5] if lo == 0 else [-99.5, -1.5, -0.5, 0.0, 0.7, 1.5, 99.9]
        if src in COMPLEX:
            return b.const([complex(v, 1.0) for v in vals], src)
        return b.const(vals, src)
    return b.extremes(src)


def _cast(b):
    srcs = dtypes_of("Cast", "SrcT", within=FLOATS + INTS + COMPLEX + ["bool"])
    dsts = dtypes_of("Cast", "DstT", within=FLOATS + INTS + COMPLEX + ["bool"])
    for src in srcs:
        for dst in dsts:
            b.seed("Cast", src + dst)
            b.add("Cast", f"{src}_to_{dst}", [_cast_source(b, src, dst)], {"DstT": dst})
    b.add("Cast", "truncate_float32_to_bfloat16", [b.extremes("float32")], {"DstT": "bfloat16", "Truncate": True})
    b.add("Cast", "float64_to_float32_rounding", [b.const([1 + 2 ** -24, 1 + 3 * 2 ** -24, 1e-46, 3.4e39], "float64")],
          {"DstT": "float32"})
    b.add("Cast", "empty", [b.rand([0, 2])], {"DstT": "int32"})


def _bitcast(b):
    pairs = [("float32", "int32"), ("int32", "uint8"), ("uint8", "int32"), ("float64", "int64"),
             ("int16", "float16"), ("uint16", "bfloat16"), ("float32", "uint16"), ("int64", "float32"),
             ("complex64", "float64"), ("int8", "uint8")]
    for src, dst in pairs:
        b.seed("Bitcast", src + dst)
        shape = [2, 4] if tf.as_dtype(src).size < tf.as_dtype(dst).size else [2, 2]
        if tf.as_dtype(src).size < tf.as_dtype(dst).size:
            shape = [2, tf.as_dtype(dst).size // tf.as_dtype(src).size]
        x = b.extremes(src) if src in FLOATS else b.rand(shape, src)
        if src in FLOATS and tf.as_dtype(src).size < tf.as_dtype(dst).size:
            x = tf.reshape(x[:12], [-1, tf.as_dtype(dst).size // tf.as_dtype(src).size])
        b.add("Bitcast", f"{src}_to_{dst}", [x], {"type": dst})


def _quant(b):
    b.seed("QuantizeV2", "cases")
    x = b.rand([2, 6], lo=-3, hi=5)
    for t in dtypes_of("QuantizeV2", "T"):
        for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
            for rnd in ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"):
                if mode != "SCALED" and rnd != "HALF_AWAY_FROM_ZERO":
                    continue  # TensorFlow takes HALF_TO_EVEN only in SCALED mode
                for narrow in (False, True):
                    b.add("QuantizeV2", f"{t}_{mode}_{rnd}_narrow_{narrow}", [x, b.const(-3.0), b.const(5.0)],
                          {"T": t, "mode": mode, "round_mode": rnd, "narrow_range": narrow})
    b.add("QuantizeV2", "per_channel_axis", [x, b.const([-1.0, -2.0]), b.const([2.0, 4.0])],
          {"T": "qint8", "mode": "SCALED", "axis": 0})
    b.add("QuantizeV2", "ensure_minimum_range", [b.const([0.0, 1e-6, -1e-6]), b.const(0.0), b.const(0.0)],
          {"T": "quint8", "ensure_minimum_range": 0.01})
    for t in dtypes_of("Dequantize", "T"):
        b.seed("Dequantize", t)
        q = b.rand([2, 4], t)
        for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
            for dst in dtypes_of("Dequantize", "dtype"):
                b.add("Dequantize", f"{t}_{mode}_{dst}", [q, b.const(-2.0), b.const(3.0)],
                      {"mode": mode, "dtype": dst})
    b.add("Dequantize", "per_channel", [b.rand([2, 3], "qint8"), b.const([-1.0, -2.0, -3.0]), b.const([1.0, 2.0, 3.0])],
          {"mode": "SCALED", "axis": 1})
    b.add("Dequantize", "narrow_range", [b.rand([4], "qint8"), b.const(-1.0), b.const(1.0)],
          {"mode": "SCALED", "narrow_range": True})
    b.seed("FakeQuant", "cases")
    x = b.const([-7.0, -1.3, -0.51, 0.0, 0.49, 0.5, 2.7, 5.99, 6.0, 100.0, float("nan")])
    for lo, hi in ((-6.0, 6.0), (0.0, 1.0), (-1.0, 0.0), (0.1, 2.0), (-2.5, -0.1)):
        for bits, narrow in ((8, False), (8, True), (4, False), (2, False)):
            name = f"min{lo}_max{hi}_bits{bits}_narrow_{narrow}"
            attrs = {"num_bits": bits, "narrow_range": narrow}
            b.add("FakeQuantWithMinMaxArgs", name, [x], {**attrs, "min": lo, "max": hi})
            b.add("FakeQuantWithMinMaxVars", name, [x, b.const(lo), b.const(hi)], attrs)
    xc = b.rand([3, 4], lo=-3, hi=3)
    b.add("FakeQuantWithMinMaxVarsPerChannel", "basic", [xc, b.const([-1.0, 0.0, -2.0, 0.3]),
                                                         b.const([1.0, 2.0, -0.5, 1.7])])
    b.add("FakeQuantWithMinMaxVarsPerChannel", "bits4_narrow", [xc, b.const([-1.0, 0.0, -2.0, 0.3]),
                                                                b.const([1.0, 2.0, -0.5, 1.7])],
          {"num_bits": 4, "narrow_range": True})


def _affine_round(v):
    """Rounding half away from zero, from TensorFlow's half-to-even round:
    exact halves move away from zero, everything else rounds as usual."""
    t = tf.math.sign(v) * tf.math.floor(tf.math.abs(v))
    return tf.where(tf.math.abs(v - t) == 0.5, t + tf.math.sign(v), tf.math.round(v))


def _affine_layout(x, scales, zero_points, axis):
    """Per-element scale and zero point tensors broadcast to x."""
    shape = [1] * len(x.shape)
    if axis >= 0:
        shape[axis] = len(scales)
    return tf.reshape(tf.constant(scales, tf.float32), shape), tf.reshape(tf.constant(zero_points, tf.float32), shape)


def _affine_quantize(b):
    """tfhost's affine (scale, zero point) quantization, as TFLite stores it,
    against the same arithmetic in TensorFlow ops: q = clamp(round(x / s)
    + zp), halves away from zero; x = s * (q - zp). NaN stores the zero point."""
    b.seed("_TfhostAffineQuantize", "cases")
    x = b.rand([3, 4], lo=-4, hi=4)
    halves = b.const([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1000.0, -1000.0, 0.0, float("nan")])
    cases = {
        "int8_per_tensor": (x, "int8", [0.05], [-3], -1),
        "int8_halves": (halves, "int8", [1.0], [0], -1),
        "uint8_per_tensor": (x, "uint8", [0.04], [128], -1),
        "uint8_halves": (halves, "uint8", [1.0], [100], -1),
        "int16_per_tensor": (x, "int16", [0.001], [0], -1),
        "int8_per_channel": (x, "int8", [0.02, 0.05, 0.1, 0.03], [0, -5, 3, 0], 1),
    }
    # ONNX QuantizeLinear rounds halves to even: TensorFlow's own round.
    cases.update({"int8_halves_to_even": (halves, "int8", [1.0], [0], -1),
                  "uint8_halves_to_even": (halves, "uint8", [1.0], [100], -1)})
    for name, (value, dtype, scales, zero_points, axis) in cases.items():
        to_even = name.endswith("_to_even")

        def quantize(value=value, dtype=dtype, scales=scales, zero_points=zero_points, axis=axis, to_even=to_even):
            s, z = _affine_layout(value, scales, zero_points, axis)
            info = np.iinfo(dtype)
            rounded = tf.math.round(value / s) if to_even else _affine_round(value / s)
            q = tf.clip_by_value(rounded + z, float(info.min), float(info.max))
            q = tf.where(tf.math.is_nan(value), z * tf.ones_like(value), q)
            return [tf.cast(q, dtype)]
        attrs = {"out_type": {"type": dtype}, "scales": {"list_f": scales}, "zero_points": {"list_i": zero_points},
                 "axis": {"i": axis}, "round_mode": {"s": "HALF_TO_EVEN" if to_even else "HALF_AWAY_FROM_ZERO"}}
        b.add("_TfhostAffineQuantize", name, [value], json_attrs=attrs, outputs_fn=quantize,
              reference="TensorFlow: clip(round(x / scale) + zero_point), cast, rounding as round_mode says")
    b.seed("_TfhostAffineDequantize", "cases")
    cases = {
        "int8_per_tensor": (b.rand([3, 4], "int8", lo=-128, hi=128), [0.05], [-3], -1),
        "uint8_per_tensor": (b.rand([3, 4], "uint8", lo=0, hi=256), [0.04], [128], -1),
        "int16_per_tensor": (b.rand([3, 4], "int16", lo=-32768, hi=32768), [0.001], [7], -1),
        "int32_bias": (b.rand([4], "int32", lo=-100000, hi=100000), [0.0003], [0], -1),
        "int8_per_channel": (b.rand([3, 4], "int8", lo=-128, hi=128), [0.02, 0.05, 0.1, 0.03], [0, -5, 3, 0], 1),
    }
    for name, (q, scales, zero_points, axis) in cases.items():
        def dequantize(q=q, scales=scales, zero_points=zero_points, axis=axis):
            s, z = _affine_layout(q, scales, zero_points, axis)
            return [s * (tf.cast(q, tf.float32) - z)]
        attrs = {"T": {"type": q.dtype.name}, "scales": {"list_f": scales}, "zero_points": {"list_i": zero_points},
                 "axis": {"i": axis}}
        b.add("_TfhostAffineDequantize", name, [q], json_attrs=attrs, outputs_fn=dequantize,
              reference="TensorFlow: scale * (cast(q, float32) - zero_point)")


def _quantize_dequantize(b):
    b.seed("QuantizeAndDequantize", "cases")
    x = b.const([-3.1, -1.0, -0.5, -0.26, 0.0, 0.25, 0.26, 0.5, 1.0, 2.49, 6.0])
    for op in ("QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"):
        for dt in dtypes_of(op):
            b.add(op, dt, [tf.cast(x, dt), b.const(-1, dt), b.const(2, dt)], {"range_given": True})
        for signed in (True, False):
            for given in (True, False):
                for rnd in ("HALF_TO_EVEN", "HALF_UP"):
                    for narrow in (False, True):
                        name = f"signed_{signed}_range_given_{given}_{rnd}_narrow_{narrow}"
                        b.add(op, name, [x, b.const(-1.0), b.const(2.0)],
                              {"signed_input": signed, "range_given": given, "round_mode": rnd,
                               "narrow_range": narrow, "num_bits": 4})
    for given in (True, False):
        b.add("QuantizeAndDequantizeV3", f"range_given_{given}",
              [x, b.const(-1.0), b.const(2.0), b.const(5, "int32")], {"range_given": given})
    b.add("QuantizeAndDequantizeV3", "unsigned_narrow", [x, b.const(0.0), b.const(4.0), b.const(3, "int32")],
          {"signed_input": False, "narrow_range": True})


def _space(b):
    for dt in dtypes_of("SpaceToBatchND", within=FLOATS + INTS + ["bool", "complex64"]):
        b.seed("SpaceToBatchND", dt)
        b.add("SpaceToBatchND", dt, [b.rand([1, 4, 4, 1], dt), b.const([2, 2], "int32"),
                                     b.const([[0, 0], [0, 0]], "int32")])
        b.add("BatchToSpaceND", dt, [b.rand([4, 2, 2, 1], dt), b.const([2, 2], "int32"),
                                     b.const([[0, 0], [0, 0]], "int32")])
    b.seed("SpaceToBatchND", "attrs")
    b.add("SpaceToBatchND", "padded", [b.rand([2, 3, 5, 2]), b.const([2, 3], "int64"),
                                       b.const([[1, 0], [0, 1]], "int64")])
    b.add("SpaceToBatchND", "one_block_dim", [b.rand([1, 4, 3]), b.const([2], "int32"), b.const([[0, 0]], "int32")])
    b.add("BatchToSpaceND", "cropped", [b.rand([6, 2, 2, 1]), b.const([2, 3], "int64"),
                                        b.const([[1, 0], [0, 2]], "int64")])
    for dt in dtypes_of("SpaceToDepth", within=FLOATS + INTS + ["bool", "complex64"]):
        b.seed("SpaceToDepth", dt)
        b.add("SpaceToDepth", dt, [b.rand([1, 4, 4, 2], dt)], {"block_size": 2})
        b.add("DepthToSpace", dt, [b.rand([1, 2, 2, 8], dt)], {"block_size": 2})
    b.seed("SpaceToDepth", "attrs")
    b.add("SpaceToDepth", "block3", [b.rand([2, 3, 6, 1])], {"block_size": 3})
    b.add("DepthToSpace", "block3", [b.rand([1, 1, 2, 18])], {"block_size": 3})
    for dt in dtypes_of("ExtractImagePatches", within=FLOATS + INTS + ["bool", "complex64"]):
        b.seed("ExtractImagePatches", dt)
        b.add("ExtractImagePatches", dt, [b.rand([1, 4, 4, 2], dt)],
              {"ksizes": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "rates": [1, 1, 1, 1], "padding": "VALID"})
    b.seed("ExtractImagePatches", "attrs")
    x = b.rand([2, 5, 6, 2])
    for padding in ("SAME", "VALID"):
        for k, s, r in ((3, 1, 1), (2, 2, 1), (2, 1, 2), (3, 2, 2)):
            b.add("ExtractImagePatches", f"{padding}_k{k}_s{s}_r{r}", [x],
                  {"ksizes": [1, k, k, 1], "strides": [1, s, s, 1], "rates": [1, r, r, 1], "padding": padding})


def build():
    b = Builder(FAMILY)
    _cast(b)
    _bitcast(b)
    _quant(b)
    _affine_quantize(b)
    _quantize_dequantize(b)
    _space(b)
    return b
