"""Writes tests/conformance/cases/tf_<family>.json from TensorFlow, one file
per op family module (<family>_ops.py), and reports coverage: which ops tfhost
registers (docs/ops.md) have TensorFlow cases, which are listed as not
checkable (tests/conformance/unchecked_ops.txt), and which are neither.

    scripts/py tests/conformance/generator/tf/generate.py            # every family
    scripts/py tests/conformance/generator/tf/generate.py math nn    # some

Calls TensorFlow refused (no CPU kernel for a dtype, say) are listed with
--verbose; they are not cases.
"""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from case_builder import REGISTERED, REPO, write_cases  # noqa: E402

FAMILIES = ["math", "reduction", "linalg", "nn", "norm_pool", "array", "convert", "index", "image_signal", "string",
            "sparse", "misc"]


def unchecked_ops():
    path = os.path.join(REPO, "tests", "conformance", "unchecked_ops.txt")
    ops = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                op, reason = line.rstrip("\n").split("\t", 1)
                ops[op] = reason
    return ops


def covered_ops():
    import json
    cases_dir = os.path.join(REPO, "tests", "conformance", "cases")
    ops = {}
    for name in sorted(os.listdir(cases_dir)):
        if name.startswith("tf_") and name.endswith(".json"):
            with open(os.path.join(cases_dir, name), encoding="utf-8") as f:
                for case in json.load(f)["cases"]:
                    ops[case["op"]] = ops.get(case["op"], 0) + 1
    return ops


def main(argv):
    verbose = "--verbose" in argv
    families = [a for a in argv if not a.startswith("--")] or FAMILIES
    if families == FAMILIES:  # a full run also drops files of families since removed
        cases_dir = os.path.join(REPO, "tests", "conformance", "cases")
        for name in os.listdir(cases_dir):
            if name.startswith("tf_") and name.endswith(".json") and name[3:-5] not in FAMILIES:
                os.remove(os.path.join(cases_dir, name))
    for family in families:
        module = importlib.import_module(f"{family}_ops")
        b = module.build()
        path = write_cases(family, b.cases)
        size = os.path.getsize(path)
        print(f"{family}: {len(b.cases)} cases, {len({c['op'] for c in b.cases})} ops, {size // 1024} KiB; "
              f"{len(b.skipped)} calls skipped (refused by TensorFlow, or a dtype tfhost does not register)",
              file=sys.stderr)
        if verbose:
            for name, why in b.skipped:
                print(f"  skipped {name}: {why}", file=sys.stderr)
    covered, unchecked = covered_ops(), unchecked_ops()
    registered = set(REGISTERED)
    for op in sorted(set(unchecked) - registered):
        print(f"unchecked_ops.txt names {op}, which tfhost does not register", file=sys.stderr)
    for op in sorted(set(unchecked) & set(covered)):
        print(f"unchecked_ops.txt names {op}, which has TensorFlow cases", file=sys.stderr)
    missing = sorted(registered - set(covered) - set(unchecked))
    print(f"{len(registered)} registered ops: {len(registered & set(covered))} checked against TensorFlow, "
          f"{len(registered & set(unchecked))} listed as not checkable, {len(missing)} neither", file=sys.stderr)
    if missing:
        print("  neither: " + " ".join(missing), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
