"""Sparse and ragged ops. A sparse tensor is (indices int64 [n, rank],
values [n], dense_shape int64 [rank]); the cases use ordered and unordered
indices, empty sparse tensors and implicit zeros; ragged ones use nested
row splits with empty rows."""
from case_builder import INTS, Builder, dtypes_of

FAMILY = "sparse"


def _sp(b, indices, values, shape, dtype="float32"):
    return [b.const(indices, "int64", [len(indices), len(shape)]), b.const(values, dtype), b.const(shape, "int64")]


def _elementwise(b):
    a = _sp(b, [[0, 0], [0, 2], [1, 1], [2, 3]], [1.0, -2.0, 3.0, 0.5], [3, 4])
    c = _sp(b, [[0, 2], [1, 0], [2, 3]], [2.0, 4.0, -0.5], [3, 4])
    for dt in dtypes_of("SparseAdd"):
        b.seed("SparseAdd", dt)
        vals = [1, 2, 3, 4] if dt in INTS else [1.5, -2.0, 3.0, 0.5]
        x = _sp(b, [[0, 0], [0, 2], [1, 1], [2, 3]], vals, [3, 4], dt)
        y = _sp(b, [[0, 2], [1, 0], [2, 3]], vals[:3], [3, 4], dt)
        b.add("SparseAdd", dt, x + y + [b.const(0, dt if dt not in ("complex64", "complex128") else "float32")])
    b.add("SparseAdd", "threshold_drops_cancelled", a + c[:1] + [b.const([-1.0, 4.0, -0.5]), c[2], b.const(0.6)])
    for op in ("SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv"):
        b.seed(op, "cases")
        b.add(op, "same_shape", a + [b.rand([3, 4], lo=0.5, hi=2)])
        b.add(op, "broadcast_dense", a + [b.rand([4], lo=0.5, hi=2)])
    b.seed("SparseTensorDenseAdd", "cases")
    b.add("SparseTensorDenseAdd", "float32_int64", a + [b.rand([3, 4])])
    b.add("SparseTensorDenseAdd", "int32_indices", [b.const([[0, 1], [2, 2]], "int32"), b.const([5, 6], "int32"),
                                                    b.const([3, 3], "int32"), b.rand([3, 3], "int32")])
    for op in ("SparseSparseMaximum", "SparseSparseMinimum"):
        b.add(op, "overlap", a + c)
    b.add("SparseSoftmax", "rows", a)
    b.add("SparseSoftmax", "rank3", _sp(b, [[0, 0, 0], [0, 0, 2], [1, 0, 1]], [1.0, 2.0, 3.0], [2, 1, 3]))
    b.seed("SparseTensorDenseMatMul", "cases")
    for adj_a in (False, True):
        for adj_b in (False, True):
            dense = b.rand([2, 4] if adj_b else [4, 2]) if not adj_a else b.rand([2, 3] if adj_b else [3, 2])
            b.add("SparseTensorDenseMatMul", f"adjoint_a_{adj_a}_b_{adj_b}", a + [dense],
                  {"adjoint_a": adj_a, "adjoint_b": adj_b})


def _reduce(b):
    a = _sp(b, [[0, 1, 0], [0, 1, 2], [1, 0, 1], [1, 1, 1]], [1.0, -2.0, 3.0, 0.5], [2, 2, 3])
    for op in ("SparseReduceSum", "SparseReduceMax", "SparseReduceSumSparse", "SparseReduceMaxSparse"):
        for axes in ([0], [-1], [0, 2], []):
            for keep in (False, True):
                b.add(op, f"axes_{'_'.join(map(str, axes)) or 'none'}_keep_{keep}",
                      a + [b.const(axes, "int32")], {"keep_dims": keep})
    ids = b.const([0, 2, 3], "int32")
    data = b.rand([4, 2])
    for op in ("SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"):
        for idx in ("int32", "int64"):
            b.add(op, f"indices_{idx}", [data, b.const([0, 1, 3], idx), b.const([0, 0, 1], "int32")])
        b.add(op + "WithNumSegments", "gap", [data, b.const([0, 1, 3], "int32"), b.const([0, 2, 2], "int64"),
                                              b.const(4, "int32")])
        b.add(op + "WithNumSegments", "empty", [data, b.const([], "int32"), b.const([], "int32"),
                                                b.const(2, "int64")])
        b.add(op, "repeated_index", [data, b.const([2, 2, 0], "int64"), ids - ids + b.const([0, 0, 1], "int32")])


