"""bench_buckets: tuning a model over shape buckets against tuning each bucket alone, in one run.

On the bundled transformer block (symbolic seq_len; buckets 16, 32, 64, 128, 256 by default):

  1. each bucket tuned alone: `tune run --bucket seq_len=V --trials T` into its own database;
  2. all buckets tuned in one job: `tune run --bucket seq_len=16,32,... --trials J`, where J is
     by default T for the median bucket and T x --family-share (0.15, the tuner's default,
     search/task_scheduler/family_plan.h) for each other, 1.6 x T for five buckets: tasks
     shared by buckets are tuned once; of an operator at several lengths the median length is
     tuned first with a whole budget, and each other length starts from its tuned neighbour's
     best traces carried to its shape; one cost model serves them all;
  3. compiled: untuned (no database), each alone-tuned bucket, and the jointly tuned model (every
     bucket's graph beside the symbolic fallback); `tune bench` times each at each bucket's
     length and at an off-bucket length that only the fallback serves.

Kernels only (`--library never`), so that the tuning is what is compared. Prints per bucket
untuned / tuned (the speedup of each tuning), joint / alone (1.0: the same result), the wall
time of the joint job over the sum of the alone ones, the fallback's time at the off-bucket
length against the nearest tuned bucket, and what choosing the graph costs a call. With
--json, one JSON object on the last line. Absolute times on a shared machine are noise; the
ratios are the figures.

    .venv/bin/python bench/bench_buckets.py --tune build/cli/tune [--trials 220] [--json]

--keep DIR --reuse-alone takes the alone tunings from an earlier run's DIR (they are the same
for the same arguments and seed) and runs the rest.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODEL = HERE.parent / "examples" / "models" / "transformer_block" / "model.onnx"


def tune(binary, args, timeout=7200):
    done = subprocess.run([str(binary)] + args + ["--json"], capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"tune {' '.join(args)} failed ({done.returncode}):\n"
                 f"{(done.stdout + done.stderr)[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fresh_db(path):
    """No records of an earlier run: a stored record seeds the search."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return path


