"""Makes ONNX backend-test folders of the real-model corpus (models.json) for `tune onnx-test`:
for each model and each index k of its dims' value lists, OUT/NAME_k/ holds model.onnx (a
symlink to MODELS/NAME.onnx) and test_data_set_0/input_N.pb, output_N.pb, the outputs computed
by ONNX Runtime on inputs filled as models.json says (seeded: the same files every run).

Tolerances are rtol 1e-3, atol 1e-4 unless a model gives "rtol" / "atol" (with a
"tolerance_reason") in models.json; the expected outputs are ONNX Runtime's with all graph
optimizations unless the model says "reference": "unoptimized" (reference_session). With --run, each folder is also checked by
`tune onnx-test` with the model's tolerances, and the summary says which passed.

    .venv/bin/python bench/real_models/make_test_data.py --out build/real_model_tests \
        [--models build/real_models] [--only NAME,...] [--k 0,1,2] [--run build/cli/tune]
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

HERE = Path(__file__).resolve().parent
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-4


def input_shape(spec, dims, k):
    shape = []
    for d in spec["shape"]:
        shape.append(d if isinstance(d, int) else dims[d][k])
    return shape


def fill(spec, shape, rng):
    dtype = np.dtype(spec["dtype"])
    kind = spec.get("fill", "uniform")
    if kind == "uniform":
        return rng.uniform(spec.get("low", 0), spec.get("high", 1), size=shape).astype(dtype)
    if kind == "integers":
        return rng.integers(spec["low"], spec["high"], size=shape).astype(dtype)
    if kind == "ones":
        return np.ones(shape, dtype)
    if kind == "zeros":
        return np.zeros(shape, dtype)
    if kind == "value":
        return np.full(shape, spec["value"], dtype)
    raise ValueError(f"input '{spec['name']}': unknown fill '{kind}'")


def reference_session(model, path, threads=0):
    """The ONNX Runtime session whose outputs are expected: all graph optimizations, unless the
    model says "reference": "unoptimized" (with a "reference_reason": an int8 QDQ model, whose
    fused integer kernels round differently from ONNX's semantics)."""
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if threads:
        options.intra_op_num_threads = threads
    if model.get("reference") == "unoptimized":
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def write_tensor(path, array, name):
    tensor = numpy_helper.from_array(array, name)
    path.write_bytes(tensor.SerializeToString())


def make_case(model, k, models_dir, out):
    source = (models_dir / (model["name"] + ".onnx")).resolve()
    if not source.exists():
        raise FileNotFoundError(f"{source}: run fetch_models.py first")
    case = out / f"{model['name']}_{k}"
    data = case / "test_data_set_0"
    data.mkdir(parents=True, exist_ok=True)
    link = case / "model.onnx"
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(source, link)
    # One seed per (model, k), so adding a model does not change the others' data.
    seed = sum(ord(c) for c in model["name"]) * 10 + k
    rng = np.random.default_rng(seed)
    feeds = {}
    for i, spec in enumerate(model["inputs"]):
        array = fill(spec, input_shape(spec, model["dims"], k), rng)
        feeds[spec["name"]] = array
        write_tensor(data / f"input_{i}.pb", array, spec["name"])
    session = reference_session(model, source)
    names = [o.name for o in session.get_outputs()]
    outputs = session.run(names, feeds)
    for i, (name, array) in enumerate(zip(names, outputs)):
        write_tensor(data / f"output_{i}.pb", np.asarray(array), name)
    return case


def run_case(tune, case, model):
    rtol = model.get("rtol", DEFAULT_RTOL)
    atol = model.get("atol", DEFAULT_ATOL)
    command = [str(tune), "onnx-test", "--rtol", str(rtol), "--atol", str(atol), str(case)]
    done = subprocess.run(command, capture_output=True, text=True)
    print(done.stdout.strip(), flush=True)
    return done.returncode == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--models", type=Path, default=HERE.parents[1] / "build" / "real_models")
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--k", default="", help="comma-separated value indices (default: all)")
    parser.add_argument("--run", type=Path, help="the tune binary: check each folder with it")
    args = parser.parse_args()
    corpus = json.loads((HERE / "models.json").read_text())["models"]
    only = {n for n in args.only.split(",") if n}
    unknown = only - {m["name"] for m in corpus}
    if unknown:
        sys.exit(f"--only names models not in models.json: {', '.join(sorted(unknown))}")
    wanted_k = {int(k) for k in args.k.split(",") if k}
    failed = []
    for model in corpus:
        if only and model["name"] not in only:
            continue
        counts = {len(v) for v in model["dims"].values()} or {3}
        for k in range(min(counts)):
            if wanted_k and k not in wanted_k:
                continue
            if not model["dims"] and k > 0:
                break  # a static model has one shape
            try:
                case = make_case(model, k, args.models, args.out)
            except Exception as e:  # noqa: BLE001: ONNX Runtime's own errors, reported per case
                print(f"{model['name']}_{k}: ONNX Runtime failed: {e}", flush=True)
                failed.append(f"{model['name']}_{k}")
                continue
            print(f"made {case}", flush=True)
            if args.run and not run_case(args.run, case, model):
                failed.append(case.name)
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
