"""bench_real_models: Kiln on the real-model corpus (models.json), against ONNX Runtime in the
same run. For each model fetched into --models (fetch_models.py):

  1. compile: `tune compile MODEL.onnx` (no flags: the symbolic fallback, every kernel
     untuned; correct at every shape the model admits);
  2. tuned (with --trials N > 0): `tune run MODEL.onnx --bucket D=V ...` at the middle shape
     (with --bucket-every-shape, a bucket per shape) with N trials into a fresh database, then
     `tune compile --bucket D=V ...` with it: the buckets tuned beside the symbolic fallback;
  3. for each shape k (the k-th value of every dim in models.json, three per dim): seeded
     inputs filled as models.json says, ONNX Runtime's outputs, `tune infer` on each artifact
     and every output compared (rtol 1e-3, atol 1e-4, or the model's own stated need; an
     int8 QDQ model against ONNX Runtime's unoptimized graph, models.json says why);
  4. timing at 1 and 2 threads: `tune bench --input ...` on the same inputs against ONNX
     Runtime's session (all graph optimizations, intra-op threads set) timed the same way
     (warm-up, repeats of enough runs to last --min-repeat-ms, the median; the untuned
     fallback, often hundreds of times slower, one run). The figure is the ratio kiln / ort
     (below 1: Kiln is faster); absolute times on a shared machine are noise.

Prints a table and, with --json, one JSON object on the last line:
  {"models": [{"name", "compile_s", "error" (the import or compile refused it), "shapes":
   [{"dims", "ort_s": {"1": ..}, "artifacts": {"untuned" | "tuned": {"correct",
   "max_abs_error", "graph", "kiln_s": {"1": ..}, "ratio": {"1": ..}}}}]}], "correct", ...}
Exit code 0 when every fetched model compiled and every shape matched ONNX Runtime, or the
model is refused as models.json expects ("expected_failure"). The test suite runs it at the
first shape without timing (`--shapes 0 --no-timing`).

    .venv/bin/python bench/real_models/bench_real_models.py --tune build/cli/tune \\
        [--models build/real_models] [--only NAME,...] [--trials 0] [--threads 1,2] [--json]
"""
import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_test_data import (DEFAULT_ATOL, DEFAULT_RTOL, fill, input_shape,  # noqa: E402
                            reference_session)


