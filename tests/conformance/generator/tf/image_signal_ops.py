"""Image and signal ops: the four resizes with each align_corners/
half_pixel_centers combination, ScaleAndTranslate with each kernel,
CropAndResize, AdjustContrastv2, RGBToHSV/HSVToRGB, the NonMaxSuppression
family,
decoding (PNG/JPEG images that TensorFlow's own encoders write; BMP and GIF
files written here, since TensorFlow encodes neither); the complex FFTs
(1-3-D, forward and inverse), the real FFTs with fft_length equal to and
shorter than the input, and the audio front end: EncodeWav/DecodeWav,
AudioSpectrogram and Mfcc."""
import struct

import numpy as np

from case_builder import INTS, Builder, dtypes_of, tf

FAMILY = "image_signal"


def _resize(b):
    for op in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            lo, hi = (0, 100) if dt in INTS else (None, None)
            b.add(op, dt, [b.rand([1, 3, 4, 2], dt, lo, hi), b.const([5, 3], "int32")])
        b.seed(op, "attrs")
        x = b.rand([2, 4, 3, 1])
        for size in ([7, 5], [2, 2], [4, 3], [1, 6]):
            for align, half in ((False, False), (True, False), (False, True)):
                if op == "ResizeArea" and half:
                    continue  # ResizeArea has no half_pixel_centers
                attrs = {"align_corners": align} if op == "ResizeArea" else \
                    {"align_corners": align, "half_pixel_centers": half}
                b.add(op, f"{size[0]}x{size[1]}_align_{align}_half_{half}", [x, b.const(size, "int32")], attrs)
        b.add(op, "nan_inf", [b.const([1, float("nan"), 2, float("inf")], shape=[1, 2, 2, 1]),
                              b.const([3, 3], "int32")])


def _crop(b):
    for dt in dtypes_of("CropAndResize"):
        b.seed("CropAndResize", dt)
        lo, hi = (0, 50) if dt in INTS else (None, None)
        b.add("CropAndResize", dt, [b.rand([2, 4, 5, 2], dt, lo, hi),
                                    b.const([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0]]),
                                    b.const([1, 0], "int32"), b.const([3, 3], "int32")])
    b.seed("CropAndResize", "attrs")
    x = b.rand([1, 5, 5, 1])
    boxes = b.const([[0.2, 0.1, 0.7, 0.9], [0.9, 0.8, 0.1, 0.2], [-0.5, -0.5, 1.5, 1.5], [0.5, 0.5, 0.5, 0.5]])
    for method in ("bilinear", "nearest"):
        for extrap in (0.0, -1.0):
            b.add("CropAndResize", f"{method}_extrapolation_{extrap}",
                  [x, boxes, b.const([0, 0, 0, 0], "int32"), b.const([4, 3], "int32")],
                  {"method": method, "extrapolation_value": extrap})
    b.add("CropAndResize", "crop_1x1", [x, boxes, b.const([0, 0, 0, 0], "int32"), b.const([1, 1], "int32")])


