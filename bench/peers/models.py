"""Builds one benchmark model with seeded random weights, exports it as a
SavedModel (what tfhost and TensorFlow run, and what every converter starts
from), writes its inputs as .npy files for each batch size, and TensorFlow's
outputs on them as the reference every runtime is checked against.

  scripts/py bench/peers/models.py MODEL BATCH [BATCH ...]

Writes into the cache (common.model_dir(MODEL)): saved_model/,
inputs_b<B>/<key>.npy, tf_reference_b<B>/<key>.npy and export.json last,
whose presence tells bench.py the export is complete. A complete export
asked for more batch sizes gets only their inputs and references.
"""
import os
import shutil
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

import common  # noqa: E402


def randomize_batch_norm(model, rng):
    """Fresh BatchNormalization layers are the identity (mean 0, variance 1,
    scale 1, shift 0), which would let a runtime that folds batch norm wrongly
    pass the cross-check; moderate random statistics make every fold count
    while keeping activations at a sane scale."""
    for layer in model._flatten_layers(include_self=False):
        if isinstance(layer, keras.layers.BatchNormalization):
            shapes = [w.shape for w in layer.get_weights()]
            n = shapes[0][0]
            gamma = rng.uniform(0.8, 1.2, n)
            beta = rng.normal(0.0, 0.05, n)
            mean = rng.normal(0.0, 0.05, n)
            var = rng.uniform(0.8, 1.2, n)
            vals = []
            if layer.scale:
                vals.append(gamma)
            if layer.center:
                vals.append(beta)
            vals += [mean, var]
            layer.set_weights([v.astype("float32") for v in vals])


def image_classifier(ctor):
    def build():
        # weights=None: random initialisation, no download; softmax head kept,
        # since that is the model as users serve it.
        return ctor(weights=None, input_shape=(224, 224, 3), classes=1000)
    return build


def bert_base():
    import keras_hub
    return keras_hub.models.BertBackbone(
        vocabulary_size=30522, num_layers=12, num_heads=12, hidden_dim=768,
        intermediate_dim=3072, max_sequence_length=512)


def lstm():
    return keras.Sequential([
        keras.Input((50, 64), name="sequence"),
        keras.layers.LSTM(256, return_sequences=True),
        keras.layers.LSTM(256),
        keras.layers.Dense(16),
    ])


# Detector geometry: two feature maps (stride 16 and 32 on a 320x320 image),
# three anchors per cell, eight classes: 1500 candidate boxes into NMS.
DET_SIZE, DET_CLASSES, DET_ANCHORS = 320, 8, 3
DET_SCALES = [(20, (0.15, 0.25, 0.35)), (10, (0.4, 0.55, 0.7))]


