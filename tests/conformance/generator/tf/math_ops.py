"""Element-wise math: every unary and binary op, on every dtype tfhost
registers for it, with broadcasting, empty and scalar operands, and the edges
of each type (signed zero, NaN, infinities, the largest and smallest
magnitudes, integer min/max)."""
import numpy as np

from case_builder import COMPLEX, FLOATS, INTS, SIGNED, Builder, dtypes_of, tf

FAMILY = "math"

# Unary ops and the range their "basic" inputs come from (the function's
# domain, so the basic case is all ordinary values; the edge case adds the
# rest).
UNARY = {
    "Abs": (-3, 3), "Acos": (-1, 1), "Acosh": (1, 5), "Asin": (-1, 1), "Asinh": (-5, 5), "Atan": (-5, 5),
    "Atanh": (-0.99, 0.99), "Ceil": (-3, 3), "Cos": (-4, 4), "Cosh": (-3, 3), "Erf": (-3, 3),
    "Erfc": (-3, 3), "Exp": (-5, 5), "Expm1": (-2, 2), "Floor": (-3, 3), "Inv": (0.5, 4),
    "IsFinite": (-3, 3), "IsInf": (-3, 3), "IsNan": (-3, 3), "Lgamma": (0.1, 6), "Log": (0.01, 10),
    "Log1p": (-0.9, 5), "Neg": (-3, 3), "Reciprocal": (0.5, 4), "Rint": (-3, 3), "Round": (-3, 3),
    "Rsqrt": (0.01, 10), "Sigmoid": (-6, 6), "Sign": (-3, 3), "Sin": (-4, 4), "Sinh": (-3, 3),
    "Sqrt": (0, 10), "Square": (-3, 3), "Tan": (-1.5, 1.5), "Tanh": (-4, 4), "Relu": (-3, 3),
    "Relu6": (-3, 9), "Elu": (-3, 3), "Selu": (-3, 3), "Softplus": (-5, 5), "Softsign": (-5, 5),
    "LeakyRelu": (-3, 3), "OnesLike": (-3, 3), "ZerosLike": (-3, 3),
}
# Ops that round: their basic inputs include exact halves, where the rounding
# rule (to even for Round/Rint) shows.
HALVES = {"Rint", "Round", "Ceil", "Floor"}

# Binary ops: (float-range of y, whether integer y must avoid 0).
BINARY = {
    "Add": None, "AddV2": None, "Sub": None, "Mul": None, "Div": "nonzero", "RealDiv": "nonzero",
    "DivNoNan": None, "FloorDiv": "nonzero", "FloorMod": "nonzero", "Mod": "nonzero",
    "TruncateDiv": "nonzero", "TruncateMod": "nonzero", "Maximum": None, "Minimum": None, "Pow": "pow",
    "SquaredDifference": None, "Atan2": None, "Xdivy": None, "Xlogy": None, "MulNoNan": None,
    "BitwiseAnd": None, "BitwiseOr": None, "BitwiseXor": None, "LeftShift": "shift", "RightShift": "shift",
    "Equal": None, "NotEqual": None, "Greater": None, "GreaterEqual": None, "Less": None,
    "LessEqual": None, "LogicalAnd": None, "LogicalOr": None,
}
COMPARISONS = ("Equal", "NotEqual")


