"""keras.applications image classifiers with random weights, each at the
smallest input it accepts, exported with Keras 3's model.export. Weights are
random (seed 0): He-normal kernels, random biases and norm scales
(zoo_lib.liven_keras), so the input still shapes the logits after 50 layers.

The classifier head is cut to 10 classes: the head's size does not change
what the graph exercises, and the full 1000-class heads would only add disk.
Most heads return logits (classifier_activation=None) because a softmax over
random-weight logits saturates to a one-hot vector that hides small errors in
every layer beneath it; MobileNetV2 keeps the softmax that deployed
classifiers end with (its probabilities stay well away from one-hot).
"""
import keras
import numpy as np

from zoo_lib import DEFAULT_TOLERANCE, Io, export_keras, keras_io, liven_keras, model

FAMILY = "keras_applications"
BATCH = 2
CLASSES = 10


def _export_app(ctx, ctor, size, pixel_range, gain=1.0, **kwargs):
    image = keras.Input((size, size, 3), name="image")
    net = ctor(weights=None, input_tensor=image, input_shape=(size, size, 3),
               classes=CLASSES, **kwargs)
    export_keras(net, ctx, he=True, gain=gain)
    lo, hi = pixel_range
    x = ctx.uniform((BATCH, size, size, 3), lo, hi)
    return keras_io({"image": x}, _float32_tolerance(net, ctor, size, kwargs, x))


STEPS = (2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3)


def _float32_tolerance(net, ctor, size, kwargs, x):
    """Runs a float64 twin of `net` (same weights) to see how far TensorFlow's
    own float32 result is from the exact one. Another correct float32
    implementation lands about as far away, in another direction, so where
    5x that drift exceeds the default tolerance the output gets a looser one,
    sized from the measurement."""
    try:
        keras.config.set_floatx("float64")
        keras.config.set_dtype_policy("float64")
        twin = ctor(weights=None, input_tensor=keras.Input((size, size, 3), dtype="float64"),
                    input_shape=(size, size, 3), classes=CLASSES, **kwargs)
    finally:
        keras.config.set_floatx("float32")
        keras.config.set_dtype_policy("float32")
    twin.set_weights(net.get_weights())
    exact = np.asarray(twin(x.astype(np.float64)))
    drift = float(np.abs(np.asarray(net(x), np.float64) - exact).max() / np.abs(exact).max())
    if 5 * drift <= DEFAULT_TOLERANCE:
        return {}
    tol = next((t for t in STEPS if t >= 5 * drift), None)
    if tol is None:
        raise ValueError(f"float32 drift {drift:.1e} of {net.name} is beyond any tolerance worth testing")
    layers = sum(type(layer).__name__ in ("Conv2D", "DepthwiseConv2D", "SeparableConv2D", "Dense")
                 for layer in net._flatten_layers(include_self=False))
    why = (f"Conv2D/DepthwiseConv2D/MatMul float32 accumulation compounding over {layers} layers: "
           f"TensorFlow's own float32 output is {drift:.1e} of max|out| from a float64 run of the same weights")
    return {"*": (tol, why)}


# Inputs in [-1, 1] for the nets whose preprocessing lives outside the model;
# the ones with a Rescaling/Normalization layer inside take raw [0, 255] pixels.
UNIT = (-1.0, 1.0)
PIXELS = (0.0, 255.0)
LOGITS = {"classifier_activation": None}


@model("mobilenet_v2", FAMILY, "keras.applications.MobileNetV2, 32x32, softmax head, random weights (seed 0)")
def mobilenet_v2(ctx):
    return _export_app(ctx, keras.applications.MobileNetV2, 32, UNIT)


@model("mobilenet_v3_small", FAMILY,
       "keras.applications.MobileNetV3Small, 32x32, hard-swish, SE blocks, built-in rescaling, logits")
def mobilenet_v3_small(ctx):
    return _export_app(ctx, keras.applications.MobileNetV3Small, 32, PIXELS, **LOGITS)


@model("resnet50", FAMILY, "keras.applications.ResNet50, 32x32, logits")
def resnet50(ctx):
    return _export_app(ctx, keras.applications.ResNet50, 32, UNIT, **LOGITS)


@model("resnet50_v2", FAMILY, "keras.applications.ResNet50V2 (pre-activation), 32x32, logits")
def resnet50_v2(ctx):
    return _export_app(ctx, keras.applications.ResNet50V2, 32, UNIT, **LOGITS)


@model("efficientnet_b0", FAMILY,
       "keras.applications.EfficientNetB0, 32x32, swish, SE, built-in Normalization, logits")
def efficientnet_b0(ctx):
    # At gain 1.0 its swish/SE stack fades the input to 1e-4 of the logits;
    # at 1.4 it turns chaotic (float32 drift 5e-4); 1.2 keeps both in check.
    return _export_app(ctx, keras.applications.EfficientNetB0, 32, PIXELS, gain=1.2, **LOGITS)


@model("efficientnet_v2_b0", FAMILY,
       "keras.applications.EfficientNetV2B0, 32x32, fused MBConv, built-in rescaling, logits")
def efficientnet_v2_b0(ctx):
    return _export_app(ctx, keras.applications.EfficientNetV2B0, 32, PIXELS, **LOGITS)


@model("densenet121", FAMILY, "keras.applications.DenseNet121, 32x32, concat-heavy dense blocks, logits")
def densenet121(ctx):
    return _export_app(ctx, keras.applications.DenseNet121, 32, UNIT, **LOGITS)


@model("inception_v3", FAMILY, "keras.applications.InceptionV3, 75x75 (its minimum), logits")
def inception_v3(ctx):
    return _export_app(ctx, keras.applications.InceptionV3, 75, UNIT, **LOGITS)


@model("xception", FAMILY, "keras.applications.Xception, 71x71 (its minimum), separable convs, logits")
def xception(ctx):
    return _export_app(ctx, keras.applications.Xception, 71, UNIT, **LOGITS)


@model("nasnet_mobile", FAMILY, "keras.applications.NASNetMobile, 32x32, cropping/zero-padding cells, logits")
def nasnet_mobile(ctx):
    return _export_app(ctx, keras.applications.NASNetMobile, 32, UNIT, **LOGITS)


@model("convnext_tiny", FAMILY,
       "keras.applications.ConvNeXtTiny, 32x32, LayerNorm, GELU, layer scale, built-in Normalization, logits")
def convnext_tiny(ctx):
    return _export_app(ctx, keras.applications.ConvNeXtTiny, 32, PIXELS, **LOGITS)


@model("regnetx002", FAMILY,
       "tf_keras.applications.RegNetX002 (Keras 3 dropped RegNet), 32x32, grouped convs, built-in rescaling, "
       "logits; saved with tf_keras model.save (Keras 2 SavedModel with its layer call functions)")
def regnetx002(ctx):
    import tf_keras

    tf_keras.utils.set_random_seed(ctx.seed)
    image = tf_keras.Input((32, 32, 3), name="image")
    net = tf_keras.applications.RegNetX002(weights=None, input_tensor=image, input_shape=(32, 32, 3),
                                           classes=CLASSES, classifier_activation=None)
    liven_keras(net, ctx.rng, he=True)
    net.save(ctx.export_dir, save_format="tf", include_optimizer=False)
    return Io({"serving_default": {"image": ctx.uniform((BATCH, 32, 32, 3), 0.0, 255.0)}})


@model("vgg16", FAMILY, "keras.applications.VGG16, 32x32, Flatten + two 4096 Dense layers, logits")
def vgg16(ctx):
    return _export_app(ctx, keras.applications.VGG16, 32, UNIT, **LOGITS)
