"""Reductions and scans: Sum/Prod/Max/Min/Mean/EuclideanNorm/All/Any over
every axis form (one, several, negative, none, all), keep_dims both ways,
ArgMax/ArgMin with each output type, Cumsum/Cumprod with each exclusive and
reverse combination, and the (unsorted) segment reductions."""
from case_builder import FLOATS, INTS, Builder, dtypes_of

FAMILY = "reduction"

# 64-bit integers beyond 2**53, which no double holds exactly (products of
# the BIG_PROD pairs are too).
BIG = [2 ** 62 + 1, 3, -(2 ** 61) - 7, 2 ** 53 + 1]
BIG_PROD = [2 ** 31 + 1, 2 ** 30 + 3, 5, 7]

REDUCE = ["Sum", "Prod", "Max", "Min", "Mean", "EuclideanNorm"]
# Axis forms on a [2, 3, 4] input.
AXES = {"axis0": [0], "axis_last": [2], "axis_neg": [-1], "axes_0_2": [0, 2], "all": [0, 1, 2], "none": []}


def _reduce(b):
    for op in REDUCE:
        for dt in dtypes_of(op):
            b.seed(op, dt)
            lo, hi = (0, 3) if dt in INTS and op == "Prod" else (None, None)
            x = b.rand([2, 3, 4], dt, lo, hi) if dt not in FLOATS else b.rand([2, 3, 4], dt, -1.5, 1.5)
            b.add(op, dt, [x, b.const([1], "int32")])
            if dt in FLOATS or dt in INTS:
                b.add(op, f"{dt}_edges", [b.extremes(dt), b.const(0, "int32")])
        b.seed(op, "axes")
        x = b.rand([2, 3, 4])
        for name, axes in AXES.items():
            for keep in (False, True):
                b.add(op, f"{name}_keep_{keep}", [x, b.const(axes, "int32")], {"keep_dims": keep})
        b.add(op, "axis_int64", [x, b.const([1], "int64")])
        # Rows and columns of whole SIMD vectors plus a tail.
        wide = b.rand([3, 37])
        for name, axes in (("lanes_inner", [1]), ("lanes_outer", [0]), ("lanes_all", [0, 1])):
            b.add(op, name, [wide, b.const(axes, "int32")])
        b.add(op, "lanes_middle", [b.rand([2, 19, 17]), b.const([1], "int32")], {"keep_dims": True})
        b.add(op, "scalar_axis", [x, b.const(-2, "int32")])
        b.add(op, "scalar_input", [b.const(2.5), b.const([], "int32")])
        # Reducing an empty axis gives the reduction's identity (0, 1, -inf,
        # +inf, NaN for the mean).
        b.add(op, "empty_reduced", [b.rand([2, 0, 3]), b.const([1], "int32")], {"keep_dims": True})
        b.add(op, "empty_kept", [b.rand([0, 3]), b.const([1], "int32")])
    for op in ("All", "Any"):
        b.seed(op, "bool")
        x = b.rand([2, 3, 4], "bool")
        for name, axes in AXES.items():
            for keep in (False, True):
                b.add(op, f"{name}_keep_{keep}", [x, b.const(axes, "int32")], {"keep_dims": keep})
        b.add(op, "empty", [b.rand([3, 0], "bool"), b.const([1], "int64")])


def _argminmax(b):
    for op in ("ArgMax", "ArgMin"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            b.add(op, dt, [b.rand([3, 4], dt), b.const(1, "int32")])
        b.seed(op, "attrs")
        x = b.rand([2, 3, 4])
        for out in dtypes_of(op, "output_type"):
            for idx in ("int32", "int64"):
                b.add(op, f"out_{out}_axis_{idx}", [x, b.const(0, idx)], {"output_type": out})
        b.add(op, "axis_neg", [x, b.const(-1, "int32")])
        # Ties resolve to the first index; TensorFlow's arg reducers never
        # pick a NaN.
        b.add(op, "ties", [b.const([1, 3, 3, 0, 0, 1], shape=[1, 6]), b.const(1, "int32")])
        b.add(op, "nan", [b.const([1, float("nan"), 3, float("inf"), -float("inf"), 2]), b.const(0, "int32")])
        b.add(op, "edges_int64", [b.extremes("int64"), b.const(0, "int32")])
        b.add(op, "empty_outer", [b.rand([0, 3]), b.const(1, "int32")])


def _scans(b):
    for op in ("Cumsum", "Cumprod"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            lo, hi = (0, 4) if dt in INTS else (None, None)
            b.add(op, dt, [b.rand([2, 4], dt, lo, hi), b.const(1, "int32")])
        b.seed(op, "attrs")
        x = b.rand([2, 3, 4])
        for exclusive in (False, True):
            for reverse in (False, True):
                for axis in (0, 2, -2):
                    b.add(op, f"exclusive_{exclusive}_reverse_{reverse}_axis_{axis}",
                          [x, b.const(axis, "int64" if axis == 2 else "int32")],
                          {"exclusive": exclusive, "reverse": reverse})
        b.add(op, "nan_inf", [b.extremes("float32"), b.const(0, "int32")])
        b.add(op, "empty", [b.rand([0, 3]), b.const(0, "int32")])


def _segments(b):
    ids = b.const([0, 0, 1, 3, 3, 3], "int32")  # segment 2 is empty
    for op in ("SegmentSum", "SegmentProd", "SegmentMax", "SegmentMin", "SegmentMean"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            lo, hi = (0, 4) if dt in INTS and op == "SegmentProd" else (None, None)
            b.add(op, dt, [b.rand([6, 2], dt, lo, hi), ids])
        b.seed(op, "attrs")
        b.add(op, "ids_int64", [b.rand([6]), b.const([0, 1, 1, 2, 2, 4], "int64")])
        big = BIG_PROD if op == "SegmentProd" else BIG
        b.add(op, "int64_large", [b.const(big, "int64"), b.const([0, 0, 1, 1], "int32")])
        b.add(op, "empty", [b.rand([0, 3]), b.const([], "int32")])
    uids = b.const([2, 0, -1, 2, 0, 4], "int32")  # -1 is dropped, segment 1 and 3 are empty
    for op in ("UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            lo, hi = (0, 4) if dt in INTS and op == "UnsortedSegmentProd" else (None, None)
            b.add(op, dt, [b.rand([6, 2], dt, lo, hi), uids, b.const(5, "int32")])
        b.seed(op, "attrs")
        big = BIG_PROD if op == "UnsortedSegmentProd" else BIG
        b.add(op, "int64_large", [b.const(big, "int64"), b.const([1, 0, 1, 1], "int32"), b.const(2, "int32")])
        b.add(op, "ids_2d_int64", [b.rand([2, 3, 2]), b.const([[0, 1, 0], [2, 2, 1]], "int64"),
                                   b.const(3, "int64")])
        b.add(op, "empty_data", [b.rand([0, 2]), b.const([], "int32"), b.const(2, "int32")])


def build():
    b = Builder(FAMILY)
    _reduce(b)
    _argminmax(b)
    _scans(b)
    _segments(b)
    return b
