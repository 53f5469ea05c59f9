"""Shape and data-movement ops: Transpose, Concat/Split, Slice/StridedSlice
(every mask), the Pad family, Reshape/Tile/Pack/Unpack/ExpandDims/Squeeze,
Fill/Range/LinSpace, the Reverse family and Roll, broadcasting and shape
queries and identities. Each on every dtype tfhost registers (string and bool included where the op
takes any type)."""
from case_builder import ALL_TYPES, INTS, Builder, dtypes_of

FAMILY = "array"


def _each_type(b, op, attr="T"):
    for dt in dtypes_of(op, attr, within=ALL_TYPES):
        b.seed(op, dt)
        yield dt


def _layout(b):
    for dt in _each_type(b, "Transpose"):
        b.add("Transpose", dt, [b.rand([2, 3, 2], dt), b.const([2, 0, 1], "int32")])
    x = b.rand([2, 3, 4])
    for perm in ([0, 1, 2], [1, 0, 2], [2, 1, 0]):
        b.add("Transpose", "perm_" + "".join(map(str, perm)), [x, b.const(perm, "int64")])
    # Tiles of whole SIMD blocks and ragged edges, 1- to 8-byte elements.
    for dt in ("float32", "uint8", "int16", "float64"):
        b.add("Transpose", f"lanes_2d_{dt}", [b.rand([17, 35], dt), b.const([1, 0], "int32")])
    b.add("Transpose", "lanes_3d", [b.rand([3, 16, 18]), b.const([0, 2, 1], "int32")])
    b.add("Transpose", "lanes_nchw_to_nhwc", [b.rand([2, 17, 3, 5]), b.const([0, 2, 3, 1], "int32")])
    b.add("Transpose", "rank6", [b.rand([2, 1, 2, 1, 3, 2]), b.const([5, 3, 1, 0, 2, 4], "int32")])
    b.add("Transpose", "empty", [b.rand([0, 3]), b.const([1, 0], "int32")])
    b.add("Transpose", "scalar", [b.const(3.0), b.const([], "int32")])
    for dt in _each_type(b, "Reshape"):
        b.add("Reshape", dt, [b.rand([2, 3], dt), b.const([3, -1], "int32")])
    b.add("Reshape", "to_scalar", [b.rand([1, 1]), b.const([], "int64")])
    b.add("Reshape", "empty", [b.rand([0, 2]), b.const([2, 0, 3], "int32")])
    for dt in _each_type(b, "ExpandDims"):
        b.add("ExpandDims", dt, [b.rand([2, 2], dt), b.const(1, "int32")])
    for axis in (0, -1, 2):
        b.add("ExpandDims", f"axis_{axis}", [b.rand([2, 3]), b.const(axis, "int64")])
    for dt in _each_type(b, "Squeeze"):
        b.add("Squeeze", dt, [b.rand([1, 2, 1], dt)])
    b.add("Squeeze", "dims", [b.rand([1, 2, 1, 1])], {"axis": [0, -1]})
    for dt in _each_type(b, "Tile"):
        b.add("Tile", dt, [b.rand([2, 2], dt), b.const([2, 3], "int32")])
    b.add("Tile", "zero_multiple", [b.rand([2, 2]), b.const([0, 2], "int64")])
    for dt in _each_type(b, "Pack"):
        b.add("Pack", dt, [[b.rand([2, 2], dt) for _ in range(3)]])
    for axis in (0, 1, -1):
        b.add("Pack", f"axis_{axis}", [[b.rand([2, 3]), b.rand([2, 3])]], {"axis": axis})
    b.add("Pack", "scalars", [[b.const(1.0), b.const(2.0)]])
    for dt in _each_type(b, "Unpack"):
        b.add("Unpack", dt, [b.rand([3, 2], dt)], {"num": 3})
    b.add("Unpack", "axis_neg", [b.rand([2, 3, 2])], {"num": 2, "axis": -1})
    b.add("Unpack", "empty_slices", [b.rand([2, 0])], {"num": 2})


