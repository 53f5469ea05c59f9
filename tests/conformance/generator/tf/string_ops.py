"""String ops: formatting (AsString, StringFormat), joining and splitting,
case and whitespace, hashing, parsing numbers, substrings, regexes, n-grams,
Unicode decoding/encoding/transcoding, base64, DecodeRaw, DecodeCSV and the
checkpoint file-name helpers. Inputs mix ASCII, multi-byte UTF-8 and empty
strings; ill-formed UTF-8 where the op defines a replacement.

The TensorFlow Text ops tfhost runs (tensorflow_text, pinned beside
TensorFlow in the project's Python environment): case folding and Unicode
normalization, regex and script tokenization, and the fast WordPiece and
whitespace tokenizers, whose model/config inputs tensorflow_text's own Python
classes build. They are not in tf.raw_ops; importing tensorflow_text
registers them, and case_builder runs them like the underscore ops."""
from case_builder import FLOATS, Builder, dtypes_of, tf  # first: it sets TensorFlow's environment

import tensorflow_text  # noqa: E402,I100  (registers the TensorFlow Text ops)

FAMILY = "string"

WORDS = ["hello world", "", "  padded\t", "naïve café", "a,b,,c", "日本語テキスト", "MiXeD Case 42", "x"]


def _format(b):
    for dt in dtypes_of("AsString"):
        b.seed("AsString", dt)
        if dt == "string":
            x = b.const(["a", "é"], "string")
        elif dt == "bool":
            x = b.const([True, False], "bool")
        else:
            x = b.extremes(dt)
        b.add("AsString", dt, [x])
    b.seed("AsString", "attrs")
    x = b.const([3.14159, -0.001, 12345.678, 0.0, 1e20])
    for attrs in ({"precision": 2}, {"scientific": True}, {"shortest": True}, {"width": 12},
                  {"width": 8, "fill": "0"}, {"precision": 3, "scientific": True, "width": 12, "fill": " "}):
        b.add("AsString", "_".join(f"{k}_{v}" for k, v in attrs.items()).replace(" ", "space"), [x], attrs)
    b.add("AsString", "int_width_fill", [b.const([-5, 42], "int32")], {"width": 5, "fill": "0"})
    b.add("StringFormat", "default", [[b.rand([2, 2]), b.const(["a", "b"], "string")]],
          {"template": "x={} and {}", "placeholder": "{}"})
    b.add("StringFormat", "summarize", [[b.const(list(range(10)), "int32")]],
          {"template": "{}", "placeholder": "{}", "summarize": 2})
    b.add("StringFormat", "placeholder", [[b.const(7, "int64")]], {"template": "v=%s!", "placeholder": "%s"})
    b.add("StringFormat", "no_inputs", [[]], {"template": "plain"})


