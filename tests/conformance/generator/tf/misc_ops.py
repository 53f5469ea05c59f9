"""Parsing tf.Example protos (ParseExample, ParseExampleV2,
ParseSingleExample) with dense, sparse and ragged features and defaults;
Const; the dataflow control-flow ops outside a loop frame (Enter, Exit,
NextIteration, LoopCond, Switch, Merge); the pass-through ops with side
effects only (Print, Assert with a true condition); and the random ops whose
output TensorFlow fixes given their seeds: the stateless family (Philox and
the CPU's auto-select), the key/counter helpers, and the stateful ops with a
nonzero seed pair, whose first draw from a fresh kernel is deterministic
(case_builder clears TensorFlow's kernel cache before each such case, as
tfhost runs each case on a fresh kernel). A zero seed pair draws from the OS:
not checkable."""
from case_builder import Builder, dtypes_of, tf

FAMILY = "misc"


def _example(features):
    feats = {}
    for key, value in features.items():
        if value and isinstance(value[0], bytes):
            feats[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=value))
        elif value and isinstance(value[0], float):
            feats[key] = tf.train.Feature(float_list=tf.train.FloatList(value=value))
        else:
            feats[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=value))
    # Deterministic: a proto map's wire order is otherwise unspecified.
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString(deterministic=True)


EXAMPLES = [
    _example({"age": [31], "score": [0.5, 1.5], "tags": [b"a", b"bc"], "ids": [3, 1, 4]}),
    _example({"score": [2.0, -1.0], "ids": [9]}),
    _example({"age": [7], "score": [0.0, 0.25], "tags": [b"z"], "ids": []}),
]


def _parse(b):
    serialized = b.const(EXAMPLES, "string")
    names = b.const([], "string")
    age_default, score_default = b.const([-1], "int64"), b.const([9.0, 9.0])
    b.add("ParseExample", "dense_and_sparse",
          [serialized, names, [b.const("ids", "string"), b.const("tags", "string")],
           [b.const("age", "string"), b.const("score", "string")], [age_default, score_default]],
          {"sparse_types": ["int64", "string"], "dense_shapes": [[1], [2]]})
    b.add("ParseExample", "dense_only_missing_default",
          [serialized[1:2], names, [], [b.const("age", "string")], [age_default]],
          {"sparse_types": [], "dense_shapes": [[1]]})
    b.add("ParseExampleV2", "sparse_dense_ragged",
          [serialized, names, b.const(["tags"], "string"), b.const(["age", "score"], "string"),
           b.const(["ids"], "string"), [age_default, score_default]],
          {"num_sparse": 1, "sparse_types": ["string"], "ragged_value_types": ["int64"],
           "ragged_split_types": ["int64"], "dense_shapes": [[1], [2]]})
    b.add("ParseExampleV2", "ragged_int32_splits",
          [serialized, names, b.const([], "string"), b.const([], "string"), b.const(["ids", "tags"], "string"), []],
          {"num_sparse": 0, "sparse_types": [], "ragged_value_types": ["int64", "string"],
           "ragged_split_types": ["int32", "int32"], "dense_shapes": []})
    b.add("ParseExampleV2", "scalar_serialized",
          [serialized[0], names, b.const(["ids"], "string"), b.const(["score"], "string"), b.const([], "string"),
           [score_default]],
          {"num_sparse": 1, "sparse_types": ["int64"], "ragged_value_types": [], "ragged_split_types": [],
           "dense_shapes": [[2]]})
    for i in range(2):
        b.add("ParseSingleExample", f"example{i}", [serialized[i], [age_default, score_default]],
              {"num_sparse": 2, "sparse_keys": ["ids", "tags"], "dense_keys": ["age", "score"],
               "sparse_types": ["int64", "string"], "dense_shapes": [[1], [2]]})


