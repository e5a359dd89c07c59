"""Writes ONNX's own node test cases, and the bundled example models at newer opsets, as test data.

node/: every case of onnx.backend.test.case.node.collect_testcases() (the node tests of the
onnx package in the project's virtual environment, models at opsets up to the newest) as an
ONNX backend test directory, node/<case>/model.onnx with node/<case>/test_data_set_<i>/
{input,output}_<j>.pb, the layout of Debian's libonnx-testdata. tests/cli's onnx_package_node_suite
runs them with the expected-failure list tests/cli/testdata/onnx_package_node_expected.txt.

reference/: the front end's test models at opsets 18 to 28 (tests/ir/frontend/testdata/models/
opset*_ops.onnx) as backend test directories, with seeded random inputs and the outputs of
onnx.reference.ReferenceEvaluator.

converted/: each model of examples/models/ brought to opsets 18 and 21 by
onnx.version_converter (converted/<model>_opset<N>.onnx), for the test that the task table of
a model does not depend on the opset it is written in.

Nothing of it is committed: the build writes it into the build folder before the tests that
read it (tests/cli/CMakeLists.txt), with the project's virtual environment:
    .venv/bin/python tests/cli/make_onnx_node_cases.py OUT_DIR
The output is deterministic for one version of the onnx package; a file `stamp` in OUT_DIR,
written last, names that version, this script and the example models, and the script returns
at once when the stamp says the data is already there.
"""
import argparse
import hashlib
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper, version_converter

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "models")
FRONTEND_MODELS = os.path.join(HERE, "..", "ir", "frontend", "testdata", "models")
CONVERTED_OPSETS = (18, 21)


def tensor_file(value, type_proto, name):
    """The serialized proto of one input or output, as ONNX's own data generator writes it."""
    if type_proto.HasField("map_type"):
        return numpy_helper.from_dict(value, name).SerializeToString()
    if type_proto.HasField("sequence_type"):
        return numpy_helper.from_list(value, name).SerializeToString()
    if type_proto.HasField("optional_type"):
        return numpy_helper.from_optional(value, name).SerializeToString()
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(np.asarray(value), name).SerializeToString()


def write_case(case, out_dir):
    case_dir = os.path.join(out_dir, case.name)
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString(deterministic=True))
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        set_dir = os.path.join(case_dir, f"test_data_set_{i}")
        os.makedirs(set_dir)
        for j, value in enumerate(inputs):
            with open(os.path.join(set_dir, f"input_{j}.pb"), "wb") as f:
                f.write(tensor_file(value, graph.input[j].type, graph.input[j].name))
        for j, value in enumerate(outputs):
            with open(os.path.join(set_dir, f"output_{j}.pb"), "wb") as f:
                f.write(tensor_file(value, graph.output[j].type, graph.output[j].name))


def write_node_cases(out_dir):
    from onnx.backend.test.case import node  # noqa: PLC0415 (slow import, only here)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cases compute infinities on purpose
        with np.errstate(all="ignore"):
            cases = node.collect_testcases()
    names = set()
    for case in sorted(cases, key=lambda c: c.name):
        if case.name in names:
            continue
        names.add(case.name)
        write_case(case, out_dir)
    return len(names)


def reference_inputs(model, rng):
    """Seeded inputs: floats from a normal distribution, integer inputs in the range the model
    uses them in (positions of a rotary cache, shift amounts, values to shift)."""
    feeds = {}
    for value in model.graph.input:
        t = value.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else 2 for d in t.shape.dim]
        if t.elem_type == TensorProto.FLOAT:
            feeds[value.name] = rng.standard_normal(dims).astype(np.float32)
        elif value.name == "pos":
            feeds[value.name] = rng.integers(0, 8, dims).astype(np.int64)
        elif value.name == "b":
            feeds[value.name] = rng.integers(-2, 40, dims).astype(np.int32)
        else:
            feeds[value.name] = rng.integers(-200, 200, dims).astype(np.int32)
    return feeds


def write_reference_cases(out_dir):
    from onnx.reference import ReferenceEvaluator  # noqa: PLC0415

    count = 0
    rng = np.random.default_rng(17)
    for name in sorted(os.listdir(FRONTEND_MODELS)):
        if not (name.startswith("opset") and name.endswith(".onnx")):
            continue
        model = onnx.load(os.path.join(FRONTEND_MODELS, name))
        feeds = reference_inputs(model, rng)
        outputs = ReferenceEvaluator(model).run(None, feeds)
        case_dir = os.path.join(out_dir, name[: -len(".onnx")])
        os.makedirs(os.path.join(case_dir, "test_data_set_0"))
        with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
            f.write(model.SerializeToString(deterministic=True))
        for j, value in enumerate(model.graph.input):
            with open(os.path.join(case_dir, "test_data_set_0", f"input_{j}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(feeds[value.name], value.name).SerializeToString())
        for j, value in enumerate(outputs):
            with open(os.path.join(case_dir, "test_data_set_0", f"output_{j}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(value)).SerializeToString())
        count += 1
    return count


def write_converted_models(out_dir):
    count = 0
    for name in sorted(os.listdir(EXAMPLES)):
        path = os.path.join(EXAMPLES, name, "model.onnx")
        if not os.path.isfile(path):
            continue
        model = onnx.load(path)
        for opset in CONVERTED_OPSETS:
            converted = version_converter.convert_version(model, opset)
            onnx.checker.check_model(converted)
            with open(os.path.join(out_dir, f"{name}_opset{opset}.onnx"), "wb") as f:
                f.write(converted.SerializeToString(deterministic=True))
            count += 1
    return count


def inputs_key():
    """What the data depends on: the onnx version, this script and the example models."""
    digest = hashlib.sha256()
    with open(os.path.abspath(__file__), "rb") as f:
        digest.update(f.read())
    for name in sorted(os.listdir(EXAMPLES)):
        path = os.path.join(EXAMPLES, name, "model.onnx")
        if os.path.isfile(path):
            with open(path, "rb") as f:
                digest.update(f.read())
    for name in sorted(os.listdir(FRONTEND_MODELS)):
        with open(os.path.join(FRONTEND_MODELS, name), "rb") as f:
            digest.update(f.read())
    return f"onnx {onnx.__version__}, inputs {digest.hexdigest()[:16]}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", help="the folder to write node/ and converted/ into")
    args = parser.parse_args()
    out = os.path.abspath(args.out_dir)
    stamp = os.path.join(out, "stamp")
    key = inputs_key()
    if os.path.exists(stamp):
        with open(stamp) as f:
            if f.readline().strip() == key:
                print(f"make_onnx_node_cases: {out} is up to date ({key})")
                return 0
        os.remove(stamp)
    for sub in ("node", "reference", "converted"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
        os.makedirs(os.path.join(out, sub))
    cases = write_node_cases(os.path.join(out, "node"))
    references = write_reference_cases(os.path.join(out, "reference"))
    models = write_converted_models(os.path.join(out, "converted"))
    with open(stamp, "w") as f:
        f.write(f"{key}\n{cases} node cases, {references} reference cases, {models} converted\n")
    print(f"make_onnx_node_cases: {cases} node cases, {references} reference cases, "
          f"{models} converted models in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