def _structure(b):
    a = _sp(b, [[1, 1], [0, 2], [2, 0], [0, 0]], [1.0, 2.0, 3.0, 4.0], [3, 4])
    b.add("SparseReorder", "unordered", a)
    b.add("SparseReshape", "to_rank3", [a[0], a[2], b.const([2, -1, 3], "int64")])
    b.add("SparseReshape", "to_rank1", [a[0], a[2], b.const([12], "int64")])
    b.add("SparseSlice", "window", a + [b.const([0, 1], "int64"), b.const([2, 2], "int64")])
    b.add("SparseSlice", "empty_window", a + [b.const([1, 2], "int64"), b.const([1, 1], "int64")])
    b.add("SparseSplit", "axis0_2way", [b.const(0, "int64")] + _sp(b, [[0, 0], [0, 2], [1, 1], [2, 3]],
                                                                   [1.0, 2.0, 3.0, 4.0], [3, 4]), {"num_split": 2})
    b.add("SparseSplit", "axis1_3way", [b.const(1, "int64")] + _sp(b, [[0, 0], [0, 2], [1, 1], [2, 3]],
                                                                   [1.0, 2.0, 3.0, 4.0], [3, 4]), {"num_split": 3})
    x = _sp(b, [[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    y = _sp(b, [[0, 1], [1, 0], [1, 1]], [3.0, 4.0, 5.0], [2, 2])
    for axis in (1, -1):
        b.add("SparseConcat", f"axis_{axis}", [[x[0], y[0]], [x[1], y[1]], [x[2], y[2]]], {"concat_dim": axis})
    b.add("SparseFillEmptyRows", "gaps", _sp(b, [[1, 0], [1, 2], [3, 1]], [1.0, 2.0, 3.0], [5, 3]) + [b.const(-1.0)])
    b.add("SparseFillEmptyRows", "empty", _sp(b, [], [], [2, 2]) + [b.const(7.0)])
    for dt in dtypes_of("SparseToDense"):
        b.seed("SparseToDense", dt)
        vals = b.rand([3], dt) if dt != "string" else b.const(["a", "b", "c"], "string")
        default = b.rand([], dt) if dt != "string" else b.const("", "string")
        b.add("SparseToDense", dt, [b.const([[0, 1], [1, 0], [2, 2]], "int64"), b.const([3, 3], "int64"), vals,
                                    default])
    b.add("SparseToDense", "scalar_value_int32_indices", [b.const([1, 3], "int32"), b.const([5], "int32"),
                                                          b.const(9.0), b.const(0.0)])
    b.add("SparseToDense", "unsorted", [b.const([[2], [0]], "int64"), b.const([3], "int64"),
                                        b.const([1.0, 2.0]), b.const(0.0)], {"validate_indices": False})


def _cross(b):
    ids = _sp(b, [[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2], "string")
    dense = b.const([["x"], ["y"]], "string")
    ints = _sp(b, [[0, 0], [1, 0]], [7, 8], [2, 1], "int64")
    b.add("SparseCross", "strings", [[ids[0]], [ids[1]], [ids[2]], [dense]],
          {"hashed_output": False, "num_buckets": 0, "hash_key": 0, "out_type": "string",
           "internal_type": "string"})
    b.add("SparseCross", "hashed", [[ids[0]], [ids[1]], [ids[2]], [dense]],
          {"hashed_output": True, "num_buckets": 100, "hash_key": 956888297470, "out_type": "int64",
           "internal_type": "string"})
    b.add("SparseCross", "int64_features", [[ints[0]], [ints[1]], [ints[2]], [b.const([[3], [4]], "int64")]],
          {"hashed_output": True, "num_buckets": 0, "hash_key": 956888297470, "out_type": "int64",
           "internal_type": "int64"})
    b.add("SparseCrossV2", "separator", [[ids[0]], [ids[1]], [ids[2]], [dense], b.const("_X_", "string")])
    b.add("SparseCrossHashed", "buckets", [[ids[0]], [ids[1]], [ids[2]], [dense], b.const(10, "int64"),
                                           b.const(True, "bool"), b.const([1, 2], "int64")])


def _bincount_ragged(b):
    for binary in (False, True):
        b.add("SparseBincount", f"binary_{binary}", [b.const([[0, 0], [0, 1], [1, 0]], "int64"),
                                                     b.const([1, 3, 1], "int32"), b.const([2, 2], "int64"),
                                                     b.const(4, "int32"), b.const([0.5, 2.0, 1.0])],
              {"binary_output": binary})
        b.add("RaggedBincount", f"binary_{binary}", [b.const([0, 2, 2, 4], "int64"), b.const([1, 1, 0, 3], "int64"),
                                                     b.const(4, "int64"), b.const([], "float32")],
              {"binary_output": binary})
    b.add("RaggedRange", "int32", [b.const([0, 5, 2], "int32"), b.const([3, 1, 2], "int32"),
                                   b.const([1, -2, 1], "int32")])
    b.add("RaggedRange", "float_int64_splits", [b.const([0.5]), b.const([2.0]), b.const([0.5])],
          {"Tsplits": "int64"})
    b.add("RaggedGather", "one_level", [[b.const([0, 2, 2, 5], "int64")], b.rand([5]), b.const([2, 0, 1, 2], "int32")],
          {"OUTPUT_RAGGED_RANK": 1})
    b.add("RaggedGather", "two_levels", [[b.const([0, 2, 3], "int64"), b.const([0, 1, 3, 4], "int64")],
                                         b.rand([4]), b.const([1, 0], "int64")], {"OUTPUT_RAGGED_RANK": 2})
    b.add("RaggedTensorToSparse", "two_levels", [[b.const([0, 2, 3], "int64"), b.const([0, 1, 3, 4], "int64")],
                                                 b.rand([4])])
    for default in (0.0, -1.0):
        b.add("RaggedTensorToTensor", f"row_splits_default_{default}",
              [b.const([3, 4], "int64"), b.rand([5]), b.const(default), [b.const([0, 2, 2, 5], "int64")]],
              {"row_partition_types": ["ROW_SPLITS"]})
    b.add("RaggedTensorToTensor", "truncate_unknown_shape",
          [b.const([-1, 2], "int64"), b.rand([5]), b.const(0.0), [b.const([0, 2, 2, 5], "int64")]],
          {"row_partition_types": ["ROW_SPLITS"]})
    b.add("RaggedTensorToTensor", "value_rowids",
          [b.const([-1, -1], "int64"), b.rand([4]), b.const(0.0),
           [b.const(4, "int64"), b.const([0, 0, 2, 3], "int64")]],
          {"row_partition_types": ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]})


def build():
    b = Builder(FAMILY)
    _elementwise(b)
    _reduce(b)
    _structure(b)
    _cross(b)
    _bincount_ragged(b)
    return b