def _control(b):
    # Outside a loop frame the frame ops pass their input through, in
    # TensorFlow's eager mode as in tfhost's single-op run.
    x = b.rand([2, 3])
    b.add("Enter", "passes_input", [x], {"frame_name": "loop", "is_constant": False, "parallel_iterations": 10})
    b.add("Exit", "passes_input", [x])
    b.add("NextIteration", "passes_input", [b.const(["a"], "string")])
    b.add("LoopCond", "passes_input", [b.const(True, "bool")])
    # Switch forwards its input to the output `pred` selects; the other one
    # is dead (TensorFlow's eager mode shows it empty), so only that one is
    # compared.
    for pred in (False, True):
        b.add("Switch", f"pred_{pred}", [x, b.const(pred, "bool")], only_outputs=[int(pred)])
    b.add("Merge", "first_live_input", [[x, b.rand([2, 3])]])
    # TensorFlow's eager mode cannot take a tensor attr, so Const's node is
    # built by TensorFlow and its output is the value TensorFlow decodes
    # from the attr's TensorProto.
    consts = {"float32": [[1.5, -2.0], [0.0, 3.0]], "int64": [2 ** 40, -7], "string": ["a", "é"],
              "bool": [True, False], "float16": [0.5, 65504.0], "uint8": [0, 255], "float64": 3.25}
    for dt, values in consts.items():
        proto = tf.make_tensor_proto(values, dtype=dt)
        b.add("Const", dt, [], {"value": proto, "dtype": dt},
              fallback_fn=lambda proto=proto, dt=dt: [tf.constant(tf.make_ndarray(proto), dtype=dt)],
              reference="the TensorProto TensorFlow built for the value attr, decoded by TensorFlow")


def _side_effects(b):
    b.add("Print", "passes_input_through", [b.const([1.0, 2.0]), [b.const([3], "int32")]],
          {"message": "conformance: ", "summarize": 1})
    b.add("Assert", "true_condition", [b.const(True, "bool"), [b.const("never shown", "string")]])


SHAPE = [2, 5]


def _stateless(b):
    seed = b.const([7, 11], "int64")
    for op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"):
        for dt in dtypes_of(op, "dtype"):
            for tseed in ("int32", "int64"):
                b.add(op, f"{dt}_seed_{tseed}", [b.const(SHAPE, "int32"), b.const([7, 11], tseed)], {"dtype": dt})
        b.add(op, "empty_shape", [b.const([0, 3], "int64"), seed])
    for dt in dtypes_of("StatelessRandomUniformInt", "dtype"):
        b.add("StatelessRandomUniformInt", dt, [b.const(SHAPE, "int32"), seed, b.const(-5, dt), b.const(100, dt)])
    for dt in dtypes_of("StatelessRandomUniformFullInt", "dtype"):
        b.add("StatelessRandomUniformFullInt", dt, [b.const(SHAPE, "int32"), seed], {"dtype": dt})
    key, counter = b.const([0x12345678], "uint64"), b.const([5, 0], "uint64")
    for alg in (1, 3):
        algt = b.const(alg, "int32")
        for op in ("StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"):
            for dt in dtypes_of(op, "dtype"):
                b.add(op, f"{dt}_alg{alg}", [b.const(SHAPE, "int32"), key, counter, algt], {"dtype": dt})
        for dt in dtypes_of("StatelessRandomUniformIntV2", "dtype"):
            b.add("StatelessRandomUniformIntV2", f"{dt}_alg{alg}",
                  [b.const(SHAPE, "int32"), key, counter, algt, b.const(-3, dt), b.const(1000, dt)])
        for dt in dtypes_of("StatelessRandomUniformFullIntV2", "dtype"):
            b.add("StatelessRandomUniformFullIntV2", f"{dt}_alg{alg}", [b.const(SHAPE, "int32"), key, counter, algt],
                  {"dtype": dt})
    b.add("StatelessRandomGetAlg", "cpu", [])
    for tseed in ("int32", "int64"):
        b.add("StatelessRandomGetKeyCounter", tseed, [b.const([7, 11], tseed)])
        b.add("StatelessRandomGetKeyCounterAlg", tseed, [b.const([-1, 2 ** 31 - 1], tseed)])


def _stateful(b):
    for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
        for dt in dtypes_of(op, "dtype"):
            for seed, seed2 in ((1, 2), (0, 5), (87654321, 0)):
                b.add(op, f"{dt}_seed{seed}_{seed2}", [b.const(SHAPE, "int32")],
                      {"dtype": dt, "seed": seed, "seed2": seed2}, stateful=True)
    for dt in dtypes_of("RandomUniformInt", "Tout"):
        b.add("RandomUniformInt", dt, [b.const(SHAPE, "int64"), b.const(-10, dt), b.const(10, dt)],
              {"seed": 3, "seed2": 4}, stateful=True)


def build():
    b = Builder(FAMILY)
    _parse(b)
    _control(b)
    _side_effects(b)
    _stateless(b)
    _stateful(b)
    return b
