"""Matrix products and matrix structure: MatMul, BatchMatMul (V1-V3, with
batch broadcasting and adjoints), Einsum, _FusedMatMul with each epilogue
TensorFlow's CPU kernel takes, tfhost's _TfhostFusedBatchMatMul (computed by
TensorFlow as BatchMatMulV2 followed by the epilogue's ops), and the
band/diag/set-diag family."""
from case_builder import Builder, dtypes_of, tf

FAMILY = "linalg"

# Epilogues (fused_ops) and the TensorFlow ops each stands for.
EPILOGUES = {
    "BiasAdd": lambda y: y, "BiasAdd_Relu": lambda y: tf.raw_ops.Relu(features=y),
    "BiasAdd_Relu6": lambda y: tf.raw_ops.Relu6(features=y), "BiasAdd_Elu": lambda y: tf.raw_ops.Elu(features=y),
    "BiasAdd_LeakyRelu": lambda y: tf.raw_ops.LeakyRelu(features=y, alpha=0.2),
    "BiasAdd_Tanh": lambda y: tf.raw_ops.Tanh(x=y), "BiasAdd_Sigmoid": lambda y: tf.raw_ops.Sigmoid(x=y),
    "BiasAdd_GeluApproximate": lambda y: tf.nn.gelu(y, approximate=True),
    "BiasAdd_GeluExact": lambda y: tf.nn.gelu(y, approximate=False),
}
# _FusedMatMul's op def gives these attrs no defaults (grappler always sets
# them); these are the values grappler writes.
FUSED_MATMUL_ATTRS = {"transpose_a": False, "transpose_b": False, "epsilon": 0.0001, "leakyrelu_alpha": 0.2}