def _concat_split(b):
    for dt in _each_type(b, "ConcatV2"):
        b.add("ConcatV2", dt, [[b.rand([2, 2], dt), b.rand([2, 1], dt)], b.const(1, "int32")])
    for axis in (0, -1):
        b.add("ConcatV2", f"axis_{axis}_int64", [[b.rand([2, 3]), b.rand([2, 3]), b.rand([2, 3])],
                                                 b.const(axis, "int64")])
    b.add("ConcatV2", "lanes_inner", [[b.rand([3, 17]), b.rand([3, 33]), b.rand([3, 1])], b.const(1, "int32")])
    b.add("ConcatV2", "lanes_middle_uint8", [[b.rand([2, 3, 35], "uint8"), b.rand([2, 1, 35], "uint8")],
                                              b.const(1, "int32")])
    b.add("ConcatV2", "with_empty", [[b.rand([0, 2]), b.rand([3, 2])], b.const(0, "int32")])
    for dt in _each_type(b, "Concat"):
        b.add("Concat", dt, [b.const(0, "int32"), [b.rand([1, 2], dt), b.rand([2, 2], dt)]])
    for dt in _each_type(b, "Split"):
        b.add("Split", dt, [b.const(1, "int32"), b.rand([2, 4], dt)], {"num_split": 2})
    b.add("Split", "axis_neg_3way", [b.const(-2, "int32"), b.rand([6, 2])], {"num_split": 3})
    for dt in _each_type(b, "SplitV"):
        b.add("SplitV", dt, [b.rand([5, 2], dt), b.const([2, 3], "int64"), b.const(0, "int32")], {"num_split": 2})
    b.add("SplitV", "inferred_size", [b.rand([2, 6]), b.const([1, -1, 2], "int32"), b.const(-1, "int32")],
          {"num_split": 3})
    b.add("SplitV", "zero_size", [b.rand([4]), b.const([0, 4], "int32"), b.const(0, "int32")], {"num_split": 2})


def _slicing(b):
    for dt in _each_type(b, "Slice"):
        b.add("Slice", dt, [b.rand([3, 4], dt), b.const([1, 1], "int32"), b.const([2, -1], "int32")])
    b.add("Slice", "int64_empty", [b.rand([3, 4]), b.const([1, 0], "int64"), b.const([0, 2], "int64")])
    for dt in _each_type(b, "StridedSlice"):
        b.add("StridedSlice", dt, [b.rand([4, 3], dt), b.const([0, 1], "int32"), b.const([4, 3], "int32"),
                                   b.const([2, 1], "int32")])
    x = b.rand([4, 5, 3])
    specs = {
        "basic": ([1, 0, 0], [3, 5, 3], [1, 2, 1], {}),
        "negative_stride": ([3, -1, 0], [0, 0, 3], [-1, -2, 1], {}),
        "begin_end_mask": ([1, 1, 1], [2, 2, 2], [1, 1, 1], {"begin_mask": 5, "end_mask": 2}),
        "ellipsis": ([0, 1], [0, 2], [1, 1], {"ellipsis_mask": 1}),
        "new_axis": ([0, 0, 1], [0, 0, 3], [1, 1, 1], {"new_axis_mask": 2}),
        "shrink": ([2, 0, 1], [3, 5, 2], [1, 1, 1], {"shrink_axis_mask": 5}),
        "shrink_negative_index": ([-1], [0], [1], {"shrink_axis_mask": 1}),
        "out_of_range_clamped": ([-10, 2, 0], [10, 100, 3], [1, 1, 1], {}),
        "empty_result": ([3, 0, 0], [1, 5, 3], [1, 1, 1], {}),
        "all_masks": ([0, 1, 0, 0], [0, 3, 0, 2], [1, 1, 1, -1],
                      {"begin_mask": 1, "end_mask": 1, "new_axis_mask": 4, "shrink_axis_mask": 0}),
    }
    for name, (begin, end, strides, masks) in specs.items():
        for idx in ("int32", "int64") if name == "basic" else ("int32",):
            b.add("StridedSlice", f"{name}_{idx}", [x, b.const(begin, idx), b.const(end, idx),
                                                    b.const(strides, idx)], masks)


def _pad(b):
    for dt in _each_type(b, "Pad"):
        b.add("Pad", dt, [b.rand([2, 2], dt), b.const([[1, 0], [0, 2]], "int32")])
    b.add("Pad", "int64_zero_pads", [b.rand([2, 3]), b.const([[0, 0], [0, 0]], "int64")])
    b.add("Pad", "empty_input", [b.rand([0, 2]), b.const([[1, 1], [0, 0]], "int32")])
    for dt in _each_type(b, "PadV2"):
        pad_value = b.rand([], dt)
        b.add("PadV2", dt, [b.rand([2, 2], dt), b.const([[1, 1], [2, 0]], "int32"), pad_value])
    for dt in _each_type(b, "MirrorPad"):
        for mode in ("REFLECT", "SYMMETRIC"):
            b.add("MirrorPad", f"{dt}_{mode}", [b.rand([3, 3], dt), b.const([[1, 2], [2, 0]], "int32")],
                  {"mode": mode})
    b.add("Pad", "lanes", [b.rand([3, 37]), b.const([[1, 2], [17, 3]], "int32")])
    b.add("PadV2", "lanes_nhwc", [b.rand([1, 5, 6, 20]), b.const([[0, 0], [1, 1], [2, 1], [0, 0]], "int32"),
                                  b.const(-1.0)])
    b.add("MirrorPad", "lanes_REFLECT", [b.rand([4, 37]), b.const([[2, 1], [5, 7]], "int32")], {"mode": "REFLECT"})
    b.add("MirrorPad", "SYMMETRIC_full", [b.rand([2, 3, 2]), b.const([[2, 2], [3, 0], [0, 1]], "int64")],
          {"mode": "SYMMETRIC"})


