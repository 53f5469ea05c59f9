"""Audio front ends: the tf.signal STFT -> log-mel -> MFCC pipeline of current
keyword-spotting models, the older DecodeWav/AudioSpectrogram/Mfcc ops of
the speech_commands models, and a YAMNet-style patch classifier.
"""
import keras
import numpy as np
import tensorflow as tf

from zoo_lib import Io, liven_keras, model, strings

FAMILY = "audio"
RATE = 16000
SAMPLES = 4000
# The tf.signal pipeline needs no looser tolerance: its float32 outputs are
# within 2e-6 of a float64 run (log_mel, the worst), 5x under the default.
MFCC_WHY = ("Mfcc: TensorFlow's kernel (and AudioSpectrogram's FFT) works in double and rounds "
            "once; float32 arithmetic there rounds at every step, and the log of the weakest "
            "filterbank channels amplifies it")


def _waves(ctx, batch):
    t = np.arange(SAMPLES, dtype=np.float32) / RATE
    tones = [np.sin(2 * np.pi * f * t) for f in (440.0, 1250.0, 3100.0)][:batch]
    return np.stack([0.5 * w + ctx.normal(SAMPLES, 0.05) for w in tones]).astype(np.float32)


class _Mfcc(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.random.stateless_normal([13, 4], seed=[15, 16]))

    @tf.function(input_signature=[tf.TensorSpec([None, SAMPLES], name="waveform")])
    def __call__(self, waveform):
        stft = tf.signal.stft(waveform, frame_length=256, frame_step=128, fft_length=256,
                              window_fn=tf.signal.hann_window)
        magnitude = tf.abs(stft)
        mel = tf.signal.linear_to_mel_weight_matrix(
            num_mel_bins=20, num_spectrogram_bins=129, sample_rate=RATE,
            lower_edge_hertz=20.0, upper_edge_hertz=4000.0)
        log_mel = tf.math.log(tf.tensordot(magnitude, mel, 1) + 1e-6)
        mfccs = tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :13]
        resynth = tf.signal.inverse_stft(stft, 256, 128, 256,
                                         window_fn=tf.signal.inverse_stft_window_fn(128))
        return {"magnitude": magnitude, "log_mel": log_mel, "mfccs": mfccs,
                "logits": tf.matmul(tf.reduce_mean(mfccs, 1), self.w), "resynthesized": resynth}


@model("audio_mfcc", FAMILY,
       "waveform [batch, 4000] -> tf.signal.stft (Hann) -> mel matrix -> log -> "
       "mfccs_from_log_mel_spectrograms -> logits; plus inverse_stft")
def audio_mfcc(ctx):
    m = _Mfcc()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    return Io({"serving_default": {"waveform": _waves(ctx, 3)}})


class _Wav(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.random.stateless_normal([23 * 13, 3], seed=[17, 18]) * 0.1)

    @tf.function(input_signature=[tf.TensorSpec([], tf.string, name="wav")])
    def __call__(self, wav):
        audio, rate = tf.audio.decode_wav(wav, desired_channels=1, desired_samples=SAMPLES)
        spectrogram = tf.raw_ops.AudioSpectrogram(input=audio, window_size=480, stride=160,
                                                  magnitude_squared=True)
        mfcc = tf.raw_ops.Mfcc(spectrogram=spectrogram, sample_rate=rate, upper_frequency_limit=4000.0,
                               lower_frequency_limit=20.0, filterbank_channel_count=40,
                               dct_coefficient_count=13)
        logits = tf.matmul(tf.reshape(mfcc, [1, -1]), self.w)
        return {"audio": audio, "sample_rate": rate, "spectrogram": spectrogram, "mfcc": mfcc,
                "logits": logits}


@model("speech_commands_wav", FAMILY,
       "WAV bytes -> DecodeWav (16-bit PCM, padded to 4000 samples) -> AudioSpectrogram (30 ms window, 10 ms "
       "stride) -> Mfcc (40 filterbank channels, 13 coefficients) -> logits")
def speech_commands_wav(ctx):
    m = _Wav()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    # Shorter than desired_samples, so DecodeWav's zero padding is exercised.
    clip = _waves(ctx, 1)[0, :3600, None]
    wav = tf.audio.encode_wav(clip, RATE).numpy()
    return Io({"serving_default": {"wav": strings(wav)}},
              {"serving_default/mfcc": (5e-5, MFCC_WHY), "serving_default/logits": (5e-5, MFCC_WHY)})


class _Patches(tf.Module):
    """YAMNet's serving shape: one mono clip in, log-mel patches framed
    inside the graph, a Keras conv net scoring every patch."""

    def __init__(self, net):
        self.net = net

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="waveform")])
    def __call__(self, waveform):
        stft = tf.signal.stft(waveform, frame_length=400, frame_step=160, fft_length=512)
        mel = tf.signal.linear_to_mel_weight_matrix(32, 257, RATE, 60.0, 7800.0)
        log_mel = tf.math.log(tf.matmul(tf.abs(stft), mel) + 1e-3)
        patches = tf.signal.frame(log_mel, frame_length=16, frame_step=8, axis=0)
        scores = self.net(patches[..., None])
        return {"log_mel": log_mel, "scores": scores, "clip_scores": tf.reduce_mean(scores, 0)}


@model("yamnet_style", FAMILY,
       "one waveform -> stft (25 ms / 10 ms) -> log-mel -> tf.signal.frame into 16-frame patches -> "
       "Keras conv net (a Keras 3 model inside a tf.Module) -> per-patch and clip scores")
def yamnet_style(ctx):
    patch = keras.Input((16, 32, 1))
    h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(patch)
    h = keras.layers.MaxPooling2D()(h)
    h = keras.layers.Conv2D(16, 3, activation="relu")(h)
    scores = keras.layers.Dense(5, activation="sigmoid")(keras.layers.GlobalAveragePooling2D()(h))
    net = keras.Model(patch, scores)
    liven_keras(net, ctx.rng, he=True)
    m = _Patches(net)
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    t = np.arange(RATE, dtype=np.float32) / RATE
    chirp = 0.4 * np.sin(2 * np.pi * (200.0 + 1500.0 * t) * t) + ctx.normal(RATE, 0.02)
    return Io({"serving_default": {"waveform": chirp.astype(np.float32)}})
