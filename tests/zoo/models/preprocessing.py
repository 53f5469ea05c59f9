"""Models that take raw features (strings, ids, unscaled floats) and do their
own preprocessing inside the graph, as served tabular/text models do: Keras 3
preprocessing layers (lookup tables, hashing, regex text standardization)
and plain tf.strings ops.
"""
import keras
import numpy as np
import tensorflow as tf

from zoo_lib import Io, export_keras, keras_io, model, strings

FAMILY = "preprocessing"

CITIES = ["paris", "tokyo", "lima", "oslo", "cairo"]
COUNTRIES = [33, 81, 51, 47, 20]
WORDS = ["the", "movie", "was", "great", "bad", "plot", "acting", "not", "a", "fun"]


@model("keras_preprocessing", FAMILY,
       "raw features -> StringLookup, IntegerLookup, Hashing, TextVectorization, Normalization, "
       "Discretization, CategoryEncoding, Embedding -> Dense; also returns the lookup/token ids")
def keras_preprocessing(ctx):
    city = keras.Input((1,), dtype="string", name="city")
    country = keras.Input((1,), dtype="int64", name="country")
    user = keras.Input((1,), dtype="string", name="user")
    review = keras.Input((1,), dtype="string", name="review")
    age = keras.Input((1,), dtype="float32", name="age")
    income = keras.Input((1,), dtype="float32", name="income")

    city_ids = keras.layers.StringLookup(vocabulary=CITIES, num_oov_indices=1)(city)
    city_vec = keras.layers.Flatten()(keras.layers.Embedding(len(CITIES) + 1, 4)(city_ids))
    country_ids = keras.layers.IntegerLookup(vocabulary=COUNTRIES)(country)
    country_vec = keras.layers.CategoryEncoding(len(COUNTRIES) + 1, output_mode="one_hot")(country_ids)
    user_ids = keras.layers.Hashing(num_bins=16)(user)
    user_vec = keras.layers.Flatten()(keras.layers.Embedding(16, 3)(user_ids))
    tokens = keras.layers.TextVectorization(vocabulary=WORDS, output_sequence_length=8,
                                            output_mode="int")(review)
    text_vec = keras.layers.GlobalAveragePooling1D()(
        keras.layers.Embedding(len(WORDS) + 2, 5, mask_zero=True)(tokens))
    age_vec = keras.layers.Normalization(mean=40.0, variance=144.0)(age)
    income_bins = keras.layers.Discretization(bin_boundaries=[20e3, 50e3, 100e3])(income)
    income_vec = keras.layers.CategoryEncoding(4, output_mode="one_hot")(income_bins)

    h = keras.layers.Concatenate()([city_vec, country_vec, user_vec, text_vec, age_vec, income_vec])
    h = keras.layers.Dense(8, activation="relu")(h)
    score = keras.layers.Dense(1, activation="sigmoid")(h)
    net = keras.Model(
        {"city": city, "country": country, "user": user, "review": review, "age": age, "income": income},
        {"score": score, "tokens": tokens, "city_ids": city_ids, "user_ids": user_ids,
         "income_bins": income_bins})
    export_keras(net, ctx)
    feed = {
        "city": strings([["tokyo"], ["Berlin"], ["oslo"]]),  # "Berlin": out of vocabulary
        "country": np.array([[81], [49], [20]], np.int64),
        "user": strings([["u-1001"], ["u-77"], [""]]),
        "review": strings([["The movie was GREAT!"], ["not a fun plot, bad acting... really bad"], [""]]),
        "age": np.array([[25.0], [61.5], [40.0]], np.float32),
        # Clear of the bucket boundaries, so no rounding can move a value across one.
        "income": np.array([[12e3], [75e3], [250e3]], np.float32),
    }
    return keras_io(feed)


class _Strings(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text"),
                                  tf.TensorSpec([None], tf.string, name="number")])
    def __call__(self, text, number):
        clean = tf.strings.regex_replace(tf.strings.lower(text), r"[^a-z0-9 ]", "")
        words = tf.strings.split(clean)
        nums = tf.strings.to_number(number, tf.float32)
        return {
            "clean": clean,
            "word_count": words.row_lengths(),
            "first_word": words.to_tensor(default_value="<none>")[:, 0],
            "joined": tf.strings.reduce_join(words, axis=1, separator="|"),
            "buckets": tf.strings.to_hash_bucket_fast(words, 1000).to_tensor(default_value=-1),
            "prefix": tf.strings.substr(text, 0, 3),
            "length": tf.strings.length(text, unit="UTF8_CHAR"),
            "doubled": tf.strings.as_string(nums * 2.0, precision=2),
            "number_plus_one": nums + 1.0,
            "codepoints": tf.strings.unicode_decode(text, "UTF-8").to_tensor(default_value=0)[:, :6],
        }


@model("string_ops", FAMILY,
       "tf.strings in a signature: lower, regex_replace, split (ragged), reduce_join, hash buckets, "
       "substr, UTF-8 length/decode, to_number, as_string")
def string_ops(ctx):
    m = _Strings()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    text = strings(["Hello, World! 42", "  TensorFlow   Serving ", "héllo wörld", ""])
    number = strings(["1.5", "-2", "3e2", "0.125"])
    return Io({"serving_default": {"text": text, "number": number}})


class _Vocab(tf.Module):
    """tf.lookup tables built in TF2 and saved with their initializers."""

    def __init__(self, vocab_file):
        self.words = tf.lookup.StaticVocabularyTable(
            tf.lookup.TextFileInitializer(vocab_file, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                                          tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER),
            num_oov_buckets=2)
        self.labels = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.constant([0, 1, 2], tf.int64),
                                                tf.constant(["neg", "neu", "pos"])), default_value="?")

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="words"),
                                  tf.TensorSpec([None], tf.int64, name="label_ids")])
    def __call__(self, words, label_ids):
        return {"word_ids": self.words.lookup(words), "labels": self.labels.lookup(label_ids)}


@model("tf2_lookup_tables", FAMILY,
       "TF2 StaticVocabularyTable from a vocab file (saved as an asset, 2 OOV buckets) and a StaticHashTable")
def tf2_lookup_tables(ctx):
    vocab = ctx.path("vocab.txt")
    with open(vocab, "w") as f:
        f.write("\n".join(WORDS) + "\n")
    m = _Vocab(vocab)
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    return Io({"serving_default": {"words": strings(["movie", "zebra", "the", "fun", "???"]),
                                   "label_ids": np.array([2, 0, 5, 1, 1], np.int64)}})
