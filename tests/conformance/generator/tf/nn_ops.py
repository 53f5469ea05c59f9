"""Convolutions: 2-D, 3-D and depthwise, their input gradients, _FusedConv2D
with each epilogue TensorFlow's CPU kernel takes, and tfhost's
FusedDepthwiseConv2dNative. Each padding mode, stride, dilation and data
format TensorFlow's CPU kernels accept (pooling and normalization are in
norm_pool_ops.py). Also tfhost's _TfhostLstmCell, a Keras LSTM step's gates
as one node."""
from case_builder import Builder, dtypes_of, tf

FAMILY = "nn"
# Half-precision convolutions are checked against TensorFlow's float32 result
# rounded once (case_builder.Builder.add's in_float32).
HALF = ("float16", "bfloat16")

# _FusedConv2D's op def gives these no defaults; these are what grappler writes.
FUSED_CONV_ATTRS = {"dilations": [1, 1, 1, 1], "data_format": "NHWC", "explicit_paddings": [],
                    "use_cudnn_on_gpu": True, "epsilon": 0.0001, "leakyrelu_alpha": 0.2, "filter_format": "HWIO"}


def _nchw(op, x, w, **attrs):
    y = op(input=tf.transpose(x, [0, 2, 3, 1]), filter=w, **attrs)
    return tf.transpose(y, [0, 3, 1, 2])


