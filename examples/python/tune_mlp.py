"""Tunes the bundled MLP (examples/models/mlp) at batch 1, compiles it with the best records,
runs it on numpy arrays and checks the outputs against ONNX Runtime (when installed) and
numpy; then times the tuned and the untuned model.

    PYTHONPATH=build/python .venv/bin/python examples/python/tune_mlp.py --trials 64

The records go to --db (default: a tuning.db in a temporary folder; `--db ~/.cache/kiln/
tuning.db` adds them to the one `tune run` uses)."""

import argparse
import os
import pathlib
import tempfile

import numpy as np

import kiln

MODEL = pathlib.Path(__file__).resolve().parents[1] / "models" / "mlp" / "model.onnx"


def reference(x):
    """The model's output from ONNX Runtime, or None where it is not installed."""
    try:
        import onnxruntime
    except ImportError:
        return None
    session = onnxruntime.InferenceSession(str(MODEL), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def numpy_reference(x):
    """The MLP written out in numpy from the ONNX file's weights (needs onnx)."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return None
    graph = onnx.load(str(MODEL)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    values = {"x": x}
    for node in graph.node:
        args = [values.get(name, weights.get(name)) for name in node.input]
        if node.op_type == "Gemm":
            attrs = {a.name: a for a in node.attribute}
            b = args[1].T if attrs.get("transB") and attrs["transB"].i else args[1]
            out = args[0] @ b + args[2]
        elif node.op_type == "MatMul":
            out = args[0] @ args[1]
        elif node.op_type == "Add":
            out = args[0] + args[1]
        elif node.op_type == "Relu":
            out = np.maximum(args[0], 0)
        else:
            return None
        values[node.output[0]] = out
    return values[graph.output[0].name]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--db", default=None)
    parser.add_argument("--progress", action="store_true", help="draw the task table on stderr")
    args = parser.parse_args()

    mod = kiln.load_onnx(str(MODEL))
    dims = {"batch": 1}
    print(f"{MODEL.name}: {len(mod.functions)} functions, entry {mod.entry}")
    for task in kiln.extract_tasks(mod, dims=dims):
        print(f"  task {task.name}: weight {task.weight}, {task.flops} FLOP, {task.params}")

    with tempfile.TemporaryDirectory() as tmp:
        db = kiln.Database(args.db or os.path.join(tmp, "tuning.db"))
        result = kiln.tune(mod, trials=args.trials, database=db, dims=dims,
                           progress=args.progress)
        for t in result["tasks"]:
            best = t["best_latency_s"]
            untuned = t["untuned_latency_s"]
            print(f"  tuned {t['name']}: {t['trials']} trials, best "
                  f"{best * 1e6 if best else float('nan'):.2f} us, untuned "
                  f"{untuned * 1e6 if untuned else float('nan'):.2f} us")

        tuned = kiln.compile(mod, database=db, dims=dims)
        untuned = kiln.compile(mod, database=False, dims=dims)
        print(f"compiled: {tuned.report['tuned']} of {tuned.report['kernels']} kernels tuned")

        x = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
        out = tuned(x=x)[tuned.outputs[0]]
        for name, expected, needs in (("onnxruntime", reference(x), "onnxruntime"),
                                      ("numpy", numpy_reference(x), "onnx")):
            if expected is None:
                print(f"{name}: not compared ({needs} is not installed)")
                continue
            np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-4)
            print(f"{name}: outputs match (max abs diff {np.abs(out - expected).max():.2e})")

        for label, art in (("tuned", tuned), ("untuned", untuned)):
            timing = art.benchmark(x=x, repeat=5, min_repeat_ms=20)
            print(f"{label}: median {timing['median_s'] * 1e6:.2f} us per run")
        tuned.save(os.path.join(tmp, "mlp.kiln"))
        again = kiln.load(os.path.join(tmp, "mlp.kiln"))
        np.testing.assert_array_equal(again(x=x)[again.outputs[0]], out)
        print("saved and loaded: same outputs")


if __name__ == "__main__":
    main()
