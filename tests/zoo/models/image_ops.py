"""Image serving graphs: encoded bytes decoded inside the signature, the
resize/crop/NMS ops of detection pre- and post-processing, and a small U-Net.
"""
import keras
import numpy as np
import tensorflow as tf

from zoo_lib import Io, export_keras, keras_io, model, strings

FAMILY = "image"
JPEG_WHY = ("DecodeJpeg: libjpeg builds differ by one level (1/255) in IDCT rounding "
            "and fancy chroma upsampling")


def _photo(ctx, h, w):
    """A smooth image with some texture, closer to a photo than white noise
    (noise makes JPEG keep only garbage, with nothing to compare)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.stack([xx / w, yy / h, 0.5 + 0.5 * np.sin((xx + yy) / 5.0)], -1) * 200.0
    return np.clip(base + ctx.normal((h, w, 3), 12.0), 0, 255).astype(np.uint8)


class _Classifier(tf.Module):
    def __init__(self):
        self.kernel = tf.Variable(tf.random.stateless_normal([3, 3, 3, 8], seed=[11, 12]) * 0.3)
        self.w = tf.Variable(tf.random.stateless_normal([8, 4], seed=[13, 14]))

    def head(self, pixels):
        h = tf.nn.relu(tf.nn.conv2d(pixels, self.kernel, 1, "SAME"))
        return tf.matmul(tf.reduce_mean(h, [1, 2]), self.w)


class _Jpeg(_Classifier):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="image_bytes")])
    def __call__(self, image_bytes):
        def decode(b):
            img = tf.io.decode_jpeg(b, channels=3)
            return tf.image.resize(tf.image.convert_image_dtype(img, tf.float32), [32, 32])
        pixels = tf.map_fn(decode, image_bytes, fn_output_signature=tf.TensorSpec([32, 32, 3]))
        return {"pixels": pixels, "logits": self.head(pixels)}


@model("decode_jpeg", FAMILY,
       "encoded JPEG bytes [batch] -> map_fn(DecodeJpeg, convert_image_dtype, resize 32x32) -> conv -> logits")
def decode_jpeg(ctx):
    m = _Jpeg()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    blobs = [tf.io.encode_jpeg(_photo(ctx, 40, 48), quality=90).numpy(),
             tf.io.encode_jpeg(_photo(ctx, 36, 36), quality=75, chroma_downsampling=False).numpy()]
    return Io({"serving_default": {"image_bytes": strings(blobs)}},
              {"serving_default/*": (1e-2, JPEG_WHY)})


class _Png(_Classifier):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="image_bytes")])
    def __call__(self, image_bytes):
        raw = tf.map_fn(lambda b: tf.io.decode_png(b, channels=3), image_bytes,
                        fn_output_signature=tf.TensorSpec([24, 24, 3], tf.uint8))
        # decode_image sniffs the format; a PNG with alpha dropped to RGB.
        first = tf.io.decode_image(image_bytes[0], channels=3, expand_animations=False)
        pixels = tf.cast(raw, tf.float32) / 255.0
        return {"decoded": raw, "decode_image": first, "logits": self.head(pixels)}


@model("decode_png", FAMILY,
       "encoded PNG bytes (RGB and RGBA) -> DecodePng / DecodeImage (lossless, exact uint8) -> conv -> logits")
def decode_png(ctx):
    m = _Png()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    rgba = np.concatenate([_photo(ctx, 24, 24), np.full((24, 24, 1), 200, np.uint8)], -1)
    blobs = [tf.io.encode_png(rgba).numpy(), tf.io.encode_png(_photo(ctx, 24, 24), compression=9).numpy()]
    return Io({"serving_default": {"image_bytes": strings(blobs)}})


class _Nms(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 12, 1, 4], name="boxes"),
                                  tf.TensorSpec([None, 12, 3], name="scores")])
    def __call__(self, boxes, scores):
        out = tf.image.combined_non_max_suppression(
            boxes, scores, max_output_size_per_class=3, max_total_size=6,
            iou_threshold=0.5, score_threshold=0.1, clip_boxes=True)
        single = tf.image.non_max_suppression(boxes[0, :, 0], scores[0, :, 0], 4, iou_threshold=0.4)
        soft_idx, soft_scores = tf.image.non_max_suppression_with_scores(
            boxes[0, :, 0], scores[0, :, 1], 5, iou_threshold=1.0, score_threshold=0.05, soft_nms_sigma=0.5)
        return {"nmsed_boxes": out.nmsed_boxes, "nmsed_scores": out.nmsed_scores,
                "nmsed_classes": out.nmsed_classes, "valid_detections": out.valid_detections,
                "nms_indices": single, "soft_nms_indices": soft_idx, "soft_nms_scores": soft_scores}


@model("nms", FAMILY,
       "detection post-processing: combined_non_max_suppression, NonMaxSuppressionV3, soft-NMS (V5)")
def nms(ctx):
    m = _Nms()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    # Boxes clustered around a few centres so that suppression has work to do;
    # scores are a shuffled even grid, so no two candidates tie.
    centres = ctx.uniform((2, 12, 1, 2), 0.2, 0.8)
    centres[:, 6:] = centres[:, :6] + ctx.normal((2, 6, 1, 2), 0.03)
    size = ctx.uniform((2, 12, 1, 2), 0.15, 0.35)
    boxes = np.concatenate([centres - size / 2, centres + size / 2], -1).astype(np.float32)
    boxes[0, 3, 0] = [-0.1, 0.9, 0.2, 1.2]  # clip_boxes has something to clip
    grid = np.linspace(0.02, 0.98, 2 * 12 * 3, dtype=np.float32)
    scores = ctx.rng.permutation(grid).reshape(2, 12, 3).astype(np.float32)
    return Io({"serving_default": {"boxes": boxes, "scores": scores}})


class _Crop(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 16, 16, 3], name="image"),
                                  tf.TensorSpec([None, 4], name="boxes"),
                                  tf.TensorSpec([None], tf.int32, name="box_indices")])
    def __call__(self, image, boxes, box_indices):
        return {
            "bilinear": tf.image.crop_and_resize(image, boxes, box_indices, [5, 7], extrapolation_value=-1.0),
            "nearest": tf.image.crop_and_resize(image, boxes, box_indices, [4, 4], method="nearest"),
            "central": tf.image.central_crop(image, 0.5),
            "pad_crop": tf.image.pad_to_bounding_box(tf.image.crop_to_bounding_box(image, 2, 3, 9, 8),
                                                     1, 2, 12, 12),
        }


@model("crop_and_resize", FAMILY,
       "CropAndResize bilinear (boxes partly outside the image -> extrapolation) and nearest, crop/pad boxes")
def crop_and_resize(ctx):
    m = _Crop()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    boxes = np.array([[0.1, 0.1, 0.6, 0.9], [0.5, 0.0, 1.0, 0.5], [-0.2, 0.3, 0.7, 1.3], [0.8, 0.6, 0.2, 0.1]],
                     np.float32)
    return Io({"serving_default": {"image": ctx.normal((2, 16, 16, 3)), "boxes": boxes,
                                   "box_indices": np.array([0, 1, 1, 0], np.int32)}})


class _Resize(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 7, 9, 3], name="image")])
    def __call__(self, image):
        v1 = tf.compat.v1.image
        return {
            "bilinear_up": tf.image.resize(image, [13, 20], "bilinear"),
            "bilinear_down": tf.image.resize(image, [4, 5], "bilinear"),
            "nearest_up": tf.image.resize(image, [14, 18], "nearest"),
            "nearest_down": tf.image.resize(image, [3, 4], "nearest"),
            "bicubic": tf.image.resize(image, [11, 6], "bicubic"),
            "area": tf.image.resize(image, [3, 3], "area"),
            "antialias_bilinear": tf.image.resize(image, [4, 5], "bilinear", antialias=True),
            "v1_bilinear_align_corners": v1.resize_bilinear(image, [13, 20], align_corners=True),
            "v1_nearest_align_corners": v1.resize_nearest_neighbor(image, [10, 10], align_corners=True),
            "v1_bilinear_legacy": v1.resize_bilinear(image, [10, 12], half_pixel_centers=False),
            "with_pad": tf.image.resize_with_pad(image, 8, 8),
        }


@model("image_resize", FAMILY,
       "tf.image.resize bilinear/nearest/bicubic/area/antialias, v1 align_corners and legacy variants, "
       "resize_with_pad")
def image_resize(ctx):
    m = _Resize()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    return Io({"serving_default": {"image": ctx.uniform((2, 7, 9, 3), 0, 255)}})


class _Adjust(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 8, 8, 3], tf.uint8, name="image")])
    def __call__(self, image):
        x = tf.image.convert_image_dtype(image, tf.float32)
        return {
            "standardized": tf.image.per_image_standardization(image),
            "hsv": tf.image.rgb_to_hsv(x),
            "gray": tf.image.rgb_to_grayscale(x),
            "contrast": tf.image.adjust_contrast(x, 1.7),
            "flipped": tf.image.flip_left_right(tf.image.flip_up_down(image)),
            "back_to_uint8": tf.image.convert_image_dtype(tf.image.adjust_brightness(x, 0.1), tf.uint8,
                                                          saturate=True),
        }


@model("image_adjust", FAMILY,
       "uint8 image preprocessing: per_image_standardization, rgb_to_hsv, grayscale, contrast, flips, "
       "convert_image_dtype round trip")
def image_adjust(ctx):
    m = _Adjust()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    return Io({"serving_default": {"image": ctx.ints((2, 8, 8, 3), 0, 256, np.uint8)}})


@model("unet_tiny", FAMILY,
       "keras U-Net, 32x32x3: Conv2D/MaxPool down, Conv2DTranspose (valid, stride 2 and same, stride 2) up, skips")
def unet_tiny(ctx):
    image = keras.Input((32, 32, 3), name="image")

    def conv(x, n):
        return keras.layers.Conv2D(n, 3, padding="same", activation="relu")(x)
    d1 = conv(conv(image, 8), 8)
    d2 = conv(keras.layers.MaxPooling2D()(d1), 16)
    mid = conv(keras.layers.MaxPooling2D()(d2), 32)
    u2 = keras.layers.Conv2DTranspose(16, 2, strides=2)(mid)
    u2 = conv(keras.layers.Concatenate()([u2, d2]), 16)
    u1 = keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same")(u2)
    u1 = conv(keras.layers.Concatenate()([u1, d1]), 8)
    logits = keras.layers.Conv2D(2, 1, name="mask_logits")(u1)
    export_keras(keras.Model(image, logits), ctx)
    return keras_io({"image": ctx.uniform((2, 32, 32, 3), -1, 1)})