def _matmul(b):
    for dt in dtypes_of("MatMul"):
        b.seed("MatMul", dt)
        b.add("MatMul", dt, [b.rand([2, 3], dt), b.rand([3, 4], dt)])
    b.seed("MatMul", "attrs")
    for ta in (False, True):
        for tb in (False, True):
            a = b.rand([3, 2] if ta else [2, 3])
            c = b.rand([4, 3] if tb else [3, 4])
            b.add("MatMul", f"transpose_a_{ta}_b_{tb}", [a, c], {"transpose_a": ta, "transpose_b": tb})
    b.add("MatMul", "k_empty", [b.rand([2, 0]), b.rand([0, 3])])
    b.add("MatMul", "m_empty", [b.rand([0, 3]), b.rand([3, 2])])
    b.add("MatMul", "long_k", [b.rand([3, 40]), b.rand([40, 5])])
    b.add("MatMul", "nan_inf", [b.const([1, float("nan"), 2, float("inf")], shape=[2, 2]), b.rand([2, 2])])
    for op in ("BatchMatMul", "BatchMatMulV2"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            b.add(op, dt, [b.rand([2, 2, 3], dt), b.rand([2, 3, 2], dt)])
        b.seed(op, "attrs")
        for ax in (False, True):
            for ay in (False, True):
                x = b.rand([2, 3, 2] if ax else [2, 2, 3])
                y = b.rand([2, 4, 3] if ay else [2, 3, 4])
                b.add(op, f"adj_x_{ax}_adj_y_{ay}", [x, y], {"adj_x": ax, "adj_y": ay})
        b.add(op, "rank4", [b.rand([2, 2, 2, 3]), b.rand([2, 2, 3, 2])])
        b.add(op, "complex_adjoint", [b.rand([1, 2, 2], "complex64"), b.rand([1, 2, 2], "complex64")],
              {"adj_x": True})
        b.add(op, "empty_batch", [b.rand([0, 2, 3]), b.rand([0, 3, 2])])
    b.seed("BatchMatMulV2", "broadcast")
    b.add("BatchMatMulV2", "broadcast_batch", [b.rand([2, 1, 2, 3]), b.rand([3, 3, 2])])
    b.add("BatchMatMulV2", "rank2_operand", [b.rand([2, 2, 3]), b.rand([3, 4])])
    for dt in dtypes_of("BatchMatMulV3", "Ta"):
        b.seed("BatchMatMulV3", dt)
        out = dt if dt != "uint8" and dt != "int8" else "int32"
        b.add("BatchMatMulV3", dt, [b.rand([2, 2, 3], dt), b.rand([2, 3, 2], dt)], {"Tout": out})
    b.add("BatchMatMulV3", "int8_uint8", [b.rand([1, 2, 3], "int8"), b.rand([1, 3, 2], "uint8")],
          {"Tout": "int32"})
    b.add("BatchMatMulV3", "adj_broadcast", [b.rand([2, 3, 2]), b.rand([1, 4, 3])],
          {"Tout": "float32", "adj_x": True, "adj_y": True})


def _einsum(b):
    shapes = {
        "ij,jk->ik": ([2, 3], [3, 4]), "bij,bjk->bik": ([2, 2, 3], [2, 3, 2]), "ij->ji": ([2, 3],),
        "ij->": ([2, 3],), "ij->j": ([2, 3],), "i,j->ij": ([3], [4]), "i,i->": ([5], [5]),
        "...ij,...jk->...ik": ([2, 2, 3], [3, 2]), "bhqd,bhkd->bhqk": ([1, 2, 3, 4], [1, 2, 2, 4]),
        "abc,cd->abd": ([2, 3, 4], [4, 2]), "ii->i": ([3, 3],), "ii->": ([3, 3],),
        "ab,ab->ab": ([2, 3], [2, 3]), "abc->cab": ([2, 3, 4],),
    }
    for eq, operand_shapes in shapes.items():
        for dt in ("float32", "float64", "int32") if eq == "ij,jk->ik" else ("float32",):
            b.seed("Einsum", eq + dt)
            name = (eq.replace("...", "ell").replace(",", "_").replace("->", "_to_") or "x") + f"_{dt}"
            b.add("Einsum", name, [[b.rand(s, dt) for s in operand_shapes]], {"equation": eq})


def _epilogue(y, bias, fused):
    return EPILOGUES[fused](tf.raw_ops.BiasAdd(value=y, bias=bias))


def _fused_matmul(b):
    for fused in EPILOGUES:
        for dt in dtypes_of("_FusedMatMul"):
            b.seed("_FusedMatMul", fused + dt)
            a, c, bias = b.rand([3, 4], dt), b.rand([4, 5], dt), b.rand([5], dt)
            attrs = {**FUSED_MATMUL_ATTRS, "fused_ops": fused.split("_"), "leakyrelu_alpha": 0.3}
            if "Gelu" not in fused:
                b.add("_FusedMatMul", f"{fused}_{dt}", [a, c, [bias]], attrs)
                continue
            # TensorFlow's CPU kernel has no GELU epilogue (its oneDNN one
            # does); the reference is MatMul + BiasAdd + the GELU formula.
            b.add("_FusedMatMul", f"{fused}_{dt}", [a, c, [bias]], attrs,
                  outputs_fn=lambda a=a, c=c, bias=bias, fused=fused: [
                      _epilogue(tf.raw_ops.MatMul(a=a, b=c), bias, fused)],
                  reference="TensorFlow MatMul + BiasAdd + tf.nn.gelu")
    b.seed("_FusedMatMul", "transposes")
    for ta in (False, True):
        for tb in (False, True):
            a = b.rand([4, 3] if ta else [3, 4])
            c = b.rand([5, 4] if tb else [4, 5])
            b.add("_FusedMatMul", f"transpose_a_{ta}_b_{tb}", [a, c, [b.rand([5])]],
                  {**FUSED_MATMUL_ATTRS, "fused_ops": ["BiasAdd", "Relu"], "transpose_a": ta, "transpose_b": tb})
    # tfhost's batched form: TensorFlow has no fused batch matmul on CPU, so
    # the reference is BatchMatMulV2 followed by the epilogue's own ops.
    for fused in EPILOGUES:
        for dt in ("float32", "float64"):
            b.seed("_TfhostFusedBatchMatMul", fused + dt)
            x, y, bias = b.rand([2, 3, 4], dt), b.rand([2, 4, 5], dt), b.rand([5], dt)
            ops = fused.split("_")
            b.add("_TfhostFusedBatchMatMul", f"{fused}_{dt}", [x, y, [bias]], json_attrs=
                  {"T": {"type": dt}, "num_args": {"i": 1}, "fused_ops": {"list_s": ops},
                   "adj_x": {"b": False}, "adj_y": {"b": False}, "epsilon": {"f": 0.0001},
                   "leakyrelu_alpha": {"f": 0.2}},
                  outputs_fn=lambda x=x, y=y, bias=bias, fused=fused: [
                      _epilogue(tf.raw_ops.BatchMatMulV2(x=x, y=y), bias, fused)],
                  reference="TensorFlow BatchMatMulV2 + BiasAdd + activation op")
    b.seed("_TfhostFusedBatchMatMul", "adjoints")
    x, y, bias = b.rand([2, 4, 3]), b.rand([1, 5, 4]), b.rand([5])
    b.add("_TfhostFusedBatchMatMul", "adjoints_broadcast", [x, y, [bias]], json_attrs=
          {"T": {"type": "float32"}, "num_args": {"i": 1}, "fused_ops": {"list_s": ["BiasAdd", "Relu"]},
           "adj_x": {"b": True}, "adj_y": {"b": True}},
          outputs_fn=lambda: [_epilogue(tf.raw_ops.BatchMatMulV2(x=x, y=y, adj_x=True, adj_y=True), bias,
                                        "BiasAdd_Relu")],
          reference="TensorFlow BatchMatMulV2 + BiasAdd + Relu")


def _diag(b):
    for dt in dtypes_of("MatrixBandPart"):
        b.seed("MatrixBandPart", dt)
        b.add("MatrixBandPart", dt, [b.rand([2, 3, 4], dt), b.const(1, "int64"), b.const(0, "int64")])
    for lo, hi in ((0, 0), (-1, 0), (0, -1), (1, 2), (-1, -1), (5, 5)):
        b.add("MatrixBandPart", f"lower_{lo}_upper_{hi}", [b.rand([4, 4]), b.const(lo, "int32"),
                                                            b.const(hi, "int32")])
    for dt in dtypes_of("MatrixDiag"):
        b.seed("MatrixDiag", dt)
        b.add("MatrixDiag", dt, [b.rand([2, 3], dt)])
        b.add("MatrixDiagPart", dt, [b.rand([2, 3, 4], dt)])
        b.add("MatrixSetDiag", dt, [b.rand([2, 3, 4], dt), b.rand([2, 3], dt)])
    aligns = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
    b.seed("MatrixDiagV3", "cases")
    for k in ((0, 0), (1, 1), (-1, -1), (-1, 1), (0, 2)):
        nd = k[1] - k[0] + 1
        diag = b.rand([2, nd, 3] if nd > 1 else [2, 3])
        for op in ("MatrixDiagV2", "MatrixDiagV3"):
            for align in aligns if op == "MatrixDiagV3" else (None,):
                attrs = {"align": align} if align else {}
                name = f"k_{k[0]}_{k[1]}" + (f"_{align}" if align else "")
                b.add(op, name, [diag, b.const(list(k), "int32"), b.const(-1, "int32"), b.const(-1, "int32"),
                                 b.const(0.5)], attrs)
        x = b.rand([2, 3, 4])
        for op in ("MatrixDiagPartV2", "MatrixDiagPartV3", "MatrixSetDiagV2", "MatrixSetDiagV3"):
            for align in aligns if op.endswith("V3") else (None,):
                attrs = {"align": align} if align else {}
                name = f"k_{k[0]}_{k[1]}" + (f"_{align}" if align else "")
                if "Part" in op:
                    b.add(op, name, [x, b.const(list(k), "int32"), b.const(-7.0)], attrs)
                else:
                    # The diagonals' shape is what MatrixDiagPart takes out.
                    shape = tf.raw_ops.MatrixDiagPartV3(input=x, k=list(k), padding_value=0.0).shape
                    d = b.rand(shape)
                    b.add(op, name, [x, d, b.const(list(k), "int32")], attrs)
    b.add("MatrixDiagV3", "num_rows_cols", [b.rand([3]), b.const(1, "int32"), b.const(3, "int32"),
                                            b.const(5, "int32"), b.const(0.0)])


def build():
    b = Builder(FAMILY)
    _matmul(b)
    _einsum(b)
    _fused_matmul(b)
    _diag(b)
    return b
