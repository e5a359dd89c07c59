"""The per-call overhead of a compiled model called from Python (kiln.Artifact.__call__:
arrays checked and copied in, the GIL released, outputs handed out without a copy) against
the executor run from C++ on the same artifact: in this process (Artifact.benchmark: the
executor's Run timed in C++ as `tune bench` times it) and by `tune bench` itself. The model is
the bundled MLP at batch 1 (a few microseconds a run), untuned, on one thread, so that the
overhead is not lost in the kernels' time. The input is timed both ways it can cross: a numpy
array as numpy allocates it (copied once into aligned memory) and one from kiln.empty (64-byte
aligned, read in place).

    PYTHONPATH=build/python .venv/bin/python bench/bench_python_call.py [--json]

With --json the last line is one JSON object: python_call_s, python_call_in_place_s,
executor_s, tune_bench_s, overhead_s (python_call_s - executor_s) and ratio (python_call_s /
executor_s), medians.
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import kiln

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODEL = ROOT / "examples" / "models" / "mlp" / "model.onnx"


def time_calls(art, x, repeat, min_seconds):
    """Median seconds per art(x=x) call over `repeat` repeats of at least `min_seconds`."""
    for _ in range(100):
        art(x=x)
    per_call = []
    for _ in range(repeat):
        number, elapsed = 0, 0.0
        start = time.perf_counter()
        while elapsed < min_seconds:
            for _ in range(100):
                art(x=x)
            number += 100
            elapsed = time.perf_counter() - start
        per_call.append(elapsed / number)
    return statistics.median(per_call)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--tune", default=str(ROOT / "build" / "cli" / "tune"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "mlp.kiln"
        kiln.compile(kiln.load_onnx(str(MODEL)), database=False, library="never",
                     dims={"batch": 1}, output=str(path))
        art = kiln.load(str(path), threads=1)
        x = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
        python_call = time_calls(art, x, args.repeat, 0.05)
        copied = art.copied_inputs
        aligned = kiln.empty(x.shape, x.dtype)
        aligned[...] = x
        in_place = time_calls(art, aligned, args.repeat, 0.05)
        assert art.copied_inputs == [], art.copied_inputs
        executor = art.benchmark(x=x, repeat=args.repeat, min_repeat_ms=50)["median_s"]
        tune_bench = None
        if pathlib.Path(args.tune).exists():
            out = subprocess.run([args.tune, "bench", str(path), "--threads", "1", "--repeat",
                                  str(args.repeat), "--min-repeat-ms", "50", "--dim", "batch=1",
                                  "--json"], check=True, capture_output=True, text=True)
            tune_bench = json.loads(out.stdout.splitlines()[-1])["median_s"]

    result = {
        "model": "mlp batch=1, untuned, 1 thread",
        "python_call_s": python_call,
        "input_copied": copied == ["x"],
        "python_call_in_place_s": in_place,
        "executor_s": executor,
        "tune_bench_s": tune_bench,
        "overhead_s": python_call - executor,
        "ratio": python_call / executor,
    }
    print(f"art(x=...) from Python: {python_call * 1e6:.2f} us a call "
          f"({'copied' if copied else 'read in place'})")
    print(f"art(x=kiln.empty(...)) from Python: {in_place * 1e6:.2f} us a call (read in place)")
    print(f"executor from C++ (same process): {executor * 1e6:.2f} us a run")
    if tune_bench is not None:
        print(f"tune bench: {tune_bench * 1e6:.2f} us a run")
    print(f"overhead: {(python_call - executor) * 1e6:.2f} us a call ({python_call / executor:.2f}x)")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
