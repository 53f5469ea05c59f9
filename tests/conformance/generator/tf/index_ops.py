"""Indexing, selection and search: Gather/GatherV2 (axis, batch_dims)/
GatherNd, ScatterNd and TensorScatter*, OneHot, Where, Select/SelectV2,
Unique(WithCounts), ListDiff, InvertPermutation, Bucketize, Lower/UpperBound
and the Bincount family. Indices are always in range: out-of-range indices are
an error in TensorFlow, which the case format cannot express."""
from case_builder import ALL_TYPES, FLOATS, INTS, Builder, dtypes_of

FAMILY = "index"


def _each_type(b, op, attr="T"):
    for dt in dtypes_of(op, attr, within=ALL_TYPES):
        b.seed(op, dt)
        yield dt


def _gather(b):
    for dt in _each_type(b, "GatherV2", "Tparams"):
        b.add("GatherV2", dt, [b.rand([4, 2], dt), b.const([3, 0, 0], "int32"), b.const(0, "int32")])
    x = b.rand([2, 3, 4])
    for axis in (0, 1, -1):
        b.add("GatherV2", f"axis_{axis}_int64", [x, b.const([[1, 0], [1, 1]], "int64"), b.const(axis, "int64")])
    b.add("GatherV2", "batch_dims_1", [x, b.const([[2, 0], [1, 1]], "int32"), b.const(1, "int32")],
          {"batch_dims": 1})
    b.add("GatherV2", "batch_dims_neg", [x, b.const([[0, 3], [1, 2]], "int32"), b.const(2, "int32")],
          {"batch_dims": -1})
    b.add("GatherV2", "scalar_index", [x, b.const(1, "int32"), b.const(1, "int32")])
    b.add("GatherV2", "empty_indices", [x, b.const([], "int32"), b.const(0, "int32")])
    for dt in _each_type(b, "Gather", "Tparams"):
        b.add("Gather", dt, [b.rand([3, 2], dt), b.const([[2, 1], [0, 2]], "int64")])
    for dt in _each_type(b, "GatherNd", "Tparams"):
        b.add("GatherNd", dt, [b.rand([3, 2], dt), b.const([[2, 1], [0, 0]], "int32")])
    b.add("GatherNd", "slices", [x, b.const([[1], [0]], "int64")])
    b.add("GatherNd", "full_index_batched", [x, b.const([[[1, 2, 3]], [[0, 0, 0]]], "int32")])
    b.add("GatherNd", "empty_index_depth", [b.rand([2, 2]), b.const([[], []], "int32", shape=[2, 0])])


def _scatter(b):
    for dt in _each_type(b, "ScatterNd"):
        b.add("ScatterNd", dt, [b.const([[1], [3]], "int32"), b.rand([2, 2], dt), b.const([5, 2], "int32")])
    # Duplicate indices add up.
    b.add("ScatterNd", "duplicates_int64", [b.const([[1, 0], [1, 0], [0, 1]], "int64"), b.rand([3]),
                                            b.const([2, 2], "int64")])
    for op in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax",
               "TensorScatterMin"):
        for dt in _each_type(b, op):
            b.add(op, dt, [b.rand([4, 2], dt), b.const([[3], [1]], "int32"), b.rand([2, 2], dt)])
        b.add(op, "elements_int64", [b.rand([2, 3]), b.const([[0, 2], [1, 0]], "int64"), b.rand([2])])
        if op != "TensorScatterUpdate":  # duplicates' order is unspecified for Update
            b.add(op, "duplicates", [b.rand([3]), b.const([[1], [1], [2]], "int32"), b.rand([3])])


