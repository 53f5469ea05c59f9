"""Text models whose signatures take raw strings and tokenize with
tensorflow_text ops (the TFText>... custom ops a host must provide), then run
a small classifier on the ids.
"""
import tensorflow as tf
import tensorflow_text as tf_text  # registers the TFText ops for saving and loading

from zoo_lib import Io, model, strings

FAMILY = "text"
SEQ = 12
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "movie", "great", "play", "run", "was",
         "not", "fun", "a", "##s", "##ing", "##er", "##ed", "!", ",", ".", "wonder", "##ful"]
SENTENCES = ["The movie was GREAT!", "Running players, wonderful plays.", "not fun", "Zebras?"]


class _Classifier(tf.Module):
    """Embedding mean over non-padding ids -> dense logits; the tokenizer is
    the subclass's business."""

    def __init__(self):
        self.embedding = tf.Variable(tf.random.stateless_normal([len(VOCAB), 8], seed=[7, 8]))
        self.w = tf.Variable(tf.random.stateless_normal([8, 3], seed=[9, 10]))

    def classify(self, ids):
        ids = ids.to_tensor(default_value=0, shape=[None, SEQ])
        mask = tf.cast(ids != 0, tf.float32)[..., None]
        emb = tf.nn.embedding_lookup(self.embedding, ids) * mask
        pooled = tf.reduce_sum(emb, 1) / tf.maximum(tf.reduce_sum(mask, 1), 1.0)
        return ids, tf.matmul(pooled, self.w)


class _Bert(_Classifier):
    def __init__(self, vocab_file):
        super().__init__()
        self.tokenizer = tf_text.BertTokenizer(vocab_file, lower_case=True, token_out_type=tf.int64)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text")])
    def __call__(self, text):
        pieces = self.tokenizer.tokenize(text).merge_dims(-2, -1)
        batch = tf.shape(text, out_type=tf.int64)[0]
        cls = tf.fill([batch, 1], tf.constant(2, tf.int64))
        sep = tf.fill([batch, 1], tf.constant(3, tf.int64))
        ids = tf.concat([cls, pieces[:, :SEQ - 2], sep], axis=1)
        padded, logits = self.classify(ids)
        return {"input_word_ids": padded, "logits": logits}


@model("bert_tokenizer_text", FAMILY,
       "raw strings -> tensorflow_text.BertTokenizer (vocab file asset, lower_case) -> [CLS]/[SEP], "
       "pad 12 -> embedding mean -> logits")
def bert_tokenizer_text(ctx):
    vocab = ctx.path("vocab.txt")
    with open(vocab, "w") as f:
        f.write("\n".join(VOCAB) + "\n")
    m = _Bert(vocab)
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    return Io({"serving_default": {"text": strings(SENTENCES)}})


class _FastWordpiece(_Classifier):
    def __init__(self):
        super().__init__()
        self.tokenizer = tf_text.FastWordpieceTokenizer(
            vocab=VOCAB, suffix_indicator="##", unknown_token="[UNK]", token_out_type=tf.int64,
            no_pretokenization=False, support_detokenization=True)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text")])
    def __call__(self, text):
        ids, starts, ends = self.tokenizer.tokenize_with_offsets(tf.strings.lower(text))
        padded, logits = self.classify(ids)
        return {"token_ids": padded, "start_offsets": starts.to_tensor(default_value=-1),
                "end_offsets": ends.to_tensor(default_value=-1), "logits": logits,
                "detokenized": self.tokenizer.detokenize(ids)}


@model("fast_wordpiece_text", FAMILY,
       "raw strings -> tensorflow_text.FastWordpieceTokenizer with offsets and detokenize -> logits")
def fast_wordpiece_text(ctx):
    m = _FastWordpiece()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    return Io({"serving_default": {"text": strings(SENTENCES)}})


class _Sentence(tf.Module):
    """The pre-tokenization ops BERT preprocessors run before wordpiece."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text")])
    def __call__(self, text):
        normalized = tf_text.normalize_utf8(text, "NFD")
        tokens, starts, ends = tf_text.WhitespaceTokenizer().tokenize_with_offsets(normalized)
        words = tf_text.UnicodeScriptTokenizer().tokenize(text)
        return {"normalized": normalized,
                "tokens": tokens.to_tensor(default_value=""),
                "starts": starts.to_tensor(default_value=-1),
                "ends": ends.to_tensor(default_value=-1),
                "script_tokens": words.to_tensor(default_value=""),
                "case_folded": tf_text.case_fold_utf8(text)}


@model("text_normalize", FAMILY,
       "tensorflow_text normalize_utf8 (NFD), case_fold_utf8, WhitespaceTokenizer with offsets, "
       "UnicodeScriptTokenizer")
def text_normalize(ctx):
    m = _Sentence()
    tf.saved_model.save(m, ctx.export_dir, signatures={"serving_default": m.__call__})
    text = strings(["Crème Brûlée  is GREAT", "東京 tower, 2024!", "ÅNGSTRÖM"])
    return Io({"serving_default": {"text": text}})

