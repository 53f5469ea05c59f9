"""Transformer encoders/decoders at toy sizes: keras-hub backbones built from
their classes (no presets, so nothing is downloaded), a ViT and an encoder
block assembled from Keras layers.
"""
import keras
import keras_hub
import numpy as np

from zoo_lib import export_keras, keras_io, model

FAMILY = "transformers"
VOCAB, LAYERS, HEADS, HIDDEN, FFN, MAX_LEN = 100, 2, 2, 32, 64, 16
# Two rows: one padded after 11 tokens, one full; no row is all padding, so
# no softmax sees only masked keys (that case is implementation-defined).
LENGTHS = (11, 16)


def _tokens(ctx):
    ids = ctx.ints((len(LENGTHS), MAX_LEN), 1, VOCAB)
    mask = np.zeros_like(ids)
    for row, n in enumerate(LENGTHS):
        mask[row, :n] = 1
        ids[row, n:] = 0
    return ids, mask


TINY = dict(vocabulary_size=VOCAB, num_layers=LAYERS, num_heads=HEADS, hidden_dim=HIDDEN,
            intermediate_dim=FFN, max_sequence_length=MAX_LEN, dropout=0.0)


@model("bert_tiny", FAMILY,
       "keras_hub BertBackbone, vocab 100, 2 layers, 2 heads, hidden 32, seq 16, padding mask + segments")
def bert_tiny(ctx):
    net = keras_hub.models.BertBackbone(num_segments=2, **TINY)
    export_keras(net, ctx)
    ids, mask = _tokens(ctx)
    segments = np.zeros_like(ids)
    segments[:, 6:] = 1
    return keras_io({"token_ids": ids, "segment_ids": segments, "padding_mask": mask})


@model("distilbert_tiny", FAMILY,
       "keras_hub DistilBertBackbone, vocab 100, 2 layers, 2 heads, hidden 32, seq 16, padding mask")
def distilbert_tiny(ctx):
    net = keras_hub.models.DistilBertBackbone(**TINY)
    export_keras(net, ctx)
    ids, mask = _tokens(ctx)
    return keras_io({"token_ids": ids, "padding_mask": mask})


@model("gpt2_tiny", FAMILY,
       "keras_hub GPT2Backbone, vocab 100, 2 layers, 2 heads, hidden 32, seq 16, causal + padding mask")
def gpt2_tiny(ctx):
    net = keras_hub.models.GPT2Backbone(**TINY)
    export_keras(net, ctx)
    ids, mask = _tokens(ctx)
    return keras_io({"token_ids": ids, "padding_mask": mask})


class ClassToken(keras.layers.Layer):
    """Prepends a learned [CLS] vector to the patch sequence."""

    def build(self, input_shape):
        self.cls = self.add_weight(shape=(1, 1, input_shape[-1]), initializer="random_normal", name="cls")

    def call(self, x):
        batch = keras.ops.shape(x)[0]
        cls = keras.ops.broadcast_to(self.cls, (batch, 1, keras.ops.shape(x)[-1]))
        return keras.ops.concatenate([cls, x], axis=1)


class PositionEmbedding(keras.layers.Layer):
    def build(self, input_shape):
        self.pos = self.add_weight(shape=(1, input_shape[1], input_shape[2]),
                                   initializer="random_normal", name="pos")

    def call(self, x):
        return x + self.pos


def _encoder_block(x, attention_mask=None, causal=False, activation="gelu"):
    h = keras.layers.LayerNormalization(epsilon=1e-6)(x)
    h = keras.layers.MultiHeadAttention(num_heads=HEADS, key_dim=HIDDEN // HEADS)(
        h, h, attention_mask=attention_mask, use_causal_mask=causal)
    x = keras.layers.Add()([x, h])
    h = keras.layers.LayerNormalization(epsilon=1e-6)(x)
    h = keras.layers.Dense(FFN, activation=activation)(h)
    h = keras.layers.Dense(HIDDEN)(h)
    return keras.layers.Add()([x, h])


@model("vit_tiny", FAMILY,
       "ViT from Keras layers: 32x32 image, 8x8 patches (Conv2D stride 8), CLS token, 2 pre-LN blocks, exact GELU")
def vit_tiny(ctx):
    image = keras.Input((32, 32, 3), name="image")
    x = keras.layers.Conv2D(HIDDEN, 8, strides=8)(image)
    x = keras.layers.Reshape((16, HIDDEN))(x)
    x = PositionEmbedding()(ClassToken()(x))
    for _ in range(LAYERS):
        x = _encoder_block(x)
    x = keras.layers.LayerNormalization(epsilon=1e-6)(x)
    cls = keras.layers.Lambda(lambda t: t[:, 0])(x)
    logits = keras.layers.Dense(10, name="logits")(cls)
    export_keras(keras.Model(image, logits), ctx)
    return keras_io({"image": ctx.uniform((2, 32, 32, 3), -1, 1)})


@model("mha_encoder", FAMILY,
       "keras MultiHeadAttention blocks on embeddings: padding attention_mask block + causal block, two outputs")
def mha_encoder(ctx):
    x_in = keras.Input((8, HIDDEN), name="embeddings")
    mask_in = keras.Input((8,), dtype="int32", name="mask")
    # [batch, query, key] mask from the key padding mask, as BERT-style code builds it.
    attn = keras.ops.repeat(keras.ops.expand_dims(keras.ops.cast(mask_in, "bool"), 1), 8, axis=1)
    enc = _encoder_block(x_in, attention_mask=attn, activation="relu")
    dec = _encoder_block(enc, causal=True)
    net = keras.Model({"embeddings": x_in, "mask": mask_in},
                      {"encoded": enc, "decoded": dec})
    export_keras(net, ctx)
    mask = np.array([[1] * 5 + [0] * 3, [1] * 8], np.int32)
    return keras_io({"embeddings": ctx.normal((2, 8, HIDDEN)), "mask": mask})