def _nms(b):
    boxes = b.const([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                     [0, 100, 1, 101], [1, 1, 0, 0]])
    scores = b.const([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.85])
    for iou in (0.5, 0.0, 1.0):
        b.add("NonMaxSuppression", f"iou_{iou}", [boxes, scores, b.const(5, "int32")], {"iou_threshold": iou})
        b.add("NonMaxSuppressionV2", f"iou_{iou}", [boxes, scores, b.const(5, "int32"), b.const(iou)])
    for thr in (0.0, 0.7, float("-inf")):
        b.add("NonMaxSuppressionV3", f"score_threshold_{thr}", [boxes, scores, b.const(6, "int32"), b.const(0.5),
                                                                 b.const(thr)])
        for pad in (False, True):
            b.add("NonMaxSuppressionV4", f"score_threshold_{thr}_pad_{pad}",
                  [boxes, scores, b.const(6, "int32"), b.const(0.5), b.const(thr)], {"pad_to_max_output_size": pad})
    for sigma in (0.0, 0.5):
        for pad in (False, True):
            b.add("NonMaxSuppressionV5", f"sigma_{sigma}_pad_{pad}",
                  [boxes, scores, b.const(6, "int32"), b.const(0.5), b.const(0.1), b.const(sigma)],
                  {"pad_to_max_output_size": pad})
    b.add("NonMaxSuppressionV3", "float16", [tf.cast(boxes, "float16"), tf.cast(scores, "float16"),
                                             b.const(3, "int32"), b.const(0.5, "float16"), b.const(0.0, "float16")])
    b.add("NonMaxSuppressionV3", "max_zero", [boxes, scores, b.const(0, "int32"), b.const(0.5), b.const(0.0)])
    overlaps = b.const([[1.0, 0.8, 0.1], [0.8, 1.0, 0.6], [0.1, 0.6, 1.0]])
    b.add("NonMaxSuppressionWithOverlaps", "basic", [overlaps, b.const([0.5, 0.9, 0.7]), b.const(3, "int32"),
                                                     b.const(0.7), b.const(0.0)])
    b.seed("CombinedNonMaxSuppression", "cases")
    cb = b.rand([2, 4, 1, 4], lo=0, hi=1)
    cs = b.rand([2, 4, 3], lo=0, hi=1)
    for pad in (False, True):
        for clip in (False, True):
            b.add("CombinedNonMaxSuppression", f"pad_{pad}_clip_{clip}",
                  [cb, cs, b.const(2, "int32"), b.const(5, "int32"), b.const(0.5), b.const(0.2)],
                  {"pad_per_class": pad, "clip_boxes": clip})
    b.add("CombinedNonMaxSuppression", "per_class_boxes",
          [b.rand([1, 3, 2, 4], lo=0, hi=1), b.rand([1, 3, 2], lo=0, hi=1), b.const(3, "int32"),
           b.const(4, "int32"), b.const(0.4), b.const(0.0)])


def _adjust(b):
    for dt in dtypes_of("AdjustContrastv2"):
        b.seed("AdjustContrastv2", dt)
        for factor in (0.5, 2.0, -1.0):
            b.add("AdjustContrastv2", f"{dt}_factor{factor}", [b.rand([2, 2, 3, 3], dt, 0, 1), b.const(factor)])
    for op in ("RGBToHSV", "HSVToRGB"):
        for dt in dtypes_of(op):
            b.seed(op, dt)
            b.add(op, dt, [b.rand([2, 4, 3], dt, 0, 1)])
        # Grays (zero saturation), pure primaries and hue wrap-around.
        b.add(op, "corners", [b.const([[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [1, 0, 0], [0, 1, 0], [0, 0, 1],
                                       [1, 0, 0.999], [0.999, 1, 0]])])
    for dt in dtypes_of("ScaleAndTranslate"):
        b.seed("ScaleAndTranslate", dt)
        lo, hi = (0, 100) if dt in INTS else (None, None)
        b.add("ScaleAndTranslate", dt, [b.rand([1, 3, 4, 2], dt, lo, hi), b.const([5, 3], "int32"),
                                        b.const([5 / 3, 0.75]), b.const([0.0, 0.0])])
    b.seed("ScaleAndTranslate", "kernels")
    x = b.rand([1, 5, 4, 1])
    for kernel in ("lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic", "mitchellcubic"):
        for antialias in (True, False):
            # Downscaling rows (where antialias matters) and upscaling
            # columns, with a translation.
            b.add("ScaleAndTranslate", f"{kernel}_antialias_{antialias}",
                  [x, b.const([3, 6], "int32"), b.const([0.6, 1.5]), b.const([0.25, -0.5])],
                  {"kernel_type": kernel, "antialias": antialias})


def bmp(pixels):
    """A 24-bit bottom-up BMP of an [h, w, 3] uint8 array."""
    h, w, _ = pixels.shape
    row = (w * 3 + 3) // 4 * 4
    body = b"".join(pixels[y, :, ::-1].tobytes().ljust(row, b"\0") for y in range(h - 1, -1, -1))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(body), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(body), 2835, 2835, 0, 0)
    return header + info + body


