"""ONNX Runtime's latency and peak memory on one model: the baseline of bench/bench_models.

Runs MODEL with ONNX Runtime's CPU provider (all graph optimizations, sequential execution,
THREADS intra-op threads) on seeded random float32 inputs of the given shapes, as Kiln's
`tune bench` times a compiled model: warm-up runs, then repeats of enough runs to last
--min-repeat-ms each; the median run time of the repeats is the figure. Peak memory is the
growth of this process's peak resident set (VmHWM) over its resident set before the session
was made: the session's weights, arena and outputs as the operating system sees them.

A model of the real-model corpus (bench/real_models/models.json) takes its inputs as that
file says instead (--real-model NAME --k K: the K-th value of each dim, each input filled as
listed, seeded), and --save-inputs DIR writes them to DIR/INPUT.npy for `tune bench --input`.
With --fill-from-model, every input not given is made from the model's own input list: its
symbolic dims from --dim NAME=VALUE (an unnamed dim is INPUT_dimI, as Kiln's importer names
it) or --default-dim, floats uniform in [-1, 1), integers 1 (a valid token, mask and index),
booleans true: what `tune run --until-faster-than ort` times ONNX Runtime on.

Prints one JSON object: {"latency_s", "repeats_s", "runs_per_repeat", "threads",
"peak_bytes", "onnxruntime", "inputs" (name: .npy path, with --save-inputs)}. Run it with the
project's virtual environment:
    .venv/bin/python bench/ort_latency.py MODEL.onnx --input x=1,128,768 --threads 1
    .venv/bin/python bench/ort_latency.py build/real_models/minilm_l3.onnx \
        --real-model minilm_l3 --k 1 --save-inputs /tmp/inputs --threads 2
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime


def memory_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def parse_input(text):
    name, _, dims = text.partition("=")
    if not name or not dims:
        raise argparse.ArgumentTypeError(f"--input {text}: expected NAME=D0,D1,...")
    try:
        shape = [int(d) for d in dims.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--input {text}: dims must be integers") from None
    if any(d <= 0 for d in shape):
        raise argparse.ArgumentTypeError(f"--input {text}: dims must be positive")
    return name, shape


def parse_dim(text):
    name, _, value = text.partition("=")
    try:
        return name, int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--dim {text}: expected NAME=INTEGER") from None


# ONNX's TensorProto element types that --fill-from-model fills.
ONNX_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64, 9: np.bool_,
               10: np.float16, 11: np.float64}


def model_feeds(path, dims, default_dim, given, rng):
    """An input for each graph input of the model not in `given`, as --fill-from-model says."""
    import onnx
    graph = onnx.load(path, load_external_data=False).graph
    initializers = {t.name for t in graph.initializer}
    feeds = {}
    for spec in graph.input:
        if spec.name in given or spec.name in initializers:
            continue
        tensor = spec.type.tensor_type
        shape = []
        for i, d in enumerate(tensor.shape.dim):
            if d.HasField("dim_value") and d.dim_value >= 0:
                shape.append(d.dim_value)
            else:
                shape.append(dims.get(d.dim_param or f"{spec.name}_dim{i}", default_dim))
        dtype = ONNX_DTYPES.get(tensor.elem_type)
        if dtype is None:
            raise SystemExit(f"ort_latency: input {spec.name}: element type {tensor.elem_type} "
                             "is not one --fill-from-model fills")
        if np.issubdtype(dtype, np.floating):
            feeds[spec.name] = rng.uniform(-1, 1, size=shape).astype(dtype)
        else:
            feeds[spec.name] = np.ones(shape, dtype=dtype)
    return feeds


def real_model_feeds(name, k, rng):
    """The inputs of corpus model NAME at its dims' K-th values, as models.json fills them."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "real_models"))
    from make_test_data import fill, input_shape
    with open(Path(__file__).resolve().parent / "real_models" / "models.json") as f:
        models = {m["name"]: m for m in json.load(f)["models"]}
    if name not in models:
        raise SystemExit(f"ort_latency: --real-model {name}: not in models.json "
                         f"({', '.join(sorted(models))})")
    model = models[name]
    return {spec["name"]: fill(spec, input_shape(spec, model.get("dims", {}), k), rng)
            for spec in model["inputs"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--input", action="append", type=parse_input, default=[],
                        help="NAME=D0,D1,...: an input's shape (float32)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--min-repeat-ms", type=float, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--real-model", help="a name of bench/real_models/models.json: its "
                        "inputs, filled as listed there")
    parser.add_argument("--k", type=int, default=0, help="with --real-model: the index into "
                        "each dim's values")
    parser.add_argument("--save-inputs", help="write each input to DIR/NAME.npy")
    parser.add_argument("--fill-from-model", action="store_true",
                        help="make every input not given from the model's input list")
    parser.add_argument("--dim", action="append", type=parse_dim, default=[],
                        help="NAME=VALUE: a symbolic dim, with --fill-from-model")
    parser.add_argument("--default-dim", type=int, default=128,
                        help="the symbolic dims not given, with --fill-from-model")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    feeds = {name: rng.uniform(-1, 1, size=shape).astype(np.float32) for name, shape in args.input}
    if args.real_model:
        feeds.update(real_model_feeds(args.real_model, args.k, rng))
    if args.fill_from_model:
        feeds.update(model_feeds(args.model, dict(args.dim), args.default_dim, feeds, rng))
    saved = {}
    if args.save_inputs:
        os.makedirs(args.save_inputs, exist_ok=True)
        for name, value in feeds.items():
            saved[name] = os.path.join(args.save_inputs, name + ".npy")
            np.save(saved[name], value)
    baseline_kb = memory_kb("VmRSS")

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = onnxruntime.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    missing = [i.name for i in session.get_inputs() if i.name not in feeds]
    if missing:
        print(f"ort_latency: no --input for {', '.join(missing)}", file=sys.stderr)
        return 2

    for _ in range(args.warmup):
        session.run(None, feeds)
    # Runs per repeat: enough for one repeat to last min_repeat_ms.
    start = time.perf_counter()
    session.run(None, feeds)
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(np.ceil(args.min_repeat_ms / 1e3 / once)))
    repeats = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for _ in range(number):
            session.run(None, feeds)
        repeats.append((time.perf_counter() - start) / number)

    print(json.dumps({
        "latency_s": statistics.median(repeats),
        "repeats_s": repeats,
        "runs_per_repeat": number,
        "threads": args.threads,
        "peak_bytes": max(0, memory_kb("VmHWM") - baseline_kb) * 1024,
        "onnxruntime": onnxruntime.__version__,
        "inputs": saved,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