def _join_split(b):
    s = b.const(WORDS, "string")
    b.add("StringJoin", "pair", [[s, b.const(WORDS[::-1], "string")]], {"separator": "-"})
    b.add("StringJoin", "scalar_broadcast", [[b.const("<", "string"), s, b.const(">", "string")]])
    b.add("StringJoin", "empty", [[b.const([], "string"), b.const([], "string")]])
    for axis, keep in ((0, False), (1, True), (-1, False)):
        b.add("ReduceJoin", f"axis_{axis}_keep_{keep}", [b.const(WORDS, "string", [2, 4]), b.const(axis, "int32")],
              {"keep_dims": keep, "separator": "|"})
    b.add("ReduceJoin", "all_axes", [b.const(WORDS, "string", [2, 4]), b.const([0, 1], "int32")])
    b.add("ReduceJoin", "no_axes", [b.const(WORDS, "string", [2, 4]), b.const([], "int32")])
    for name, delim in (("space", " "), ("comma", ","), ("empty", ""), ("ab", "ab")):
        for skip in (True, False):
            b.add("StringSplit", f"delim_{name}_skip_{skip}", [s, b.const(delim, "string")], {"skip_empty": skip})
    for sep in ("", ",", " "):
        for maxsplit in (-1, 0, 1, 2):
            b.add("StringSplitV2", f"sep_{sep.replace(' ', 'space') or 'whitespace'}_max{maxsplit}",
                  [s, b.const(sep, "string")], {"maxsplit": maxsplit})
    b.add("StringStrip", "words", [s])
    for tidx in dtypes_of("UnsortedSegmentJoin", "Tindices"):
        b.add("UnsortedSegmentJoin", f"ids_{tidx}", [s, b.const([2, 0, 2, 3, 1, 0, 2, 4], tidx),
                                                     b.const(5, "int64")], {"separator": "|"})
    b.add("UnsortedSegmentJoin", "ids_2d", [b.const(WORDS, "string", [4, 2]), b.const([1, 0, 1, 1], "int32"),
                                             b.const(3, "int32")])
    b.add("StringNGrams", "bigrams", [s, b.const([0, 3, 8], "int64")],
          {"separator": " ", "ngram_widths": [2], "left_pad": "", "right_pad": "", "pad_width": 0,
           "preserve_short_sequences": False})
    b.add("StringNGrams", "padded_1_3", [s, b.const([0, 2, 2, 8], "int32")],
          {"separator": "_", "ngram_widths": [1, 3], "left_pad": "<s>", "right_pad": "</s>", "pad_width": -1,
           "preserve_short_sequences": False})
    b.add("StringNGrams", "preserve_short", [s, b.const([0, 1, 8], "int64")],
          {"separator": "+", "ngram_widths": [3], "left_pad": "", "right_pad": "", "pad_width": 0,
           "preserve_short_sequences": True})


def _text(b):
    s = b.const(WORDS, "string")
    for unit in ("BYTE", "UTF8_CHAR"):
        b.add("StringLength", unit, [s], {"unit": unit})
    for op in ("StringLower", "StringUpper"):
        for enc in ("", "utf-8"):
            b.add(op, f"encoding_{enc or 'none'}", [s], {"encoding": enc})
    for buckets in (1, 7, 1000):
        b.add("StringToHashBucketFast", f"buckets{buckets}", [s], {"num_buckets": buckets})
        b.add("StringToHashBucket", f"buckets{buckets}", [s], {"num_buckets": buckets})
        b.add("StringToHashBucketStrong", f"buckets{buckets}", [s], {"num_buckets": buckets, "key": [1, 2]})
    nums = b.const(["1", "-2.5", "3e4", " 7", "0x10", "inf", "-nan", "1e-50", "2147483647", "-9223372036854775808",
                    "+5", "1.0"], "string")
    for out in dtypes_of("StringToNumber", "out_type"):
        b.add("StringToNumber", out, [nums if out in FLOATS else
                                      b.const(["1", "-2", "+42", "2147483647", "-2147483648", "0"], "string")],
              {"out_type": out})
    b.add("StringToNumber", "int64_extremes", [b.const(["9223372036854775807", "-9223372036854775808"], "string")],
          {"out_type": "int64"})
    for unit in ("BYTE", "UTF8_CHAR"):
        for pos, ln in ((0, 3), (2, 100), (-3, 2), (1, 0)):
            b.add("Substr", f"{unit}_pos{pos}_len{ln}", [b.const(["hello", "naïve", "日本語テ"], "string"),
                                                         b.const(pos, "int32"), b.const(ln, "int32")],
                  {"unit": unit})
    b.add("Substr", "vector_pos_len", [b.const(["abcdef", "xyz"], "string"), b.const([1, 0], "int64"),
                                       b.const([2, 3], "int64")])