def _select(b):
    for dt in _each_type(b, "OneHot"):
        b.add("OneHot", dt, [b.const([0, 2, -1, 5], "int32"), b.const(4, "int32"), b.rand([], dt), b.rand([], dt)])
    for axis in (-1, 0, 1):
        b.add("OneHot", f"axis_{axis}", [b.const([[1, 0], [2, 7]], "int64"), b.const(3, "int32"), b.const(1.0),
                                         b.const(0.0)], {"axis": axis})
    for idx in dtypes_of("OneHot", "TI"):
        b.add("OneHot", f"indices_{idx}", [b.const([1, 0], idx), b.const(2, "int32"), b.const(5, "int32"),
                                           b.const(-1, "int32")])
    for dt in _each_type(b, "Where"):
        b.add("Where", dt, [b.rand([3, 2], dt, 0, 2) if dt in INTS else b.rand([3, 2], dt)])
    b.add("Where", "bool_rank3", [b.rand([2, 2, 2], "bool")])
    b.add("Where", "none_true", [b.const([False, False], "bool")])
    b.add("Where", "float_nan", [b.const([0.0, float("nan"), -0.0, 1.0])])
    for dt in _each_type(b, "SelectV2"):
        b.add("SelectV2", dt, [b.rand([2, 3], "bool"), b.rand([2, 3], dt), b.rand([2, 3], dt)])
    b.add("SelectV2", "broadcast_all", [b.rand([2, 1], "bool"), b.rand([1, 3]), b.rand([])])
    b.add("SelectV2", "scalar_cond", [b.const(True, "bool"), b.rand([2]), b.rand([2])])
    # Rows of 16 and more, as attention masks are applied (the SIMD kernel's
    # form): a [B, 1, T, T] mask against [B, H, T, T] scores and a scalar
    # fill, and a per-row condition with a masked last vector.
    b.add("SelectV2", "attention_mask", [b.rand([2, 1, 5, 20], "bool"), b.rand([2, 3, 5, 20]), b.rand([])])
    b.add("SelectV2", "row_condition", [b.rand([3, 1], "bool"), b.rand([3, 37]), b.rand([37])])
    for dt in _each_type(b, "Select"):
        b.add("Select", dt, [b.rand([2, 3], "bool"), b.rand([2, 3], dt), b.rand([2, 3], dt)])
    # Select's rank-1 condition picks whole rows.
    b.add("Select", "row_condition", [b.const([True, False], "bool"), b.rand([2, 3]), b.rand([2, 3])])
    b.add("Select", "scalar_cond", [b.const(False, "bool"), b.rand([2]), b.rand([2])])


def _sets(b):
    for dt in _each_type(b, "Unique"):
        vals = b.rand([8], dt, 0, 3) if dt in INTS + FLOATS else b.rand([8], dt)
        for out in dtypes_of("Unique", "out_idx"):
            b.add("Unique", f"{dt}_{out}", [vals], {"out_idx": out})
            b.add("UniqueWithCounts", f"{dt}_{out}", [vals], {"out_idx": out})
    b.add("Unique", "empty", [b.rand([0])])
    b.add("Unique", "negative_zero_nan", [b.const([0.0, -0.0, float("nan"), float("nan"), 1.0])])
    for dt in _each_type(b, "ListDiff"):
        x = b.rand([6], dt, 0, 5) if dt in INTS + FLOATS else b.rand([6], dt)
        b.add("ListDiff", dt, [x, x[::2]], {"out_idx": "int64" if dt == "int64" else "int32"})
    for dt in dtypes_of("InvertPermutation"):
        b.add("InvertPermutation", dt, [b.const([3, 0, 4, 1, 2], dt)])
    b.add("InvertPermutation", "empty", [b.const([], "int32")])


def _search(b):
    boundaries = [-1.0, 0.0, 0.5, 2.0]
    for dt in _each_type(b, "Bucketize"):
        lo, hi = (-3, 4) if dt not in ("uint8", "uint16", "uint32", "uint64") else (0, 4)
        b.add("Bucketize", dt, [b.rand([2, 4], dt, lo, hi)], {"boundaries": boundaries})
    b.add("Bucketize", "on_boundaries", [b.const([-1.0, 0.0, 0.5, 2.0, float("nan"), float("inf")])],
          {"boundaries": boundaries})
    b.add("Bucketize", "no_boundaries", [b.const([1, 2], "int32")], {"boundaries": []})
    for op in ("LowerBound", "UpperBound"):
        for dt in _each_type(b, op):
            if dt in ("bool", "string") or dt.startswith("complex"):
                continue
            sorted_in = b.const([[0, 1, 1, 3, 5], [2, 2, 2, 4, 9]], dt)
            for out in dtypes_of(op, "out_type"):
                b.add(op, f"{dt}_{out}", [sorted_in, b.const([[1, 0, 6], [2, 9, 3]], dt)], {"out_type": out})


def _bincount(b):
    arr = b.const([1, 1, 3, 0, 5, 3, 3], "int32")
    for dt in dtypes_of("Bincount"):
        b.add("Bincount", dt, [arr, b.const(6, "int32"), b.rand([7], dt, 0, 3)])
    b.add("Bincount", "no_weights_size_small", [arr, b.const(3, "int32"), b.const([], "float32")])
    for tidx in dtypes_of("DenseBincount", "Tidx"):
        for dt in dtypes_of("DenseBincount", "T"):
            b.seed("DenseBincount", tidx + dt)
            b.add("DenseBincount", f"{tidx}_{dt}", [b.const([[0, 2, 2], [1, 4, 0]], tidx), b.const(5, tidx),
                                                    b.rand([2, 3], dt, 0, 3)])
    for binary in (False, True):
        b.add("DenseBincount", f"no_weights_binary_{binary}", [b.const([0, 2, 2, 3], "int32"), b.const(4, "int32"),
                                                               b.const([], "int32")], {"binary_output": binary})


def build():
    b = Builder(FAMILY)
    _gather(b)
    _scatter(b)
    _select(b)
    _sets(b)
    _search(b)
    _bincount(b)
    return b
