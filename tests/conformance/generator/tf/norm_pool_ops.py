"""Pooling (2-D, 3-D, MaxPoolV2, MaxPoolWithArgmax), Softmax/LogSoftmax,
BiasAdd/BiasAddV1, FusedBatchNorm (V1-V3, inference and training), LRN,
Dilation2D, TopKV2, InTopK/InTopKV2, tfhost's Prelu (TF.js's op, checked
against TensorFlow's Relu/Neg/Mul spelling of it) and tfhost's
_TfhostLayerNorm and _TfhostMaskedSoftmax (Keras's layer normalization and
masked softmax as one node each)."""
from case_builder import INTS, Builder, dtypes_of, tf

FAMILY = "norm_pool"


def _pool(b):
    for op in ("MaxPool", "AvgPool"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            b.add(op, dt, [b.rand([1, 4, 4, 2], dt)], {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                                                       "padding": "VALID"})
        b.seed(op, "attrs")
        x = b.rand([2, 5, 6, 3])
        for padding in ("SAME", "VALID"):
            for k, s in ((2, 2), (3, 1), (3, 2), (1, 1)):
                b.add(op, f"{padding}_k{k}_s{s}", [x], {"ksize": [1, k, k, 1], "strides": [1, s, s, 1],
                                                       "padding": padding})
        b.add(op, "rect_window", [x], {"ksize": [1, 2, 3, 1], "strides": [1, 1, 2, 1], "padding": "SAME"})
        xc = b.rand([1, 2, 5, 5])
        b.add(op, "NCHW", [xc], {"ksize": [1, 1, 3, 3], "strides": [1, 1, 2, 2], "padding": "SAME",
                                 "data_format": "NCHW"},
              fallback_fn=lambda xc=xc, op=op: [tf.transpose(getattr(tf.raw_ops, op)(
                  **{"input" if op == "MaxPool" else "value": tf.transpose(xc, [0, 2, 3, 1])},
                  ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"), [0, 3, 1, 2])],
              reference=f"TensorFlow {op} (NHWC) between transposes")
        b.add(op, "nan_inf", [b.const([1, float("nan"), 2, float("inf"), -float("inf"), 3, 0, -1],
                                      shape=[1, 2, 4, 1])],
              {"ksize": [1, 2, 2, 1], "strides": [1, 1, 2, 1], "padding": "VALID"})
    b.seed("MaxPool", "int")
    for dt in [d for d in dtypes_of("MaxPool") if d in INTS]:
        b.add("MaxPool", f"{dt}_edges", [tf.reshape(b.extremes(dt)[:4], [1, 2, 2, 1])],
              {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "SAME"})
    b.seed("MaxPoolV2", "cases")
    x = b.rand([1, 5, 5, 2])
    for padding in ("SAME", "VALID"):
        b.add("MaxPoolV2", padding, [x, b.const([1, 3, 3, 1], "int32"), b.const([1, 2, 2, 1], "int32")],
              {"padding": padding})
    b.seed("MaxPoolWithArgmax", "cases")
    for dt in dtypes_of("MaxPoolWithArgmax"):
        for incl in (False, True):
            for targ in dtypes_of("MaxPoolWithArgmax", "Targmax"):
                b.add("MaxPoolWithArgmax", f"{dt}_{targ}_batch_in_index_{incl}", [b.rand([2, 4, 4, 2], dt)],
                      {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "Targmax": targ,
                       "include_batch_in_index": incl})
    for op in ("MaxPool3D", "AvgPool3D"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            x = b.rand([1, 4, 4, 4, 2], dt)
            for padding in ("SAME", "VALID"):
                b.add(op, f"{dt}_{padding}", [x], {"ksize": [1, 2, 3, 2, 1], "strides": [1, 2, 1, 2, 1],
                                                  "padding": padding})


def _softmax_bias(b):
    for op in ("Softmax", "LogSoftmax"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            b.add(op, dt, [b.rand([2, 5], dt, -4, 4)])
        b.seed(op, "shapes")
        b.add(op, "rank1", [b.rand([6])])
        b.add(op, "lanes", [b.rand([3, 37], lo=-8, hi=8)])
        b.add(op, "lanes_short_rows", [b.rand([37, 3], lo=-8, hi=8)])
        b.add(op, "rank3", [b.rand([2, 2, 3])])
        b.add(op, "large_logits", [b.const([1000, 1001, 1002, -1000, 0, 1], shape=[2, 3])])
        b.add(op, "inf", [b.const([float("inf"), 0, 1, -float("inf"), 0, 1], shape=[2, 3])])
        b.add(op, "single_class", [b.rand([3, 1])])
        b.add(op, "empty", [b.rand([0, 4])])
    for op in ("BiasAdd", "BiasAddV1"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            b.add(op, dt, [b.rand([2, 3], dt), b.rand([3], dt)])
        b.seed(op, "shapes")
        b.add(op, "rank4", [b.rand([2, 2, 2, 3]), b.rand([3])])
        b.add(op, "lanes", [b.rand([3, 37]), b.rand([37])])
    b.add("BiasAdd", "NCHW", [b.rand([2, 3, 2, 2]), b.rand([3])], {"data_format": "NCHW"})
    b.add("BiasAdd", "NCHW_rank2", [b.rand([2, 3]), b.rand([3])], {"data_format": "NCHW"})
    b.add("BiasAdd", "NCHW_rank5", [b.rand([1, 2, 2, 1, 2]), b.rand([2])], {"data_format": "NCHW"})


def _batch_norm(b):
    for op in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
        dts = dtypes_of(op)
        for dt in dts:
            b.seed(op, dt)
            c = 3
            x = b.rand([2, 2, 2, c], dt)
            stats = [b.rand([c], "float32" if op != "FusedBatchNorm" else dt) for _ in range(3)]
            stats.append(b.rand([c], "float32" if op != "FusedBatchNorm" else dt, 0.5, 2))
            # Outputs 3.. (reserve spaces) are scratch for the gradient; only
            # y and the batch statistics are defined.
            for training in (False, True):
                b.add(op, f"{dt}_training_{training}", [x] + stats,
                      {"is_training": training, "epsilon": 0.001}, only_outputs=[0, 1, 2])
        b.seed(op, "attrs")
        x = b.rand([2, 3, 2, 2])
        stats = [b.rand([3]), b.rand([3]), b.rand([3]), b.rand([3], lo=0.5, hi=2)]
        for training in (False, True):
            xt = tf.transpose(x, [0, 2, 3, 1])
            b.add(op, f"NCHW_training_{training}", [x] + stats,
                  {"is_training": training, "data_format": "NCHW"}, only_outputs=[0, 1, 2],
                  fallback_fn=lambda xt=xt, training=training, op=op: _nchw_bn(op, xt, stats, training),
                  reference=f"TensorFlow {op} (NHWC) between transposes")
        b.add(op, "exponential_avg_factor", [b.rand([2, 2, 2, 3])] + stats,
              {"is_training": True, "exponential_avg_factor": 0.3}, only_outputs=[0, 1, 2])
        b.add(op, "training_empty_mean", [b.rand([1, 2, 2, 3])] + [stats[0], stats[1], b.const([], shape=[0]),
                                                                   b.const([], shape=[0])],
              {"is_training": True}, only_outputs=[0, 1, 2])


def _nchw_bn(op, xt, stats, training):
    outs = getattr(tf.raw_ops, op)(x=xt, scale=stats[0], offset=stats[1], mean=stats[2], variance=stats[3],
                                   is_training=training)
    return [tf.transpose(outs[0], [0, 3, 1, 2])] + list(outs[1:])


def _misc(b):
    for dt in dtypes_of("LRN"):
        b.seed("LRN", dt)
        b.add("LRN", dt, [b.rand([1, 2, 2, 6], dt)])
    b.seed("LRN", "attrs")
    x = b.rand([1, 2, 2, 7])
    for radius, bias, alpha, beta in ((2, 1.0, 1e-4, 0.75), (1, 2.0, 0.5, 0.5), (0, 1.0, 1.0, 1.0), (5, 0.5, 0.1, 2.0)):
        b.add("LRN", f"r{radius}_b{bias}_a{alpha}_beta{beta}", [x],
              {"depth_radius": radius, "bias": bias, "alpha": alpha, "beta": beta})
    for dt in dtypes_of("Dilation2D"):
        b.seed("Dilation2D", dt)
        for padding in ("SAME", "VALID"):
            for rate in (1, 2):
                b.add("Dilation2D", f"{dt}_{padding}_rate{rate}", [b.rand([1, 5, 5, 2], dt), b.rand([2, 2, 2], dt)],
                      {"strides": [1, 1, 1, 1], "rates": [1, rate, rate, 1], "padding": padding})
    b.add("Dilation2D", "stride2", [b.rand([1, 6, 6, 1]), b.rand([3, 3, 1])],
          {"strides": [1, 2, 2, 1], "rates": [1, 1, 1, 1], "padding": "SAME"})
    for dt in dtypes_of("TopKV2"):
        b.seed("TopKV2", dt)
        b.add("TopKV2", dt, [b.rand([2, 6], dt), b.const(3, "int32")])
    b.seed("TopKV2", "attrs")
    for k in (0, 1, 5):
        for sort in (True, False):
            # Unsorted, the order of the k values is unspecified: compare
            # only sorted output.
            if sort:
                b.add("TopKV2", f"k{k}", [b.rand([3, 5]), b.const(k, "int32")], {"sorted": sort})
    b.add("TopKV2", "ties", [b.const([1, 3, 3, 2, 3, 1]), b.const(4, "int32")])
    b.add("TopKV2", "nan_inf", [b.const([1, float("nan"), float("inf"), -float("inf"), 2]), b.const(3, "int32")])
    b.add("TopKV2", "rank3_k_int64", [b.rand([2, 2, 4]), b.const(2, "int64")])
    for dt in ("int32", "int64"):
        b.seed("InTopKV2", dt)
        preds, targets = b.rand([3, 5]), b.const([0, 4, 2], dt)
        for k in (1, 2, 5):
            b.add("InTopKV2", f"{dt}_k{k}", [preds, targets, b.const(k, dt)])
            b.add("InTopK", f"{dt}_k{k}", [preds, targets], {"k": k})
    b.add("InTopKV2", "ties_nonfinite", [b.const([1, 1, 1, 0, float("nan"), 2], shape=[2, 3]),
                                         b.const([1, 1], "int32"), b.const(1, "int32")])
    # Prelu is TF.js's op (tfhost runs TF.js graphs); TensorFlow spells it
    # relu(x) - alpha * relu(-x), i.e. x where x >= 0 and alpha * x below.
    for dt in dtypes_of("Prelu"):
        b.seed("Prelu", dt)
        for name, xs, alpha_shape in (("channel", [2, 2, 3], [3]), ("same_shape", [2, 3], [2, 3])):
            x, alpha = b.rand(xs, dt), b.rand(alpha_shape, dt)
            b.add("Prelu", f"{dt}_{name}", [x, alpha], json_attrs={"T": {"type": dt}},
                  outputs_fn=lambda x=x, alpha=alpha: [tf.raw_ops.SelectV2(
                      condition=tf.raw_ops.GreaterEqual(x=x, y=tf.zeros([], x.dtype)), t=x,
                      e=tf.raw_ops.Mul(x=alpha, y=x))],
                  reference="TensorFlow SelectV2(x >= 0, x, alpha * x)")


def _layer_norm(b):
    """_TfhostLayerNorm (written by passes/layer_norm_fusion, never in a
    model) against keras.ops.layer_norm's ops run one by one in TensorFlow."""
    def layer_norm(x, gamma, beta, epsilon):
        mean = tf.raw_ops.Mean(input=x, axis=[-1], keep_dims=True)
        var = tf.raw_ops.Mean(input=tf.raw_ops.SquaredDifference(x=x, y=mean), axis=[-1], keep_dims=True)
        m = tf.raw_ops.Mul(x=tf.raw_ops.Rsqrt(x=tf.raw_ops.AddV2(x=var, y=tf.constant(epsilon))), y=gamma)
        shift = tf.raw_ops.AddV2(x=tf.raw_ops.Mul(x=tf.raw_ops.Neg(x=mean), y=m), y=beta)
        return [tf.raw_ops.AddV2(x=tf.raw_ops.Mul(x=x, y=m), y=shift)]

    b.seed("_TfhostLayerNorm", "rows")
    # BERT's rows (768: whole AVX-512 vectors), rows with a masked tail (37),
    # one channel (the variance is 0), rank 1, gamma as [1, 1, C], and rows
    # off zero. (Far off zero, x * m and -mean * m cancel: the result's error
    # is that of x * m, and any two summation orders of the mean disagree by
    # more than the tolerance; TensorFlow's ops do the same.)
    for name, shape, params, lo, hi, epsilon in (("bert_rows", [1, 4, 768], [768], -4, 6, 1e-12),
                                                 ("tail37", [2, 3, 37], [1, 1, 37], -3, 3, 1e-3),
                                                 ("one_channel", [5, 1], [1], -3, 3, 1e-5),
                                                 ("rank1", [19], [19], -2, 2, 1e-6),
                                                 ("offset", [3, 64], [64], 5, 7, 1e-5)):
        x, gamma, beta = b.rand(shape, lo=lo, hi=hi), b.rand(params, lo=0.5, hi=1.5), b.rand(params)
        attrs = {"T": {"type": "float32"}, "epsilon": {"f": epsilon}}
        b.add("_TfhostLayerNorm", name, [x, gamma, beta], json_attrs=attrs,
              outputs_fn=lambda x=x, gamma=gamma, beta=beta, epsilon=epsilon: layer_norm(x, gamma, beta, epsilon),
              reference="TensorFlow, keras.ops.layer_norm's Mean, SquaredDifference, AddV2, Rsqrt, Mul and Neg "
                        "in turn")
    # _TfhostAddLayerNorm: the norm of a residual sum AddV2(a, b), b of a's
    # shape or broadcasting along the rows.
    b.seed("_TfhostAddLayerNorm", "sums")
    for name, a_shape, b_shape in (("residual", [1, 4, 768], [1, 4, 768]), ("broadcast", [2, 3, 37], [1, 3, 37])):
        x, r = b.rand(a_shape, lo=-4, hi=4), b.rand(b_shape, lo=-3, hi=5)
        gamma, beta = b.rand([a_shape[-1]], lo=0.5, hi=1.5), b.rand([a_shape[-1]])
        b.add("_TfhostAddLayerNorm", name, [x, r, gamma, beta],
              json_attrs={"T": {"type": "float32"}, "epsilon": {"f": 1e-12}},
              outputs_fn=lambda x=x, r=r, gamma=gamma, beta=beta: layer_norm(tf.raw_ops.AddV2(x=x, y=r), gamma, beta,
                                                                           1e-12),
              reference="TensorFlow AddV2, then keras.ops.layer_norm's ops in turn")


def _masked_softmax(b):
    """_TfhostMaskedSoftmax (written by passes/masked_softmax_fusion, never
    in a model) against TensorFlow's SelectV2 and Softmax in turn."""
    b.seed("_TfhostMaskedSoftmax", "masks")
    # Attention's masks on [B, H, T, T] scores (rows of 40: a masked tail;
    # 128: BERT's), a scalar mask, a row-wide mask, one that enlarges the
    # scores, and a -inf fill (fully masked rows are NaN).
    for name, scores, mask, fill in (("keys_and_queries", [2, 3, 5, 40], [2, 1, 5, 40], -1e9),
                                     ("keys", [2, 4, 3, 128], [2, 1, 1, 128], -1e9),
                                     ("scalar_mask", [3, 17], [], -1e9),
                                     ("row_mask", [6, 33], [6, 1], -1e4),
                                     ("enlarging", [1, 20], [3, 20], -1e9),
                                     ("minus_inf_fill", [4, 24], [4, 24], float("-inf"))):
        x, m, f = b.rand(scores, lo=-20, hi=20), b.rand(mask, "bool"), b.const(fill, shape=[])
        b.add("_TfhostMaskedSoftmax", name, [x, m, f], json_attrs={"T": {"type": "float32"}},
              outputs_fn=lambda x=x, m=m, f=f: [tf.raw_ops.Softmax(
                  logits=tf.raw_ops.SelectV2(condition=m, t=x, e=f))],
              reference="TensorFlow SelectV2(mask, logits, fill), then Softmax")
    # zero_masked: Keras's SelectV2(mask, probabilities, 0) after it.
    for name, scores, mask in (("zero_masked_keys_and_queries", [2, 3, 5, 40], [2, 1, 5, 40]),
                               ("zero_masked_keys", [2, 4, 3, 128], [2, 1, 1, 128])):
        x, m, f = b.rand(scores, lo=-20, hi=20), b.rand(mask, "bool"), b.const(-1e9, shape=[])
        b.add("_TfhostMaskedSoftmax", name, [x, m, f],
              json_attrs={"T": {"type": "float32"}, "zero_masked": {"b": True}},
              outputs_fn=lambda x=x, m=m, f=f: [tf.raw_ops.SelectV2(
                  condition=m, t=tf.raw_ops.Softmax(logits=tf.raw_ops.SelectV2(condition=m, t=x, e=f)),
                  e=tf.zeros([], tf.float32))],
              reference="TensorFlow SelectV2(mask, logits, fill), Softmax, then SelectV2(mask, ., 0)")


def build():
    b = Builder(FAMILY)
    _pool(b)
    _softmax_bias(b)
    _batch_norm(b)
    _misc(b)
    _layer_norm(b)
    _masked_softmax(b)
    return b