def _conv2d(b):
    for dt in dtypes_of("Conv2D"):
        b.seed("Conv2D", dt)
        b.add("Conv2D", dt, [b.rand([1, 4, 4, 2], dt), b.rand([2, 2, 2, 3], dt)],
              {"strides": [1, 1, 1, 1], "padding": "VALID"}, in_float32=dt in HALF)
    b.seed("Conv2D", "attrs")
    x, w = b.rand([2, 5, 6, 3]), b.rand([3, 2, 3, 4])
    for padding in ("SAME", "VALID"):
        for stride in (1, 2):
            for dil in (1, 2):
                if stride > 1 and dil > 1:
                    continue  # TensorFlow's CPU kernel takes one or the other
                b.add("Conv2D", f"{padding}_stride{stride}_dilation{dil}", [x, w],
                      {"strides": [1, stride, stride, 1], "padding": padding, "dilations": [1, dil, dil, 1]})
    b.add("Conv2D", "EXPLICIT", [x, w], {"strides": [1, 1, 2, 1], "padding": "EXPLICIT",
                                         "explicit_paddings": [0, 0, 1, 2, 0, 1, 0, 0]})
    # TensorFlow's CPU kernels take only NHWC: the NCHW reference is the NHWC
    # op between transposes.
    xc = b.rand([1, 3, 5, 5])
    b.add("Conv2D", "NCHW", [xc, w], {"strides": [1, 1, 1, 2], "padding": "SAME", "data_format": "NCHW"},
          outputs_fn=lambda: [_nchw(tf.raw_ops.Conv2D, xc, w, strides=[1, 1, 2, 1], padding="SAME")],
          reference="TensorFlow Conv2D (NHWC) between transposes")
    b.add("Conv2D", "grouped", [b.rand([1, 4, 4, 4]), b.rand([2, 2, 2, 6])],
          {"strides": [1, 1, 1, 1], "padding": "SAME"})
    b.add("Conv2D", "pointwise", [b.rand([1, 3, 3, 8]), b.rand([1, 1, 8, 5])],
          {"strides": [1, 1, 1, 1], "padding": "VALID"})
    # Shapes the fast kernels take: 1x1 stride-1 convolutions (pointwise,
    # any channel count) and wide channel counts.
    b.add("Conv2D", "pointwise_wide", [b.rand([1, 4, 5, 24]), b.rand([1, 1, 24, 37])],
          {"strides": [1, 1, 1, 1], "padding": "SAME"})
    b.add("Conv2D", "wide_3x3", [b.rand([1, 5, 5, 16]), b.rand([3, 3, 16, 20])],
          {"strides": [1, 2, 2, 1], "padding": "SAME"})
    b.add("Conv2D", "empty_batch", [b.rand([0, 4, 4, 3]), w], {"strides": [1, 1, 1, 1], "padding": "SAME"})
    for dt in dtypes_of("Conv2DBackpropInput"):
        b.seed("Conv2DBackpropInput", dt)
        b.add("Conv2DBackpropInput", dt, [b.const([1, 4, 4, 2], "int32"), b.rand([2, 2, 2, 3], dt),
                                          b.rand([1, 3, 3, 3], dt)], {"strides": [1, 1, 1, 1], "padding": "VALID"},
              in_float32=dt in HALF)
    b.seed("Conv2DBackpropInput", "attrs")
    for padding in ("SAME", "VALID"):
        for stride in (1, 2):
            out = [2, 3, 3, 4] if stride == 2 and padding == "SAME" else \
                [2, 5, 5, 4] if padding == "SAME" else [2, (6 - 3) // stride + 1, (6 - 3) // stride + 1, 4]
            b.add("Conv2DBackpropInput", f"{padding}_stride{stride}",
                  [b.const([2, 6, 6, 3] if padding == "VALID" or stride == 2 else [2, 5, 5, 3], "int32"),
                   b.rand([3, 3, 3, 4]), b.rand(out)], {"strides": [1, stride, stride, 1], "padding": padding})
    b.add("Conv2DBackpropInput", "EXPLICIT", [b.const([1, 4, 4, 2], "int32"), b.rand([3, 3, 2, 2]),
                                              b.rand([1, 3, 4, 2])],
          {"strides": [1, 1, 1, 1], "padding": "EXPLICIT", "explicit_paddings": [0, 0, 0, 1, 1, 1, 0, 0]})
    b.add("Conv2DBackpropInput", "dilated", [b.const([1, 5, 5, 2], "int32"), b.rand([2, 2, 2, 3]),
                                             b.rand([1, 3, 3, 3])],
          {"strides": [1, 1, 1, 1], "padding": "VALID", "dilations": [1, 2, 2, 1]})


def _fused_reference(x, w, args, fused, padding="SAME"):
    """What _FusedConv2D's epilogue means, in TensorFlow's separate ops."""
    y = tf.raw_ops.Conv2D(input=x, filter=w, strides=[1, 1, 1, 1], padding=padding)
    ops = fused.split("_")
    if ops[0] == "BiasAdd":
        y = tf.raw_ops.BiasAdd(value=y, bias=args[0])
    else:
        y = tf.raw_ops.FusedBatchNormV3(x=y, scale=args[0], offset=args[1], mean=args[2], variance=args[3],
                                        epsilon=0.0001, is_training=False)[0]
    if "Add" in ops:
        y = tf.raw_ops.AddV2(x=y, y=args[-1])
    act = {"Relu": tf.raw_ops.Relu, "Relu6": tf.raw_ops.Relu6, "Elu": tf.raw_ops.Elu}
    if ops[-1] in act:
        y = act[ops[-1]](features=y)
    elif ops[-1] == "LeakyRelu":
        y = tf.raw_ops.LeakyRelu(features=y, alpha=0.25)
    elif ops[-1] in ("Tanh", "Sigmoid"):
        y = getattr(tf.raw_ops, ops[-1])(x=y)
    elif ops[-1] == "MklSwish":  # "_MklSwish" split on "_"
        y = tf.raw_ops.Mul(x=y, y=tf.raw_ops.Sigmoid(x=y))
    return [y]


def _fused_reference_strided(x, w, args, fused):
    """_fused_reference for a stride-2 SAME convolution."""
    y = tf.raw_ops.BiasAdd(value=tf.raw_ops.Conv2D(input=x, filter=w, strides=[1, 2, 2, 1], padding="SAME"),
                           bias=args[0])
    if fused[-1] == "Relu6":
        return [tf.raw_ops.Relu6(features=y)]
    return [tf.raw_ops.Mul(x=y, y=tf.raw_ops.Sigmoid(x=y))]


def _fused_conv(b):
    # Where TensorFlow's CPU kernel lacks a fusion (Add, Tanh, Sigmoid, any
    # float16), the reference is Conv2D followed by the epilogue's own ops.
    fusions = ["BiasAdd", "BiasAdd_Relu", "BiasAdd_Relu6", "BiasAdd_Elu", "BiasAdd_LeakyRelu", "BiasAdd_Add",
               "BiasAdd_Add_Relu", "FusedBatchNorm", "FusedBatchNorm_Relu", "BiasAdd_Tanh", "BiasAdd_Sigmoid"]
    for fused in fusions:
        for dt in dtypes_of("_FusedConv2D"):
            b.seed("_FusedConv2D", fused + dt)
            x, w = b.rand([1, 5, 5, 3], dt), b.rand([3, 3, 3, 4], dt)
            if fused.startswith("FusedBatchNorm"):
                args = [b.rand([4], dt), b.rand([4], dt), b.rand([4], dt), b.rand([4], dt, 0.5, 2)]
            else:
                args = [b.rand([4], dt)] + ([b.rand([1, 5, 5, 4], dt)] if "Add" in fused.split("_") else [])
            b.add("_FusedConv2D", f"{fused}_{dt}", [x, w, args, []],
                  {**FUSED_CONV_ATTRS, "num_args": len(args), "strides": [1, 1, 1, 1], "padding": "SAME",
                   "fused_ops": fused.split("_"), "leakyrelu_alpha": 0.25},
                  fallback_fn=lambda x=x, w=w, args=args, fused=fused: _fused_reference(x, w, args, fused),
                  reference="TensorFlow Conv2D + the epilogue's ops")
    b.seed("_FusedConv2D", "shapes")
    for padding, stride in (("VALID", 2), ("SAME", 2)):
        b.add("_FusedConv2D", f"{padding}_stride{stride}", [b.rand([2, 6, 5, 2]), b.rand([3, 3, 2, 3]),
                                                            [b.rand([3])], []],
              {**FUSED_CONV_ATTRS, "num_args": 1, "strides": [1, stride, stride, 1], "padding": padding,
               "fused_ops": ["BiasAdd", "Relu"]})
    b.add("_FusedConv2D", "pointwise", [b.rand([1, 3, 3, 8]), b.rand([1, 1, 8, 4]), [b.rand([4])], []],
          {**FUSED_CONV_ATTRS, "num_args": 1, "strides": [1, 1, 1, 1], "padding": "VALID",
           "fused_ops": ["BiasAdd", "Relu6"]})
    # Sigmoid and Swish: EfficientNet's squeeze-and-excitation gates and
    # expansions, wide enough for the SIMD 1x1 kernel's vectors and tail.
    for fused in (["BiasAdd"], ["BiasAdd", "Relu"], ["BiasAdd", "Relu6"], ["BiasAdd", "Add", "Relu"],
                  ["BiasAdd", "Sigmoid"], ["BiasAdd", "_MklSwish"], ["BiasAdd", "Add", "_MklSwish"]):
        xw, ww = b.rand([1, 4, 5, 24]), b.rand([1, 1, 24, 37])
        args = [b.rand([37])] + ([b.rand([1, 4, 5, 37])] if "Add" in fused else [])
        b.add("_FusedConv2D", "pointwise_wide_" + "_".join(op.lstrip("_") for op in fused), [xw, ww, args, []],
              {**FUSED_CONV_ATTRS, "num_args": len(args), "strides": [1, 1, 1, 1], "padding": "VALID",
               "fused_ops": fused},
              fallback_fn=lambda xw=xw, ww=ww, args=args, fused=fused: _fused_reference(
                  xw, ww, args, "_".join(fused), padding="VALID"),
              reference="TensorFlow Conv2D + the epilogue's ops")
    b.add("_FusedConv2D", "dilated", [b.rand([1, 6, 6, 2]), b.rand([2, 2, 2, 3]), [b.rand([3])], []],
          {**FUSED_CONV_ATTRS, "num_args": 1, "strides": [1, 1, 1, 1], "padding": "SAME", "dilations": [1, 2, 2, 1],
           "fused_ops": ["BiasAdd"]})
    # A network's first convolution: 3 input channels, 32 output channels,
    # stride 2 (the SIMD stem kernel's form), with Relu6 and with Swish.
    b.seed("_FusedConv2D", "stem")
    for fused in (["BiasAdd", "Relu6"], ["BiasAdd", "_MklSwish"]):
        xs, ws = b.rand([1, 9, 10, 3]), b.rand([3, 3, 3, 32])
        args = [b.rand([32])]
        b.add("_FusedConv2D", "stem_" + "_".join(op.lstrip("_") for op in fused), [xs, ws, args, []],
              {**FUSED_CONV_ATTRS, "num_args": 1, "strides": [1, 2, 2, 1], "padding": "SAME", "fused_ops": fused},
              fallback_fn=lambda xs=xs, ws=ws, args=args, fused=fused: _fused_reference_strided(xs, ws, args, fused),
              reference="TensorFlow Conv2D + the epilogue's ops")


def _depthwise(b):
    for dt in dtypes_of("DepthwiseConv2dNative"):
        b.seed("DepthwiseConv2dNative", dt)
        b.add("DepthwiseConv2dNative", dt, [b.rand([1, 4, 4, 2], dt), b.rand([2, 2, 2, 2], dt)],
              {"strides": [1, 1, 1, 1], "padding": "VALID"}, in_float32=dt in HALF)
    b.seed("DepthwiseConv2dNative", "attrs")
    x = b.rand([2, 6, 5, 3])
    for padding in ("SAME", "VALID"):
        for stride, dil in ((1, 1), (2, 1), (1, 2)):
            for mult in (1, 2):
                w = b.rand([3, 3, 3, mult])
                # TensorFlow's CPU kernel has no dilations; tf.nn.depthwise_conv2d
                # computes them as SpaceToBatchND + the op + BatchToSpaceND.
                fn = None if dil == 1 else lambda w=w, padding=padding, dil=dil: [tf.nn.depthwise_conv2d(
                    x, w, [1, 1, 1, 1], padding, dilations=[dil, dil])]
                b.add("DepthwiseConv2dNative", f"{padding}_stride{stride}_dilation{dil}_mult{mult}", [x, w],
                      {"strides": [1, stride, stride, 1], "padding": padding, "dilations": [1, dil, dil, 1]},
                      outputs_fn=fn, reference=fn and "TensorFlow tf.nn.depthwise_conv2d (space-to-batch)")
    b.add("DepthwiseConv2dNative", "EXPLICIT", [x, b.rand([3, 3, 3, 1])],
          {"strides": [1, 1, 1, 1], "padding": "EXPLICIT", "explicit_paddings": [0, 0, 1, 1, 2, 0, 0, 0]})
    xc, wc = b.rand([1, 3, 5, 5]), b.rand([3, 3, 3, 1])
    b.add("DepthwiseConv2dNative", "NCHW", [xc, wc], {"strides": [1, 1, 1, 1], "padding": "SAME",
                                                      "data_format": "NCHW"},
          outputs_fn=lambda: [_nchw(tf.raw_ops.DepthwiseConv2dNative, xc, wc, strides=[1, 1, 1, 1],
                                    padding="SAME")],
          reference="TensorFlow DepthwiseConv2dNative (NHWC) between transposes")
    b.add("DepthwiseConv2dNative", "channels8_3x3", [b.rand([1, 6, 6, 8]), b.rand([3, 3, 8, 1])],
          {"strides": [1, 1, 1, 1], "padding": "SAME"})
    b.add("DepthwiseConv2dNative", "channels16_stride2", [b.rand([1, 7, 7, 16]), b.rand([3, 3, 16, 1])],
          {"strides": [1, 2, 2, 1], "padding": "SAME"})
    for dt in dtypes_of("DepthwiseConv2dNativeBackpropInput"):
        b.seed("DepthwiseConv2dNativeBackpropInput", dt)
        for padding, stride in (("VALID", 1), ("SAME", 2)):
            out = [1, 4, 4, 4] if padding == "VALID" else [1, 3, 3, 4]
            b.add("DepthwiseConv2dNativeBackpropInput", f"{dt}_{padding}_stride{stride}",
                  [b.const([1, 5, 5, 2], "int32"), b.rand([2, 2, 2, 2], dt), b.rand(out, dt)],
                  {"strides": [1, stride, stride, 1], "padding": padding}, in_float32=dt in HALF)
    # tfhost's FusedDepthwiseConv2dNative (TF.js's name) against TensorFlow's
    # DepthwiseConv2dNative + BiasAdd + activation.
    for fused in ("BiasAdd", "BiasAdd_Relu", "BiasAdd_Relu6"):
        b.seed("FusedDepthwiseConv2dNative", fused)
        x, w, bias = b.rand([1, 5, 5, 3]), b.rand([3, 3, 3, 2]), b.rand([6])
        attrs = {"T": {"type": "float32"}, "num_args": {"i": 1}, "strides": {"list_i": [1, 1, 1, 1]},
                 "padding": {"s": "SAME"}, "fused_ops": {"list_s": fused.split("_")}}

        def reference(x=x, w=w, bias=bias, fused=fused):
            y = tf.raw_ops.BiasAdd(value=tf.raw_ops.DepthwiseConv2dNative(
                input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME"), bias=bias)
            act = {"BiasAdd": lambda v: v, "BiasAdd_Relu": lambda v: tf.raw_ops.Relu(features=v),
                   "BiasAdd_Relu6": lambda v: tf.raw_ops.Relu6(features=v)}[fused]
            return [act(y)]
        b.add("FusedDepthwiseConv2dNative", fused, [x, w, [bias]], json_attrs=attrs, outputs_fn=reference,
              reference="TensorFlow DepthwiseConv2dNative + BiasAdd + activation op")
    # One filter per channel, as the SIMD 3x3 kernel takes it; Sigmoid and
    # Swish (EfficientNet's depthwise layers) beside Relu6.
    for fused in (["BiasAdd", "Relu6"], ["BiasAdd", "Sigmoid"], ["BiasAdd", "_MklSwish"]):
        name = "channels24_" + "_".join(op.lstrip("_") for op in fused)
        b.seed("FusedDepthwiseConv2dNative", name)
        x, w, bias = b.rand([1, 6, 7, 24], lo=-4, hi=4), b.rand([3, 3, 24, 1]), b.rand([24])
        attrs = {"T": {"type": "float32"}, "num_args": {"i": 1}, "strides": {"list_i": [1, 1, 1, 1]},
                 "padding": {"s": "SAME"}, "fused_ops": {"list_s": fused}}

        def reference(x=x, w=w, bias=bias, act=fused[1]):
            y = tf.raw_ops.BiasAdd(value=tf.raw_ops.DepthwiseConv2dNative(
                input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME"), bias=bias)
            if act == "Relu6":
                return [tf.raw_ops.Relu6(features=y)]
            sigmoid = tf.raw_ops.Sigmoid(x=y)
            return [sigmoid if act == "Sigmoid" else tf.raw_ops.Mul(x=y, y=sigmoid)]
        b.add("FusedDepthwiseConv2dNative", name, [x, w, [bias]], json_attrs=attrs, outputs_fn=reference,
              reference="TensorFlow DepthwiseConv2dNative + BiasAdd + activation ops")


def _conv3d(b):
    for dt in dtypes_of("Conv3D"):
        b.seed("Conv3D", dt)
        b.add("Conv3D", dt, [b.rand([1, 3, 4, 4, 2], dt), b.rand([2, 2, 2, 2, 3], dt)],
              {"strides": [1, 1, 1, 1, 1], "padding": "VALID"}, in_float32=dt in HALF)
    b.seed("Conv3D", "attrs")
    x, w = b.rand([1, 4, 5, 4, 2]), b.rand([2, 3, 2, 2, 3])
    for padding in ("SAME", "VALID"):
        b.add("Conv3D", f"{padding}_stride2", [x, w], {"strides": [1, 2, 2, 1, 1], "padding": padding})
    b.add("Conv3D", "dilated", [x, w], {"strides": [1, 1, 1, 1, 1], "padding": "SAME",
                                        "dilations": [1, 2, 1, 2, 1]},
          outputs_fn=lambda: [tf.nn.convolution(x, w, padding="SAME", dilations=[2, 1, 2])],
          reference="TensorFlow tf.nn.convolution (space-to-batch)")
    for dt in dtypes_of("Conv3DBackpropInputV2"):
        b.seed("Conv3DBackpropInputV2", dt)
        for padding, stride in (("VALID", 1), ("SAME", 2)):
            out = [1, 2, 3, 3, 3] if padding == "VALID" else [1, 2, 2, 2, 3]
            b.add("Conv3DBackpropInputV2", f"{dt}_{padding}_stride{stride}",
                  [b.const([1, 3, 4, 4, 2], "int32"), b.rand([2, 2, 2, 2, 3], dt), b.rand(out, dt)],
                  {"strides": [1, stride, stride, stride, 1], "padding": padding}, in_float32=dt in HALF)


def _lstm_cell(b):
    """_TfhostLstmCell (written by passes/lstm_cell_fusion, never in a model)
    against the Keras LSTM step's ops run one by one in TensorFlow."""
    def step(x, y, bias, c):
        i, f, g, o = tf.split(tf.nn.bias_add(x + y, bias), 4, axis=1)
        c_out = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
        return [tf.sigmoid(o) * tf.tanh(c_out), c_out]

    b.seed("_TfhostLstmCell", "steps")
    attrs = {"T": {"type": "float32"}}
    for units, rows in ((3, (1, 1, 1)), (17, (4, 4, 4)), (17, (1, 4, 4)), (40, (4, 1, 1))):
        x, y = b.rand([rows[0], 4 * units], lo=-6, hi=6), b.rand([rows[1], 4 * units], lo=-6, hi=6)
        bias, c = b.rand([4 * units], lo=-1, hi=1), b.rand([rows[2], units], lo=-3, hi=3)
        name = f"units{units}_rows{'_'.join(map(str, rows))}"
        b.add("_TfhostLstmCell", name, [x, y, bias, c], json_attrs=attrs,
              outputs_fn=lambda x=x, y=y, bias=bias, c=c: step(x, y, bias, c),
              reference="TensorFlow, the Keras LSTM step's AddV2, BiasAdd, Split, Sigmoid, Tanh and Mul in turn")


def _expand_depthwise(b):
    """_TfhostExpandDepthwise (written by passes/expand_depthwise_fusion,
    never in a model) against TensorFlow's 1x1 Conv2D, BiasAdd, activation,
    DepthwiseConv2dNative, BiasAdd and activation in turn."""
    def act(v, name):
        if name == "Relu6":
            return tf.raw_ops.Relu6(features=v)
        return tf.raw_ops.Mul(x=v, y=tf.raw_ops.Sigmoid(x=v))  # _MklSwish

    b.seed("_TfhostExpandDepthwise", "blocks")
    # MobileNetV2's stride-2 block (Relu6, Keras's padding folded into the
    # depthwise layer) and EfficientNet's (Swish, SAME); 24 and 40 expanded
    # channels (a masked last vector in the SIMD kernel's rows).
    for name, activation, padding, pads, e in (("relu6_explicit", "Relu6", "EXPLICIT", [0, 0, 0, 1, 0, 1, 0, 0], 24),
                                               ("swish_same", "_MklSwish", "SAME", [], 40)):
        x, we, be = b.rand([1, 9, 8, 5]), b.rand([1, 1, 5, e]), b.rand([e])
        wd, bd = b.rand([3, 3, e, 1]), b.rand([e])
        attrs = {"T": {"type": "float32"}, "strides": {"list_i": [1, 2, 2, 1]}, "padding": {"s": padding},
                 "expand_fused_ops": {"list_s": ["BiasAdd", activation]},
                 "depthwise_fused_ops": {"list_s": ["BiasAdd", activation]}}
        if pads:
            attrs["explicit_paddings"] = {"list_i": pads}

        def reference(x=x, we=we, be=be, wd=wd, bd=bd, activation=activation, padding=padding, pads=pads):
            y = act(tf.raw_ops.BiasAdd(value=tf.raw_ops.Conv2D(input=x, filter=we, strides=[1, 1, 1, 1],
                                                               padding="VALID"), bias=be), activation)
            if pads:
                y = tf.pad(y, [[0, 0], [pads[2], pads[3]], [pads[4], pads[5]], [0, 0]])
            y = tf.raw_ops.DepthwiseConv2dNative(input=y, filter=wd, strides=[1, 2, 2, 1],
                                                 padding="VALID" if pads else padding)
            return [act(tf.raw_ops.BiasAdd(value=y, bias=bd), activation)]
        b.add("_TfhostExpandDepthwise", name, [x, we, be, wd, bd], json_attrs=attrs, outputs_fn=reference,
              reference="TensorFlow Conv2D, BiasAdd, activation, DepthwiseConv2dNative, BiasAdd, activation")


def build():
    b = Builder(FAMILY)
    _conv2d(b)
    _fused_conv(b)
    _depthwise(b)
    _conv3d(b)
    _lstm_cell(b)
    _expand_depthwise(b)
    return b