def _unary(b):
    for op, (lo, hi) in UNARY.items():
        for dt in dtypes_of(op):
            if op == "Round" and dt in INTS:
                continue  # TensorFlow 2.21's CPU Round returns 0 for integers (not the integer): a TF bug
            b.seed(op, dt)
            if dt in FLOATS:
                x = b.rand([2, 3], dt, lo, hi)
                if op in HALVES:
                    x = b.const([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, -0.51], dt)
            elif dt in COMPLEX:
                x = b.rand([2, 3], dt, -2, 2)
            elif dt == "bool":
                x = b.rand([2, 3], dt)
            else:
                x = b.rand([2, 3], dt)
            attrs = {"alpha": 0.1} if op == "LeakyRelu" else {}
            b.add(op, dt, [x], attrs)
            if dt != "bool":
                edges = b.extremes(dt)
                if op == "Erf" and dt == "float64":
                    # TensorFlow 2.21's float64 Erf gives NaN beyond about
                    # 1e154 and at +-inf (float32 gives +-1): a TF bug, left out.
                    edges = tf.boolean_mask(edges, tf.abs(edges) < 1e100)
                b.add(op, f"{dt}_edges", [edges], attrs)
        if "float32" in dtypes_of(op):
            # Long enough for full SIMD vectors (16 float32 lanes) and a
            # tail: the fast kernels' vector loops see ordinary and edge
            # values alike.
            b.seed(op, "lanes")
            lanes = tf.concat([b.rand([26], "float32", lo, hi), b.extremes("float32")], 0)
            b.add(op, "float32_lanes", [lanes], {"alpha": 0.1} if op == "LeakyRelu" else {})
        # Shapes: empty, scalar and a rank-4 tensor, on the first float type.
        dt = "float32" if "float32" in dtypes_of(op) else dtypes_of(op)[0]
        b.add(op, f"{dt}_empty", [b.rand([0, 3], dt)])
        b.seed(op, "scalar")
        b.add(op, f"{dt}_scalar", [b.rand([], dt, lo, hi)])
        b.seed(op, "rank4")
        b.add(op, f"{dt}_rank4", [b.rand([2, 1, 3, 2], dt, lo, hi)])
    b.seed("LeakyRelu", "alphas")
    x = b.rand([7], "float32", -3, 3)
    for alpha in (0.0, 0.2, 1.0, 1.5, -0.5):
        b.add("LeakyRelu", f"alpha_{alpha}", [x], {"alpha": alpha})
    b.add("LogicalNot", "basic", [b.const([True, False, True, False], "bool", [2, 2])])
    b.add("LogicalNot", "empty", [b.rand([0], "bool")])


def _y_for(b, op, dt, kind, shape):
    """Operand y for a binary op: in the op's defined domain for integers."""
    if dt in INTS:
        if kind == "nonzero":
            y = b.rand(shape, dt, 1, 8)
            # Negative divisors too, for the signed floor/trunc rules.
            return y if dt not in SIGNED else tf.where(b.rand(shape, "bool"), y, -y)
        if kind == "pow":
            return b.rand(shape, dt, 0, 4)
        if kind == "shift":
            return b.rand(shape, dt, 0, 8)
    if kind == "pow" and dt in FLOATS:
        return b.rand(shape, dt, -2, 3)
    return b.rand(shape, dt)


def _int_edges(b, dt, kind):
    """x, y pairs of integer edges where the op is defined: division never by
    0 and never min / -1 (both are errors or undefined in TensorFlow)."""
    e = b.extremes(dt).numpy().tolist()
    xs, ys = [], []
    for shift in range(len(e)):
        for i, x in enumerate(e):
            y = e[(i + shift) % len(e)]
            if kind == "nonzero" and (y == 0 or (y == -1 and x == min(e))):
                continue
            if kind == "pow" and not 0 <= y <= 3:
                continue
            if kind == "shift":
                y = (y % 8)
            xs.append(x)
            ys.append(y)
    return b.const(xs, dt), b.const(ys, dt)


def _float_edges(b, dt, op=None):
    """Every ordered pair of a few edge values of a float type."""
    e = b.extremes(dt).numpy().tolist()
    sel = [e[i] for i in (0, 1, 2, 3, 4, 5, 6, 7, 9, 12)]
    pairs = [(x, y) for x in sel for y in sel]
    if op == "FloorDiv":
        # TensorFlow runs with denormals flushed to zero: a quotient below the
        # smallest normal float becomes 0 before the floor (-1 / max gives -0,
        # not -1). That is the CPU mode, not FloorDiv's semantics.
        tiny = float(np.finfo(np.float32 if dt != "float64" else np.float64).tiny)
        pairs = [(x, y) for x, y in pairs if not (y != 0 and 0 < abs(x / y) < tiny)]
    return b.const([x for x, _ in pairs], dt), b.const([y for _, y in pairs], dt)