def _regex(b):
    s = b.const(WORDS, "string")
    for pattern in ("h.*d", "[a-z]+", ".*\\d+", "", "(?i)mixed.*"):
        b.add("RegexFullMatch", f"pattern_{pattern}", [s, b.const(pattern, "string")])
        b.add("StaticRegexFullMatch", f"pattern_{pattern}", [s], {"pattern": pattern})
    for pattern, rewrite in (("o", "0"), ("\\s+", "_"), ("(\\w+) (\\w+)", "\\2 \\1"), ("^", ">"), ("é", "e")):
        for glob in (True, False):
            name = f"{pattern}_to_{rewrite}_global_{glob}"
            b.add("RegexReplace", name, [s, b.const(pattern, "string"), b.const(rewrite, "string")],
                  {"replace_global": glob})
            b.add("StaticRegexReplace", name, [s], {"pattern": pattern, "rewrite": rewrite, "replace_global": glob})


def _unicode(b):
    text = b.const(["héllo", "", "日本", "a\U0001F600b"], "string")
    bad = b.const([b"ok\xffend", b"\xc3", b"\xe6\x97", b"fine"], "string")
    for enc in ("UTF-8",):
        for errors in ("replace", "ignore"):
            for name, t in (("text", text), ("ill_formed", bad)):
                attrs = {"input_encoding": enc, "errors": errors, "replacement_char": 0xFFFD}
                for tsplits in dtypes_of("UnicodeDecode", "Tsplits"):
                    b.add("UnicodeDecode", f"{name}_{errors}_{tsplits}", [t], {**attrs, "Tsplits": tsplits})
                b.add("UnicodeDecodeWithOffsets", f"{name}_{errors}", [t], attrs)
                b.add("UnicodeTranscode", f"{name}_{errors}_to_utf8", [t],
                      {**attrs, "output_encoding": "UTF-8"})
    b.add("UnicodeDecode", "replace_control", [b.const(["a\x01b"], "string")],
          {"input_encoding": "UTF-8", "replace_control_characters": True})
    for out_enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
        b.add("UnicodeTranscode", f"to_{out_enc}", [text], {"input_encoding": "UTF-8", "output_encoding": out_enc})
        for tsplits in ("int32", "int64"):
            b.add("UnicodeEncode", f"{out_enc}_{tsplits}", [b.const([104, 233, 0x65E5, 0x1F600, 120], "int32"),
                                                              b.const([0, 2, 2, 5], tsplits)],
                  {"output_encoding": out_enc, "errors": "replace"})
    b.add("UnicodeEncode", "invalid_code_point", [b.const([65, 0xD800, -5, 0x110000], "int32"),
                                                  b.const([0, 4], "int64")],
          {"output_encoding": "UTF-8", "errors": "replace", "replacement_char": 63})
    b.add("UnicodeScript", "scripts", [b.const([65, 0x3B1, 0x5D0, 0x65E5, 0x30A2, 0x0E01, 48, -1, 0x110000], "int32")])


def _bytes(b):
    raw = b.const([b"", b"f", b"fo", b"foo", b"\xff\xfe\x00", b"hello world?>"], "string")
    for pad in (False, True):
        b.add("EncodeBase64", f"pad_{pad}", [raw], {"pad": pad})
    b.add("DecodeBase64", "web_safe", [tf.io.encode_base64(raw, pad=False)])
    b.add("DecodeBase64", "padded", [tf.io.encode_base64(raw, pad=True)])
    blob = b.const([bytes(range(16)), bytes(range(100, 116))], "string")
    for out in dtypes_of("DecodeRaw", "out_type"):
        for little in (True, False):
            b.add("DecodeRaw", f"{out}_little_{little}", [blob], {"out_type": out, "little_endian": little})
    b.add("ShardedFilename", "basic", [b.const("/tmp/ckpt", "string"), b.const(3, "int32"), b.const(10, "int32")])
    b.add("ShardedFilespec", "basic", [b.const("/tmp/ckpt", "string"), b.const(10, "int32")])