def bench(binary, artifact, dim, value, args):
    return tune(binary, ["bench", str(artifact), "--dim", f"{dim}={value}", "--repeat",
                         str(args.repeat), "--min-repeat-ms", str(args.min_repeat_ms)]
                + (["--threads", str(args.threads)] if args.threads else []))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tune", required=True, type=Path, help="the tune binary")
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--dim", default="seq_len")
    parser.add_argument("--buckets", default="16,32,64,128,256")
    parser.add_argument("--off-bucket", type=int, default=100,
                        help="a length between buckets: the fallback serves it")
    parser.add_argument("--trials", type=int, default=220, help="trials of each bucket alone")
    parser.add_argument("--joint-trials", type=int, default=0,
                        help="trials of the joint job (default: --trials for one bucket and "
                             "--family-share of it for each other)")
    parser.add_argument("--family-share", type=float, default=0.15,
                        help="tune run --family-share of the joint job (and its default trials)")
    parser.add_argument("--threads", type=int, default=0, help="kernel threads (0: every core)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--min-repeat-ms", type=float, default=100)
    parser.add_argument("--keep", type=Path, help="keep databases and artifacts here")
    parser.add_argument("--reuse-alone", action="store_true",
                        help="take the alone tunings from --keep's earlier run where they are")
    parser.add_argument("--json", action="store_true", help="one JSON object on the last line")
    args = parser.parse_args()
    buckets = [int(v) for v in args.buckets.split(",")]
    if args.reuse_alone and args.keep is None:
        sys.exit("--reuse-alone needs --keep: the folder of the earlier run")
    joint_trials = args.joint_trials or round(
        args.trials * (1 + (len(buckets) - 1) * args.family_share))
    work = args.keep or Path(tempfile.mkdtemp(prefix="kiln-buckets-"))
    work.mkdir(parents=True, exist_ok=True)
    spec = f"{args.dim}={','.join(map(str, buckets))}"
    common = ["--target", "llvm", "--seed", "1"]
    try:
        alone = {}
        for b in buckets:
            db = work / f"alone_{b}.db"
            saved = work / f"alone_{b}.json"
            reused = args.reuse_alone and saved.exists() and db.exists()
            if reused:
                alone[b] = json.loads(saved.read_text())
                reused = alone[b].get("trials_asked") == args.trials
            if not reused:
                fresh_db(db)
                run = tune(args.tune, ["run", str(args.model), "--bucket", f"{args.dim}={b}",
                                       "--trials", str(args.trials), "--db", str(db)] + common)
                alone[b] = {"wall_s": run["wall_s"], "trials": run["total_trials"],
                            "tasks": len(run["tasks"]), "trials_asked": args.trials}
                saved.write_text(json.dumps(alone[b]))
            # Compiled each time (seconds): the artifact follows the compiler, the tuning is kept.
            tune(args.tune, ["compile", str(args.model), "--bucket", f"{args.dim}={b}", "--db",
                             str(db), "--library", "never", "-o", str(work / f"alone_{b}.kiln")])
            print(f"alone {args.dim}={b}: {alone[b]['trials']} trials, {alone[b]['tasks']} "
                  f"tasks, {alone[b]['wall_s']:.0f} s{' (reused)' if reused else ''}", flush=True)
        db = work / "joint.db"
        fresh_db(db)
        joint = tune(args.tune, ["run", str(args.model), "--bucket", spec, "--trials",
                                 str(joint_trials), "--db", str(db), "--family-share",
                                 str(args.family_share)] + common)
        hinted = sum(t.get("hinted", 0) for t in joint["tasks"])
        print(f"joint {spec}: {joint['total_trials']} trials, {len(joint['tasks'])} distinct "
              f"tasks, {joint['wall_s']:.0f} s, {hinted} neighbour traces carried", flush=True)
        tune(args.tune, ["compile", str(args.model), "--bucket", spec, "--db", str(db),
                         "--library", "never", "-o", str(work / "joint.kiln")])
        tune(args.tune, ["compile", str(args.model), "--bucket", spec, "--no-db", "--library",
                         "never", "-o", str(work / "untuned.kiln")])

        rows = []
        for b in buckets:
            untuned = bench(args.tune, work / "untuned.kiln", args.dim, b, args)
            one = bench(args.tune, work / f"alone_{b}.kiln", args.dim, b, args)
            both = bench(args.tune, work / "joint.kiln", args.dim, b, args)
            row = {"bucket": b, "untuned_s": untuned["median_s"], "alone_s": one["median_s"],
                   "joint_s": both["median_s"], "graph": both["graph"],
                   "untuned_over_joint": untuned["median_s"] / both["median_s"],
                   "untuned_over_alone": untuned["median_s"] / one["median_s"],
                   "joint_over_alone": both["median_s"] / one["median_s"],
                   "dispatch_s": both["dispatch_s"]}
            rows.append(row)
            print(f"{args.dim}={b:5d}  untuned/joint {row['untuned_over_joint']:6.2f}x  "
                  f"untuned/alone {row['untuned_over_alone']:6.2f}x  joint/alone "
                  f"{row['joint_over_alone']:5.2f}  ({both['graph']})", flush=True)
        off = bench(args.tune, work / "joint.kiln", args.dim, args.off_bucket, args)
        nearest = min(buckets, key=lambda b: abs(b - args.off_bucket))
        nearest_row = next(r for r in rows if r["bucket"] == nearest)
        alone_wall = sum(a["wall_s"] for a in alone.values())
        result = {
            "model": str(args.model), "dim": args.dim, "buckets": rows,
            "alone": alone, "alone_wall_s": alone_wall, "joint_wall_s": joint["wall_s"],
            "joint_trials": joint["total_trials"], "joint_tasks": len(joint["tasks"]),
            "joint_over_alone_wall": joint["wall_s"] / alone_wall,
            "hinted": hinted,
            "off_bucket": {"value": args.off_bucket, "graph": off["graph"],
                           "fallback_s": off["median_s"], "nearest_bucket": nearest,
                           "fallback_over_nearest_tuned": off["median_s"] / nearest_row["joint_s"]},
            "dispatch_s": max(r["dispatch_s"] for r in rows),
            "every_bucket_faster_than_untuned": all(r["untuned_over_joint"] > 1 for r in rows),
        }
        print(f"joint job wall / sum of alone walls: {result['joint_over_alone_wall']:.2f} "
              f"({joint['wall_s']:.0f} s / {alone_wall:.0f} s)")
        print(f"{args.dim}={args.off_bucket} ({off['graph']}): {off['median_s'] * 1e3:.3f} ms, "
              f"{result['off_bucket']['fallback_over_nearest_tuned']:.2f}x the tuned "
              f"{args.dim}={nearest}")
        print(f"choosing the graph: {result['dispatch_s'] * 1e9:.0f} ns a call")
        if args.json:
            print(json.dumps(result))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