def run_tune(tune, args, timeout=3600):
    """Runs `tune ARGS --json`; (ok, last JSON object or None, output tail)."""
    done = subprocess.run([str(tune)] + args + ["--json"], capture_output=True, text=True,
                          timeout=timeout)
    last = None
    for line in reversed(done.stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                last = json.loads(line)
            except json.JSONDecodeError:
                pass
            break
    tail = (done.stdout + done.stderr).strip()[-600:]
    return done.returncode == 0, last, tail


def first_error(tail):
    for line in tail.splitlines():
        if "tune:" in line or "error" in line.lower():
            return line.strip()[:400]
    return tail.splitlines()[-1][:400] if tail else "failed"


def shape_count(model):
    counts = {len(v) for v in model["dims"].values()}
    return min(counts) if counts else 1


def make_inputs(model, k):
    seed = sum(ord(c) for c in model["name"]) * 10 + k
    rng = np.random.default_rng(seed)
    return {s["name"]: fill(s, input_shape(s, model["dims"], k), rng) for s in model["inputs"]}


def ort_session(path, threads):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def time_ort(session, feeds, repeat, warmup, min_repeat_ms):
    """The median seconds per run, as `tune bench` times (runtime/timing.h)."""
    for _ in range(warmup):
        session.run(None, feeds)
    runs = 1
    while True:  # runs per repeat grown until a repeat lasts min_repeat_ms
        start = time.perf_counter()
        for _ in range(runs):
            session.run(None, feeds)
        elapsed = time.perf_counter() - start
        if elapsed * 1e3 >= min_repeat_ms or runs >= 1 << 20:
            break
        runs *= 2
    samples = [elapsed / runs]
    for _ in range(repeat - 1):
        start = time.perf_counter()
        for _ in range(runs):
            session.run(None, feeds)
        samples.append((time.perf_counter() - start) / runs)
    return statistics.median(samples)


def compare(expected, actual, rtol, atol):
    if expected.shape != actual.shape:
        return False, f"shape {list(actual.shape)}, expected {list(expected.shape)}", None
    if expected.dtype.kind in "iub":
        bad = int(np.count_nonzero(expected != actual))
        return bad == 0, f"{bad} elements differ" if bad else "", 0.0
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    err = np.abs(a - e)
    worst = float(err.max()) if err.size else 0.0
    ok = bool(np.all(err <= atol + rtol * np.abs(e))) and not np.isnan(a).any()
    return ok, "" if ok else f"max abs error {worst:.3g}", worst


def bench_shape(tune, model, source, artifacts, k, work, args):
    feeds = make_inputs(model, k)
    dims = {d: v[k] for d, v in model["dims"].items()}
    row = {"dims": dims, "artifacts": {}}
    folder = work / f"k{k}"
    folder.mkdir(exist_ok=True)
    input_flags = []
    for name, array in feeds.items():
        path = folder / f"{name}.npy"
        np.save(path, array)
        input_flags += ["--input", f"{name}={path}"]
    try:
        expected = reference_session(model, source, 2).run(None, feeds)
    except Exception as e:  # noqa: BLE001: ONNX Runtime's own refusal is reported, not raised
        row["error"] = f"ONNX Runtime: {e}"[:400]
        return row
    rtol = model.get("rtol", DEFAULT_RTOL)
    atol = model.get("atol", DEFAULT_ATOL)
    sessions = {t: ort_session(source, t) for t in args.threads}
    ort_s = {str(t): time_ort(sessions[t], feeds, args.repeat, 1, args.min_repeat_ms)
             for t in args.threads} if args.timing else {}
    row["ort_s"] = ort_s
    for label, artifact in artifacts.items():
        out = {"correct": False}
        row["artifacts"][label] = out
        ok, result, tail = run_tune(tune, ["infer", str(artifact)] + input_flags +
                                    ["--output", str(folder / f"out_{label}")])
        if not ok or result is None:
            out["error"] = first_error(tail)
            continue
        problems = []
        worst = 0.0
        for i, (want, got) in enumerate(zip(expected, result["outputs"])):
            good, why, err = compare(np.asarray(want), np.load(got["path"]), rtol, atol)
            worst = max(worst, err or 0.0)
            if not good:
                problems.append(f"output {i}: {why}")
        if len(result["outputs"]) != len(expected):
            problems.append(f"{len(result['outputs'])} outputs, expected {len(expected)}")
        out["correct"] = not problems
        out["max_abs_error"] = worst
        if problems:
            out["error"] = "; ".join(problems)[:400]
        out["kiln_s"] = {}
        out["ratio"] = {}
        # The untuned fallback is often hundreds of times ONNX Runtime's time: one run tells.
        timing = (["--repeat", "1", "--warmup", "0", "--min-repeat-ms", "0"]
                  if label == "untuned" else
                  ["--repeat", str(args.repeat), "--warmup", "1", "--min-repeat-ms",
                   str(args.min_repeat_ms)])
        for t in (args.threads if args.timing else []):
            ok, timed, tail = run_tune(tune, ["bench", str(artifact), "--threads", str(t)] +
                                       timing + input_flags)
            if not ok or timed is None:
                out["error"] = first_error(tail)
                break
            out["graph"] = timed.get("graph")
            out["kiln_s"][str(t)] = timed["median_s"]
            out["ratio"][str(t)] = timed["median_s"] / ort_s[str(t)]
    return row


def bucket_flags(model, k, every_shape):
    """--bucket flags: shape k's value of each dim, or (every_shape) all of each dim's values."""
    flags = []
    for d, values in model["dims"].items():
        chosen = sorted(set(values)) if every_shape else [values[k]]
        flags += ["--bucket", f"{d}={','.join(map(str, chosen))}"]
    return flags


def bench_model(tune, model, args, work):
    source = (args.models / (model["name"] + ".onnx")).resolve()
    entry = {"name": model["name"], "kind": model["kind"], "package": model["package"],
             "dims": model["dims"], "shapes": []}
    if not source.exists():
        entry["error"] = "not fetched (run fetch_models.py)"
        return entry
    artifacts = {}
    start = time.perf_counter()
    ok, result, tail = run_tune(tune, ["compile", str(source), "--no-db", "-o",
                                       str(work / "untuned.kiln")])
    entry["compile_s"] = time.perf_counter() - start
    if not ok:
        entry["error"] = first_error(tail)
        entry["error_detail"] = tail
        return entry
    artifacts["untuned"] = work / "untuned.kiln"
    middle = shape_count(model) // 2
    if args.trials > 0:
        db = work / "tuning.db"
        flags = bucket_flags(model, middle, args.bucket_every_shape)
        ok, tuned_run, tail = run_tune(tune, ["run", str(source), "--target", "llvm", "--trials",
                                              str(args.trials), "--db", str(db)] + flags)
        if ok and tuned_run is not None:
            entry["tuning_trials"] = tuned_run.get("total_trials")
            entry["tuning_wall_s"] = tuned_run.get("wall_s")
            ok, _, tail = run_tune(tune, ["compile", str(source), "--db", str(db), "-o",
                                          str(work / "tuned.kiln")] + flags)
        if ok:
            artifacts["tuned"] = work / "tuned.kiln"
        else:
            entry["tuned_error"] = first_error(tail)
    for k in range(shape_count(model)):
        if args.shapes is None or k in args.shapes:
            entry["shapes"].append(bench_shape(tune, model, source, artifacts, k, work, args))
    return entry


def summary_line(entry, threads):
    name = entry["name"]
    if "error" in entry:
        return f"{name:20s} FAILED: {entry['error']}"
    cells = []
    for row in entry["shapes"]:
        dims = ",".join(str(v) for v in row["dims"].values()) or "static"
        if "error" in row and not row["artifacts"]:
            cells.append(f"[{dims}] {row['error']}")
            continue
        parts = []
        for label, out in row["artifacts"].items():
            verdict = "ok" if out["correct"] else "WRONG"
            ratios = "/".join(f"{out['ratio'][str(t)]:.2f}" for t in threads
                              if str(t) in out.get("ratio", {}))
            parts.append(f"{label} {verdict} {ratios}".strip())
        cells.append(f"[{dims}] " + "; ".join(parts))
    return f"{name:20s} " + " | ".join(cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tune", required=True, type=Path, help="the tune binary")
    parser.add_argument("--models", type=Path, default=HERE.parents[1] / "build" / "real_models")
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--trials", type=int, default=0,
                        help="tune each model's middle shape with this many trials (0: untuned)")
    parser.add_argument("--bucket-every-shape", action="store_true",
                        help="tune and compile a bucket for every shape, not the middle one only")
    parser.add_argument("--fix", action="append", default=[], metavar="DIM=V",
                        help="run every shape at this value of DIM (e.g. batch_size=1)")
    parser.add_argument("--threads", default="1,2", help="thread counts to time at")
    parser.add_argument("--shapes", help="comma-separated shape indices (default: every one)")
    parser.add_argument("--no-timing", dest="timing", action="store_false",
                        help="check the outputs only (what the test suite runs)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--min-repeat-ms", type=float, default=50)
    parser.add_argument("--keep", type=Path, help="keep the artifacts and inputs here")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args()
    args.threads = [int(t) for t in args.threads.split(",") if t]
    args.shapes = None if args.shapes is None else {int(k) for k in args.shapes.split(",") if k}
    corpus = json.loads((HERE / "models.json").read_text())["models"]
    for fixed in args.fix:
        dim, _, value = fixed.partition("=")
        for model in corpus:
            if dim in model["dims"]:
                count = max(len(v) for v in model["dims"].values())
                model["dims"][dim] = [int(value)] * count
    only = {n for n in args.only.split(",") if n}
    unknown = only - {m["name"] for m in corpus}
    if unknown:
        sys.exit(f"--only names models not in models.json: {', '.join(sorted(unknown))}")
    root = args.keep or Path(tempfile.mkdtemp(prefix="kiln-real-models-"))
    entries = []
    try:
        for model in corpus:
            if only and model["name"] not in only:
                continue
            work = root / model["name"]
            work.mkdir(parents=True, exist_ok=True)
            entry = bench_model(args.tune, model, args, work)
            entries.append(entry)
            print(summary_line(entry, args.threads), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    fetched = [e for e in entries if e.get("error") != "not fetched (run fetch_models.py)"]
    compiled = [e for e in fetched if "error" not in e]
    correct = [e for e in compiled
               if e["shapes"] and all(r["artifacts"] and
                                      all(o["correct"] for o in r["artifacts"].values())
                                      for r in e["shapes"])]
    # A model models.json says Kiln refuses ("expected_failure": a phrase of the error) is as
    # expected when it is refused with that phrase; one that then compiles is news, not a pass.
    expected = {m["name"]: m["expected_failure"] for m in corpus if "expected_failure" in m}
    as_expected = [e for e in fetched
                   if e["name"] in expected and expected[e["name"]] in e.get("error_detail", "")]
    surprises = [e["name"] for e in fetched if e not in correct and e not in as_expected]
    surprises += [e["name"] for e in correct if e["name"] in expected]
    print(f"compiled {len(compiled)} of {len(fetched)}; correct at every shape "
          f"{len(correct)} of {len(fetched)}; refused as models.json expects {len(as_expected)}" +
          (f"; not as expected: {', '.join(surprises)}" if surprises else "") +
          (f" (ratio columns: kiln / ort at {'/'.join(str(t) for t in args.threads)} threads)"
           if args.timing else ""))
    if args.json:
        print(json.dumps({"models": entries, "fetched": len(fetched), "compiled": len(compiled),
                          "correct": len(correct), "refused_as_expected": len(as_expected),
                          "not_as_expected": surprises, "threads": args.threads,
                          "trials": args.trials, "onnxruntime": ort.__version__}))
    return 0 if fetched and not surprises else 1


if __name__ == "__main__":
    sys.exit(main())