def _csv(b):
    records = b.const(["1,2.5,hello,7", ",,,", "\"quoted, text\",3e2,\"a\"\"b\",-9"], "string")
    defaults = [b.const(["none"], "string"), b.const([1.5]), b.const(["dflt"], "string"), b.const([42], "int64")]
    b.add("DecodeCSV", "defaults", [records, defaults])
    b.add("DecodeCSV", "select_cols", [b.const(["1;x;2", "3;y;4"], "string"),
                                       [b.const([0], "int32"), b.const([0], "int32")]],
          {"field_delim": ";", "select_cols": [0, 2]})
    b.add("DecodeCSV", "na_value", [b.const(["NA,1", "2,NA"], "string"), [b.const([-1], "int32"), b.const([0.5])]],
          {"na_value": "NA"})
    b.add("DecodeCSV", "no_quote_delim", [b.const(["\"a\",b"], "string"), [b.const([""], "string"),
                                                                           b.const([""], "string")]],
          {"use_quote_delim": False})


TEXT = ["Hello World", "", "Straße ÉCOLE", "ﬁ café\u0301", "日本語 テキスト", "ΣΊΣΥΦΟΣ", "a1b2  c3"]


def _normalize(b):
    s = b.const(TEXT, "string")
    b.add("CaseFoldUTF8", "mixed", [s])
    for form in ("NFC", "NFKC", "NFD", "NFKD"):
        b.add("NormalizeUTF8", form, [s], {"normalization_form": form})


def _tokenize(b):
    s = b.const(["hello, world!", "", "a  b\tc", "naïve-café 42"], "string")
    for name, delim, keep in (("whitespace", "\\s+", ""), ("punct_kept", "\\s+|[,!-]", "[,!-]"),
                              ("nothing_kept", "[a-z]+", "")):
        b.add("RegexSplitWithOffsets", name, [s, b.const(delim, "string"), b.const(keep, "string")])
    codepoints = tf.strings.unicode_decode(b.const(["hi 日本 ok", "", "Σx1 テ"], "string"), "UTF-8")
    for tsplits in dtypes_of("UnicodeScriptTokenizeWithOffsets", "Tsplits"):
        for keep in (False, True):
            splits = tf.cast(codepoints.row_splits, tsplits)
            b.add("UnicodeScriptTokenizeWithOffsets", f"{tsplits}_keep_whitespace_{keep}",
                  [codepoints.flat_values, splits], {"keep_whitespace": keep})


def _wordpiece(b):
    vocab = ["[UNK]", "they", "##'", "##re", "the", "great", "##est", "un", "##want", "##ed", "runn", "##ing"]
    words = b.const(["they're", "the", "greatest", "unwanted", "running", "xyz", ""], "string")
    # Without pretokenization: with it, the model carries a punctuation
    # table of about 270 KB (1 MB of JSON per case).
    tok = tensorflow_text.FastWordpieceTokenizer(vocab=vocab, token_out_type=tf.string,
                                                 support_detokenization=True, no_pretokenization=True)
    model = tok._model  # the flatbuffer the op reads: what a SavedModel holds as a constant
    b.add("FastWordpieceTokenizeWithOffsets", "words", [words, model])
    ids = b.const([1, 2, 3, 4, 5, 6, 0, 7, 8], "int32")
    b.add("TFText>FastWordpieceDetokenize", "rows", [ids, b.const([0, 3, 5, 9], "int64"), model])
    config = tf.constant(tensorflow_text.WhitespaceTokenizer()._config)
    b.add("TFText>WhitespaceTokenizeWithOffsetsV2", "unicode_spaces",
          [b.const(["a b\u00a0c\u2003d", "  lead", "", "one"], "string"), config])


def build():
    b = Builder(FAMILY)
    _format(b)
    _join_split(b)
    _text(b)
    _regex(b)
    _unicode(b)
    _bytes(b)
    _csv(b)
    _normalize(b)
    _tokenize(b)
    _wordpiece(b)
    return b