def gif(frames, palette):
    """A GIF of [h, w] frames of indices into a 4-colour palette. The LZW
    stream sends a clear code every two pixels, so codes stay 3 bits wide
    and no compression table is needed."""
    h, w = frames[0].shape
    out = b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF1, 0, 0) + bytes(np.asarray(palette, np.uint8).reshape(-1))
    for f in frames:
        codes = []
        flat = [int(v) for v in f.reshape(-1)]
        for i in range(0, len(flat), 2):
            codes += [4] + flat[i:i + 2]
        codes.append(5)
        bits = "".join(format(c, "03b")[::-1] for c in codes)
        bits += "0" * (-len(bits) % 8)
        data = bytes(int(bits[i:i + 8][::-1], 2) for i in range(0, len(bits), 8))
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, w, h, 0) + b"\x02"
        for i in range(0, len(data), 255):
            out += bytes([len(data[i:i + 255])]) + data[i:i + 255]
        out += b"\x00"
    return out + b"\x3b"


def _decode(b):
    b.seed("Decode", "images")
    rgb = b.rand([5, 6, 3], "uint8", 0, 256)
    gray16 = b.rand([3, 4, 1], "uint16", 0, 65536)
    png_rgb = tf.io.encode_png(rgb)
    png_rgba = tf.io.encode_png(b.rand([2, 3, 4], "uint8", 0, 256))
    png16 = tf.io.encode_png(gray16)
    jpeg = tf.io.encode_jpeg(b.rand([8, 9, 3], "uint8", 0, 256), quality=90)
    jpeg_gray = tf.io.encode_jpeg(b.rand([16, 16, 1], "uint8", 0, 256), quality=75)
    for name, data in (("rgb", png_rgb), ("rgba", png_rgba), ("gray16", png16)):
        for ch in (0, 1, 3, 4):
            for dt in ("uint8", "uint16"):
                b.add("DecodePng", f"{name}_channels{ch}_{dt}", [data], {"channels": ch, "dtype": dt})
    for name, data in (("rgb", jpeg), ("gray", jpeg_gray)):
        for ch in (0, 1, 3):
            b.add("DecodeJpeg", f"{name}_channels{ch}", [data], {"channels": ch})
        for ratio in (2, 4, 8):
            b.add("DecodeJpeg", f"{name}_ratio{ratio}", [data], {"ratio": ratio})
        for dct in ("INTEGER_FAST", "INTEGER_ACCURATE"):
            b.add("DecodeJpeg", f"{name}_{dct}", [data], {"dct_method": dct})
        b.add("DecodeJpeg", f"{name}_no_fancy_upscaling", [data], {"fancy_upscaling": False})
        for out in ("int32", "int64"):
            b.add("ExtractJpegShape", f"{name}_{out}", [data], {"output_type": out})
    bmp_data = tf.constant(bmp(rgb.numpy()))
    for ch in (0, 3):
        b.add("DecodeBmp", f"channels{ch}", [bmp_data], {"channels": ch})
    palette = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 20, 30]]
    f1, f2 = b.rand([3, 5], "uint8", 0, 4).numpy(), b.rand([3, 5], "uint8", 0, 4).numpy()
    gif1, gif2 = tf.constant(gif([f1], palette)), tf.constant(gif([f1, f2], palette))
    b.add("DecodeGif", "one_frame", [gif1])
    b.add("DecodeGif", "two_frames", [gif2])
    for name, data in (("png", png_rgb), ("jpeg", jpeg), ("bmp", bmp_data), ("gif", gif2), ("png16", png16)):
        for dt in ("uint8", "uint16", "float32"):
            b.add("DecodeImage", f"{name}_{dt}", [data], {"dtype": dt})
        b.add("DecodeImage", f"{name}_channels3", [data], {"channels": 3})
    b.add("DecodeImage", "gif_no_animation", [gif2], {"expand_animations": False})