def detector_backbone():
    inp = keras.Input((DET_SIZE, DET_SIZE, 3), name="images")
    x, feats = inp, []
    for i, ch in enumerate([16, 32, 64, 128, 256]):
        # He initialisation, as for any ReLU network: Keras' default Glorot
        # shrinks the activations layer by layer until every score is alike.
        # (For the depthwise kernels by hand: Keras counts their fan-in as
        # 9 x channels where each output sums 9 inputs.)
        x = keras.layers.Conv2D(ch, 3, strides=2, padding="same", use_bias=False,
                                kernel_initializer="he_normal")(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU(6.0)(x)
        dw_init = keras.initializers.RandomNormal(stddev=(2 / 9) ** 0.5)
        x = keras.layers.DepthwiseConv2D(3, padding="same", use_bias=False, depthwise_initializer=dw_init)(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU(6.0)(x)
        if i >= 3:
            feats.append(x)
    deltas, logits = [], []
    for f in feats:
        d = keras.layers.Conv2D(DET_ANCHORS * 4, 3, padding="same", kernel_initializer="he_normal")(f)
        # A negative prior on the class logits, as detectors are initialised,
        # so only a minority of boxes clear the score threshold.
        c = keras.layers.Conv2D(DET_ANCHORS * DET_CLASSES, 3, padding="same", kernel_initializer="he_normal",
                                bias_initializer=keras.initializers.Constant(-2.0))(f)
        deltas.append(keras.layers.Reshape((-1, 4))(d))
        logits.append(keras.layers.Reshape((-1, DET_CLASSES))(c))
    return keras.Model(inp, [keras.layers.Concatenate(axis=1)(deltas),
                             keras.layers.Concatenate(axis=1)(logits)])


def detector_anchors():
    rows = []
    for cells, sizes in DET_SCALES:
        for y in range(cells):
            for x in range(cells):
                for s in sizes:
                    rows.append(((y + 0.5) / cells, (x + 0.5) / cells, s, s))
    return np.array(rows, dtype="float32")


def detector_postprocess(deltas, logits):
    """Box decoding and NMS inside the signature, as exported detection
    models ship them: the runtimes have to run CombinedNonMaxSuppression."""
    a = tf.constant(detector_anchors())
    cy = a[:, 0] + deltas[..., 0] * 0.1 * a[:, 2]
    cx = a[:, 1] + deltas[..., 1] * 0.1 * a[:, 3]
    h = a[:, 2] * tf.exp(tf.clip_by_value(deltas[..., 2] * 0.2, -4.0, 4.0))
    w = a[:, 3] * tf.exp(tf.clip_by_value(deltas[..., 3] * 0.2, -4.0, 4.0))
    boxes = tf.stack([cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2], axis=-1)
    nms = tf.image.combined_non_max_suppression(
        boxes[:, :, None, :], tf.sigmoid(logits), max_output_size_per_class=20,
        max_total_size=50, iou_threshold=0.5, score_threshold=0.3, clip_boxes=True)
    return {"boxes": nms.nmsed_boxes, "scores": nms.nmsed_scores,
            "classes": nms.nmsed_classes, "num_detections": nms.valid_detections}


def build(name):
    """(Keras model, serving function taking the signature inputs as keyword
    arguments and returning a dict of outputs)."""
    if name == "bert_base":
        m = bert_base()
        return m, lambda **kw: m(kw, training=False)
    if name == "detector":
        m = detector_backbone()
        return m, lambda images: detector_postprocess(*m(images, training=False))
    builders = {
        "mobilenet_v2": image_classifier(keras.applications.MobileNetV2),
        "resnet50": image_classifier(keras.applications.ResNet50),
        "efficientnet_b0": image_classifier(keras.applications.EfficientNetB0),
        "lstm": lstm,
    }
    m = builders[name]()
    key = "probabilities" if name != "lstm" else "output"
    (in_key,) = common.MODELS[name]
    return m, lambda **kw: {key: m(kw[in_key], training=False)}


def reference_outputs(name, loaded, batches):
    """Writes each batch's inputs and the loaded SavedModel's outputs on them;
    returns their export.json records."""
    outputs_meta = {}
    for b in batches:
        inputs = common.make_inputs(name, b)
        common.save_npy_dir(common.inputs_dir(name, b), inputs)
        got = loaded(**{k: tf.constant(v) for k, v in inputs.items()})
        ref = {k: v.numpy() for k, v in got.items()}
        common.save_npy_dir(common.reference_dir(name, b), ref)
        outputs_meta[str(b)] = {k: {"dtype": str(v.dtype), "shape": list(v.shape),
                                    "max_abs": float(np.max(np.abs(v))) if v.size else 0.0}
                                for k, v in ref.items()}
    return outputs_meta


def add_batches(name, batches):
    """An export that lacks some batch sizes gets their inputs and reference
    outputs from the SavedModel it has: the model and its conversions (minutes
    for BERT-base) stay. Returns False when there is no complete export."""
    done = common.model_dir(name) / "export.json"
    if not done.exists():
        return False
    record = common.read_json(done)
    missing = [b for b in batches if str(b) not in record["outputs"]]
    if missing:
        sm = common.model_dir(name) / "saved_model"
        loaded = tf.saved_model.load(str(sm)).signatures["serving_default"]
        record["outputs"].update(reference_outputs(name, loaded, missing))
        common.write_json(done, record)
    return True


def export(name, batches):
    if add_batches(name, batches):
        return
    out = common.model_dir(name)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    t0 = time.time()
    keras.utils.set_random_seed(common.SEED)
    model, serve = build(name)
    randomize_batch_norm(model, np.random.default_rng(common.SEED))

    spec = common.MODELS[name]
    signature = [tf.TensorSpec((None, *shape), dtype, name=key) for key, (dtype, shape, _) in spec.items()]
    keys = list(spec)

    # A named-argument wrapper, so the signature's input keys are the spec's
    # keys and not arg_0, arg_1.
    def fn(*args):
        return serve(**dict(zip(keys, args)))

    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint(name="serving_default", fn=fn, input_signature=signature)
    sm = out / "saved_model"
    archive.write_out(str(sm), verbose=False)

    # The reference comes from the SavedModel as loaded back, the very file
    # every runtime gets, not from the Keras object that wrote it.
    loaded = tf.saved_model.load(str(sm)).signatures["serving_default"]
    outputs_meta = reference_outputs(name, loaded, batches)
    params = int(sum(np.prod(w.shape) for w in model.weights))
    common.write_json(out / "export.json", {
        "model": name, "parameters": params, "seconds": round(time.time() - t0, 1),
        "inputs": {k: {"dtype": d, "shape": [None, *s]} for k, (d, s, _) in spec.items()},
        "outputs": outputs_meta, "tensorflow": tf.__version__, "keras": keras.__version__,
    })


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in common.MODELS:
        sys.exit(f"usage: models.py {{{'|'.join(common.MODELS)}}} BATCH [BATCH ...]")
    export(sys.argv[1], sorted({int(b) for b in sys.argv[2:]}))