def _binary(b):
    for op, kind in BINARY.items():
        if not dtypes_of(op):
            continue  # LogicalAnd/LogicalOr: bool only, below
        for dt in dtypes_of(op):
            b.seed(op, dt)
            x = b.rand([2, 3], dt)
            y = _y_for(b, op, dt, kind, [2, 3])
            if op in ("Xlogy", "Pow") and dt in FLOATS + COMPLEX:
                x = b.rand([2, 3], dt, 0.1, 3)  # in the domain of log
            b.add(op, dt, [x, y])
            # Broadcasting [2, 1] against [3].
            b.add(op, f"{dt}_broadcast", [b.rand([2, 1], dt), _y_for(b, op, dt, kind, [3])])
            if dt in FLOATS:
                b.add(op, f"{dt}_edges", list(_float_edges(b, dt, op)))
            elif dt in INTS:
                b.add(op, f"{dt}_edges", list(_int_edges(b, dt, kind)))
            elif dt in COMPLEX:
                e = b.extremes(dt)
                y = tf.roll(e, 1, 0)
                if kind == "nonzero":
                    # A complex zero or infinite divisor has no one answer:
                    # TensorFlow's division gives NaN where C's Annex G gives
                    # infinity (1 / 0) or zero (x / inf). Left out.
                    keep = tf.math.is_finite(tf.abs(y)) & (tf.abs(y) > 0)
                    e, y = tf.boolean_mask(e, keep), tf.boolean_mask(y, keep)
                b.add(op, f"{dt}_edges", [e, y])
        dt = "float32" if "float32" in dtypes_of(op) else dtypes_of(op)[0]
        b.seed(op, "shapes")
        if dt == "float32":
            # Full SIMD vectors and tails, in the broadcast patterns the fast
            # kernels special-case: same shape, trailing vector, scalar,
            # column, and both operands broadcast.
            ex, ey = _float_edges(b, dt, op)
            b.add(op, "float32_lanes", [ex, ey])
            for name, xs, ys in (("row", [3, 37], [37]), ("scalar", [37], []), ("column", [3, 37], [3, 1]),
                                 ("outer", [5, 1], [1, 37]), ("leading", [37], [2, 37])):
                b.add(op, f"float32_lanes_{name}", [b.rand(xs, dt), _y_for(b, op, dt, kind, ys)])
        b.add(op, f"{dt}_scalar_tensor", [b.rand([], dt), _y_for(b, op, dt, kind, [2, 2])])
        b.add(op, f"{dt}_rank4_broadcast", [b.rand([2, 1, 3, 1], dt), _y_for(b, op, dt, kind, [1, 2, 1, 2])])
        b.add(op, f"{dt}_empty", [b.rand([0, 3], dt), _y_for(b, op, dt, kind, [3])])
        b.add(op, f"{dt}_empty_broadcast", [b.rand([2, 0, 1], dt), _y_for(b, op, dt, kind, [1, 4])])
    for op in COMPARISONS:
        b.seed(op, "incompatible")
        for flag in (True, False):
            b.add(op, f"incompatible_shape_error_{flag}", [b.rand([2, 3]), b.rand([3])],
                  {"incompatible_shape_error": flag})
        # With the flag off, shapes that do not broadcast compare unequal
        # as a whole (a scalar false/true) instead of failing.
        b.add(op, "incompatible_shapes_scalar", [b.rand([2, 3]), b.rand([4])],
              {"incompatible_shape_error": False})
    b.add("Add", "string_words", [b.const(["a", "tf", "", "é"], "string"), b.const(["b", "", "host", "x"], "string")])
    b.add("Add", "string_words_broadcast", [b.const(["a", "b"], "string", [2, 1]), b.const(["x", "y", "z"], "string")])
    for op in ("Equal", "NotEqual"):
        b.add(op, "string_words", [b.const(["a", "b", ""], "string"), b.const(["a", "c", ""], "string")])
        b.add(op, "bool_table", [b.const([True, False, True], "bool"), b.const([True, True, False], "bool")])
    for op in ("LogicalAnd", "LogicalOr"):
        b.add(op, "truth_table", [b.const([True, True, False, False], "bool"),
                                  b.const([True, False, True, False], "bool")])


def _nary(b):
    for dt in dtypes_of("AddN"):
        b.seed("AddN", dt)
        b.add("AddN", dt, [[b.rand([2, 3], dt) for _ in range(3)]])
    b.add("AddN", "one_input", [[b.rand([4])]])
    b.add("AddN", "empty", [[b.rand([0, 2]), b.rand([0, 2])]])
    for dt in dtypes_of("ClipByValue"):
        b.seed("ClipByValue", dt)
        lo, hi = b.const(-1, dt), b.const(1, dt)
        if dt in INTS and dt not in SIGNED:
            lo, hi = b.const(2, dt), b.const(6, dt)
        b.add("ClipByValue", dt, [b.rand([2, 4], dt), lo, hi])
    b.seed("ClipByValue", "tensor_bounds")
    b.add("ClipByValue", "tensor_bounds", [b.rand([2, 3]), b.rand([2, 3], lo=-2, hi=0), b.rand([2, 3], lo=0, hi=2)])
    b.add("ClipByValue", "nan_inf", [b.extremes("float32"), b.const(-1.0), b.const(2.0)])
    for dt in dtypes_of("Complex", "T"):
        for tout in dtypes_of("Complex", "Tout"):
            if (dt == "float32") != (tout == "complex64"):
                continue
            b.seed("Complex", dt)
            b.add("Complex", f"{dt}", [b.rand([2, 3], dt), b.rand([3], dt)], {"Tout": tout})
    for op in ("Real", "Imag", "Angle", "ComplexAbs"):
        for dt in dtypes_of(op, "T"):
            tout = "float32" if dt == "complex64" else "float64"
            b.seed(op, dt)
            b.add(op, dt, [b.rand([2, 3], dt)], {"Tout": tout})
            b.add(op, f"{dt}_edges", [b.extremes(dt)], {"Tout": tout})