def _generators(b):
    for dt in _each_type(b, "Fill"):
        b.add("Fill", dt, [b.const([2, 3], "int32"), b.rand([], dt)])
    b.add("Fill", "int64_dims_empty", [b.const([0, 2], "int64"), b.const(1.5)])
    for dt in _each_type(b, "Range", "Tidx"):
        lo, hi = (0, 10) if dt in INTS else (-3, 3)
        b.add("Range", dt, [b.const(lo, dt), b.const(hi, dt), b.const(3, dt)])
    b.add("Range", "negative_delta", [b.const(5.0), b.const(-1.0), b.const(-1.5)])
    b.add("Range", "fractional", [b.const(0.1), b.const(1.0), b.const(0.3)])
    b.add("Range", "empty", [b.const(3, "int32"), b.const(3, "int32"), b.const(1, "int32")])
    for dt in _each_type(b, "LinSpace"):
        for num in (1, 2, 5):
            b.add("LinSpace", f"{dt}_num{num}", [b.const(-1, dt), b.const(2, dt), b.const(num, "int32")])
    b.add("LinSpace", "descending_int64_num", [b.const(5.0), b.const(-5.0), b.const(4, "int64")])


def _reverse(b):
    for dt in _each_type(b, "ReverseV2"):
        b.add("ReverseV2", dt, [b.rand([2, 3], dt), b.const([1], "int32")])
    x = b.rand([2, 3, 2])
    for axes in ([0], [-1], [0, 2], []):
        b.add("ReverseV2", "axes_" + "_".join(map(str, axes)), [x, b.const(axes, "int64")])
    for dt in _each_type(b, "Reverse"):
        b.add("Reverse", dt, [b.rand([2, 3], dt), b.const([True, False], "bool")])
    for dt in _each_type(b, "ReverseSequence"):
        b.add("ReverseSequence", dt, [b.rand([3, 4], dt), b.const([2, 4, 0], "int64")], {"seq_dim": 1})
    b.add("ReverseSequence", "batch_dim_1", [b.rand([4, 2, 3]), b.const([1, 3], "int32")],
          {"seq_dim": 0, "batch_dim": 1})
    for dt in _each_type(b, "Roll"):
        b.add("Roll", dt, [b.rand([2, 3], dt), b.const(1, "int32"), b.const(1, "int32")])
    b.add("Roll", "multi_axis", [b.rand([3, 4]), b.const([-1, 5], "int64"), b.const([0, 1], "int64")])
    b.add("Roll", "same_axis_twice", [b.rand([5]), b.const([2, 1], "int32"), b.const([0, 0], "int32")])


def _shapes(b):
    for dt in _each_type(b, "BroadcastTo"):
        b.add("BroadcastTo", dt, [b.rand([3, 1], dt), b.const([2, 3, 2], "int32")])
    b.add("BroadcastTo", "empty", [b.rand([1]), b.const([0, 2], "int64")])
    b.add("BroadcastArgs", "int32", [b.const([2, 1], "int32"), b.const([3, 1, 4], "int32")])
    b.add("BroadcastArgs", "int64_empty", [b.const([], "int64"), b.const([5, 0], "int64")])
    x = b.rand([2, 0, 3])
    for op in ("Shape", "Size"):
        for out in dtypes_of(op, "out_type"):
            b.add(op, out, [b.rand([2, 3, 1])], {"out_type": out})
        b.add(op, "empty", [x])
    b.add("Shape", "scalar", [b.const(1.0)])
    b.add("ShapeN", "int64", [[b.rand([2]), b.rand([1, 3]), b.const(2.0)]], {"out_type": "int64"})
    b.add("Rank", "rank3", [x])
    b.add("Rank", "scalar", [b.const("a", "string")])
    for op in ("Identity", "Snapshot", "StopGradient", "PreventGradient"):
        for dt in _each_type(b, op):
            b.add(op, dt, [b.rand([2, 2], dt)])
    b.add("IdentityN", "mixed", [[b.rand([2]), b.const(["a"], "string"), b.rand([1, 2], "int64")]])
    b.add("EnsureShape", "exact", [b.rand([2, 3])], {"shape": [2, 3]})
    b.add("EnsureShape", "partial", [b.rand([2, 3])], {"shape": [None, 3]})
    b.add("PlaceholderWithDefault", "default", [b.rand([2, 2])], {"shape": [None, 2]})
    for dt in _each_type(b, "CheckNumerics"):
        b.add("CheckNumerics", dt, [b.rand([3], dt)], {"message": "bad"})
    b.add("CheckNumericsV2", "finite", [b.rand([3])], {"message": "bad"})
    b.add("Empty", "zero_filled", [b.const([2, 2], "int32")], {"dtype": "float32", "init": True})


def build():
    b = Builder(FAMILY)
    _layout(b)
    _concat_split(b)
    _slicing(b)
    _pad(b)
    _generators(b)
    _reverse(b)
    _shapes(b)
    return b
