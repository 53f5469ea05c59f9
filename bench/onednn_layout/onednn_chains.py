"""Where could a blocked-layout pass keep oneDNN's nChw8c/nChw16c between
two convolutions? Only on an edge whose writer and reader both run on
oneDNN: counts those edges of a TF.js graph model, from a
`tfhost bench --profile --json` of it (which backend computed each node)
and its model.json (the edges, which neither `tfhost inspect` nor the
profile lists). A fused node is named after the last op it absorbed
(BiasAdd, Relu, ...), so a convolution's input is found by walking back over
such single-input ops to the node that ran.

  python3 bench/onednn_layout/onednn_chains.py MODEL_DIR PROFILE_JSON

Prints each oneDNN -> oneDNN edge, then one summary line. Standard library only.
"""
import json
import pathlib
import re
import sys

ABSORBED = {"BiasAdd", "Relu", "Relu6", "Add", "AddV2", "FusedBatchNorm", "FusedBatchNormV3", "Elu", "Sigmoid",
            "Tanh", "LeakyRelu", "Identity", "Mul", "Conv2D", "DepthwiseConv2dNative"}


def is_conv(op):
    return re.search(r"Conv2D|Depthwise", op) is not None


def node_name(tensor):
    return re.sub(r":\d+$", "", tensor.removeprefix("^"))


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    model_dir, profile_file = pathlib.Path(argv[0]), pathlib.Path(argv[1])
    graph = json.loads((model_dir / "model.json").read_text(encoding="utf-8"))["modelTopology"]["node"]
    graph_node = {n["name"]: n for n in graph}
    profile = json.loads(profile_file.read_text(encoding="utf-8"))
    ran = {n["name"]: n for n in profile["results"][0]["profile"]["nodes"]}

    def writer(tensor):
        """The node that ran and wrote `tensor`, or None."""
        name = node_name(tensor)
        for _ in range(8):
            if name in ran:
                return ran[name]
            n = graph_node.get(name)
            if n is None or n["op"] not in ABSORBED:
                return None
            name = node_name(n["input"][0])
        return None

    convs = on_onednn = edges = pairs = 0
    for node in ran.values():
        if not is_conv(node["op"]):
            continue
        convs += 1
        if node["backend"] == "onednn":
            on_onednn += 1
        # The convolution op inside the fused node, and what its data input is.
        conv = graph_node.get(node["name"])
        for _ in range(6):
            if conv is None or is_conv(conv["op"]):
                break
            conv = graph_node.get(node_name(conv["input"][0]))
        if conv is None:
            continue
        source = writer(conv["input"][0])
        if source is None or not is_conv(source["op"]):
            continue
        edges += 1
        if source["backend"] == "onednn" and node["backend"] == "onednn":
            pairs += 1
            print(f"  {source['name']} -> {node['name']}")
    print(f"{model_dir.resolve().name}: {convs} convolutions ({on_onednn} on oneDNN), "
          f"{edges} convolution -> convolution edges, {pairs} with both ends on oneDNN")


if __name__ == "__main__":
    main(sys.argv[1:])