FUSED_BINARY = ["Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "SquaredDifference", "Pow"]
FUSED_UNARY_X = ["Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Reciprocal", "Inv", "Floor", "Ceil", "Erf",
                 "Tanh", "Sigmoid"]
FUSED_UNARY_FEATURES = ["Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign"]


def _interpret(ops, operands, alphas, inputs):
    """What a _TfhostFusedElementwise program means, op by op in TensorFlow."""
    slots = list(inputs)
    for k, op in enumerate(ops):
        a, c = slots[operands[2 * k]], (slots[operands[2 * k + 1]] if operands[2 * k + 1] >= 0 else None)
        if op in FUSED_BINARY:
            slots.append(getattr(tf.raw_ops, op)(x=a, y=c))
        elif op in FUSED_UNARY_X:
            slots.append(getattr(tf.raw_ops, op)(x=a))
        elif op in FUSED_UNARY_FEATURES:
            slots.append(getattr(tf.raw_ops, op)(features=a))
        elif op == "LeakyRelu":
            slots.append(tf.raw_ops.LeakyRelu(features=a, alpha=alphas[k] if alphas else 0.2))
        else:  # GeluExact / GeluApproximate, the spelling of _FusedMatMul's epilogue
            slots.append(tf.nn.gelu(a, approximate=op == "GeluApproximate"))
    return [slots[-1]]


def _fused_elementwise(b):
    """tfhost's fused element-wise programs (written by its graph passes,
    never in a model) against the same ops run one by one in TensorFlow."""
    b.seed("_TfhostFusedElementwise", "programs")
    x, y, z = b.rand([2, 3], lo=0.1, hi=3), b.rand([3], lo=0.5, hi=2), b.rand([2, 1], lo=-2, hi=2)
    programs = {f"binary_{op}": ([op], [0, 1], [], [x, y]) for op in FUSED_BINARY}
    programs.update({f"unary_{op}": ([op], [0, -1], [], [x - 1.5 if op not in ("Sqrt", "Rsqrt", "Log") else x])
                     for op in FUSED_UNARY_X + FUSED_UNARY_FEATURES + ["LeakyRelu", "GeluExact", "GeluApproximate"]})
    programs.update({
        "mul_add_relu": (["Mul", "Add", "Relu"], [0, 1, 2, 0, 3, -1], [], [x, y]),
        "unary_chain": (["Neg", "Exp", "Sigmoid", "Tanh"], [0, -1, 1, -1, 2, -1, 3, -1], [], [z]),
        "leaky_alpha": (["Sub", "LeakyRelu"], [0, 1, 2, -1], [0.0, 0.3], [z, y]),
        "dag_three_inputs": (["SquaredDifference", "Maximum", "Mul", "Add"], [0, 1, 3, 2, 4, 0, 5, 3], [],
                             [x, y, z]),
        "scalar_input": (["Mul", "Relu6"], [0, 1, 2, -1], [], [b.rand([2, 2, 2], lo=-2, hi=8), b.const(1.5)]),
        "long_block": (["Mul", "Softplus"], [0, 1, 2, -1], [], [b.rand([3, 700]), b.rand([700])]),
    })
    for name, (ops, operands, alphas, inputs) in programs.items():
        attrs = {"T": {"type": "float32"}, "N": {"i": len(inputs)}, "ops": {"list_s": ops},
                 "operands": {"list_i": operands}, "alphas": {"list_f": alphas}}
        b.add("_TfhostFusedElementwise", name, [inputs], json_attrs=attrs,
              outputs_fn=lambda ops=ops, operands=operands, alphas=alphas, inputs=inputs: _interpret(
                  ops, operands, alphas, inputs),
              reference="TensorFlow, each instruction's op in turn")


def build():
    b = Builder(FAMILY)
    _unary(b)
    _binary(b)
    _nary(b)
    _fused_elementwise(b)
    return b