def _fft(b):
    shapes = {1: [2, 8], 2: [2, 4, 3], 3: [1, 2, 3, 4]}
    for rank, suffix in ((1, ""), (2, "2D"), (3, "3D")):
        for op in (f"FFT{suffix}", f"IFFT{suffix}"):
            for dt in dtypes_of(op, "Tcomplex"):
                b.seed(op, dt)
                b.add(op, dt, [b.rand(shapes[rank], dt)])
            b.add(op, "impulse", [tf.cast(tf.one_hot([0], 8), "complex64") if rank == 1 else
                                  tf.cast(tf.reshape(tf.one_hot([0], int(np.prod(shapes[rank]))), shapes[rank]),
                                          "complex64")])
        for op in (f"RFFT{suffix}", f"IRFFT{suffix}"):
            for treal in dtypes_of(op, "Treal"):
                tcomplex = "complex64" if treal == "float32" else "complex128"
                b.seed(op, treal)
                inner = shapes[rank][-rank:]
                # TensorFlow's kernels crop to fft_length but do not pad.
                for name, delta in (("same", 0), ("cropped", -1)):
                    lengths = [max(n + delta, 1) for n in inner]
                    if op.startswith("RFFT"):
                        x = b.rand(shapes[rank], treal)
                    else:
                        # The inverse reads fft_length[-1] // 2 + 1 bins of
                        # the last axis; the input holds inner[-1] // 2 + 1.
                        x = b.rand(shapes[rank][:-1] + [inner[-1] // 2 + 1], tcomplex)
                    out_attr = {"Tcomplex": tcomplex} if op.startswith("RFFT") else {"Treal": treal}
                    b.add(op, f"{treal}_{name}", [x, b.const(lengths, "int32")], out_attr)
    b.add("RFFT", "empty_batch", [b.rand([0, 4]), b.const([4], "int32")])


def _audio(b):
    b.seed("Wav", "cases")
    t = np.arange(400) / 8000.0
    tone = (0.5 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 1250 * t)).astype(np.float32)
    mono = tf.constant(tone.reshape(-1, 1))
    stereo = b.rand([20, 2], lo=-1, hi=1)
    for name, audio in (("mono", mono[:32]), ("stereo", stereo)):
        b.add("EncodeWav", name, [audio, b.const(16000, "int32")])
    clipped = b.const([[-1.5], [-1.0], [-0.5], [0.0], [0.25], [1.0], [2.0]])
    b.add("EncodeWav", "clipped", [clipped, b.const(8000, "int32")])
    wav = tf.audio.encode_wav(stereo, 22050)
    for ch, samples in ((-1, -1), (1, -1), (2, 10), (3, 30)):
        b.add("DecodeWav", f"channels{ch}_samples{samples}", [wav],
              {"desired_channels": ch, "desired_samples": samples})
    for window, stride, magnitude in ((64, 32, False), (100, 50, True), (128, 64, False)):
        b.add("AudioSpectrogram", f"w{window}_s{stride}_mag_{magnitude}", [mono],
              {"window_size": window, "stride": stride, "magnitude_squared": magnitude})
    b.add("AudioSpectrogram", "stereo", [tf.tile(mono[:200], [1, 2])],
          {"window_size": 64, "stride": 64, "magnitude_squared": True})
    spec = tf.raw_ops.AudioSpectrogram(input=mono, window_size=128, stride=64, magnitude_squared=True)
    for attrs in ({}, {"upper_frequency_limit": 3000.0, "lower_frequency_limit": 100.0},
                  {"filterbank_channel_count": 20, "dct_coefficient_count": 8}):
        name = "_".join(f"{k}_{v}" for k, v in attrs.items()) or "defaults"
        b.add("Mfcc", name, [spec, b.const(8000, "int32")], attrs)


def build():
    b = Builder(FAMILY)
    _resize(b)
    _crop(b)
    _nms(b)
    _decode(b)
    _adjust(b)
    _fft(b)
    _audio(b)
    return b
