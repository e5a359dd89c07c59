"""Makes tests/data/tvm_db/: a MetaSchedule tuning database written by TVM itself, the test data
of Kiln's import and export of TVM's JSON database (`tune db import` / `tune db export`).

CI never installs TVM: the outputs are committed. Written here, with apache-tvm 0.27:

  database_workload.json         ms.database.JSONDatabase's two files after a few trials of
  database_tuning_record.json    ms.tune_tir on a 64x64x64 matmul, a fused dense + bias + ReLU
                                 and a small conv2d (NCHW, 3x3, padding 1) on this CPU.
  workload_<w>.tir               line w of database_workload.json printed by TVM as TVMScript,
                                 so that a test checks that the workload Kiln reads from TVM's
                                 JSON object graph equals Kiln's parse of TVM's own text.
  graphs/<name>.json, .tir       small functions that use what the tuned workloads do not
                                 (thread bindings, if / else, lets, casts, calls, symbolic
                                 shapes, scalar parameters, annotations, local buffers) as
                                 tvm.ir.save_json writes their module, and as TVM prints them.
  manifest.json                  per workload line: TVM's structural hash (recomputed here and
                                 checked against the file's), its name and its .tir file; per
                                 record line: its workload line, run_secs and target; and TVM's
                                 version.

Set-up and run (outside the repository's .venv; see tests/data/tvm/make_tvm_corpus.py):
    /work/tvm-venv/bin/python tests/data/tvm_db/make_tvm_db.py            # tune and describe
    /work/tvm-venv/bin/python tests/data/tvm_db/make_tvm_db.py --describe # describe only
    /tmp/tvm025/bin/python tests/data/tvm_db/make_tvm_db.py --graphs-only
        # with apache-tvm 0.25.0.post1 and apache-tvm-ffi 0.1.12: graphs/tvm-0.25.0.post1/,
        # with a small JSONDatabase of hand-written schedules in its database/

The database files come from real measurements, so a new run gives other records and run
times; the tests read whatever the manifest says.
"""

import argparse
import json
import os
import shutil
import tempfile

import tvm
from tvm import te, tirx, topi

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD_FILE = os.path.join(HERE, "database_workload.json")
RECORD_FILE = os.path.join(HERE, "database_tuning_record.json")


def workloads():
    """(name, PrimFunc): small enough that a handful of trials builds and runs in seconds."""
    a = te.placeholder((64, 64), name="A")
    b = te.placeholder((64, 64), name="B")
    k = te.reduce_axis((0, 64), name="k")
    c = te.compute((64, 64), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    yield "matmul_64", te.create_prim_func([a, b, c])

    x = te.placeholder((16, 32), name="X")
    w = te.placeholder((48, 32), name="W")
    bias = te.placeholder((48,), name="bias")
    k = te.reduce_axis((0, 32), name="k")
    d = te.compute((16, 48), lambda i, j: te.sum(x[i, k] * w[j, k], axis=k), name="dense")
    e = te.compute((16, 48), lambda i, j: d[i, j] + bias[j], name="bias_add")
    r = te.compute((16, 48), lambda i, j: te.max(e[i, j], tirx.const(0, "float32")), name="relu")
    yield "dense_bias_relu", te.create_prim_func([x, w, bias, r])

    data = te.placeholder((1, 4, 10, 10), name="data")
    kernel = te.placeholder((8, 4, 3, 3), name="kernel")
    out = topi.nn.conv2d_nchw(data, kernel, stride=1, padding=1, dilation=1)
    yield "conv2d_nchw", te.create_prim_func([data, kernel, out])


FEATURES = {
    "features": """
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), n: T.int32):
    T.func_attr({"tirx.noalias": True})
    C = T.sblock_alloc_buffer((16, 16), scope="local")
    for i in T.thread_binding(16, thread="blockIdx.x"):
        for j in T.vectorized(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, j)
                T.where(i < n)
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                T.sblock_attr({"x": 1, "y": 0.5, "z": "s"})
                if vi != 3 and not (vj >= 2):
                    C[vi, vj] = T.Cast("float32", vi % 3) + A[vi, vj]
                else:
                    C[vi, vj] = T.exp(T.Cast("float32", T.truncmod(vi, 3)))
    for i in T.unroll(16, annotations={"pragma_auto_unroll_max_step": 16}):
        for j in T.parallel(16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.if_then_else(vi > 0, C[vi, vj], T.float32(1)) - T.min(C[vi, vj], T.float32(2)) / T.float32(3)
""",
    "symbolic": """
n = T.int64()
@T.prim_func(private=True, s_tir=True)
def main(x: T.Buffer((n, T.int64(16)), "float32"), y: T.Buffer((T.int64(16),), "float16"), z: T.Buffer((n, T.int64(16)), "float32")):
    T.func_attr({"tirx.noalias": True})
    for ax0, ax1 in T.grid(n, T.int64(16)):
        with T.sblock("add"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(x[v_ax0, v_ax1], y[v_ax1])
            T.writes(z[v_ax0, v_ax1])
            z[v_ax0, v_ax1] = x[v_ax0, v_ax1] + T.Cast("float32", y[v_ax1])
""",
    "argmax": """
@T.prim_func(s_tir=True)
def main(x: T.Buffer((4, 8), "float32"), idx: T.Buffer((4,), "int32")):
    v0 = T.sblock_alloc_buffer((4,), "int32")
    v1 = T.sblock_alloc_buffer((4,))
    for i, k in T.grid(4, 8):
        with T.sblock("red"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(x[vi, vk])
            T.writes(v0[vi], v1[vi])
            with T.init():
                v0[vi] = -1
                v1[vi] = T.float32(-3.0e38)
            a: T.let[T.int32] = T.Select(v1[vi] >= x[vi, vk], v0[vi], vk)
            b: T.let[T.float32] = T.max(v1[vi], x[vi, vk])
            v0[vi] = a
            v1[vi] = b
    for i in range(4):
        with T.sblock("out"):
            vi = T.axis.spatial(4, i)
            idx[vi] = v0[vi]
""",
}


def write_graphs():
    from tvm.script import from_source

    # Another TVM's graphs go beside, in graphs/tvm-<version>/ (TVM 0.24 to 0.26 write
    # TensorIR in another shape: "tirx.Var", "tirx.Buffer", inline dtypes).
    out = os.path.join(HERE, "graphs")
    if tvm.__version__ != "0.27.0.post1":
        out = os.path.join(out, "tvm-" + tvm.__version__)
    for entry in os.listdir(out) if os.path.isdir(out) else []:
        if entry.endswith(".json") or entry.endswith(".tir"):
            os.remove(os.path.join(out, entry))
    os.makedirs(out, exist_ok=True)
    for name, body in FEATURES.items():
        func = from_source("# from tvm.script import tirx as T\n" + body)
        mod = tvm.IRModule({"main": func})
        with open(os.path.join(out, name + ".json"), "w") as f:
            f.write(tvm.ir.save_json(mod) + "\n")
        with open(os.path.join(out, name + ".tir"), "w") as f:
            f.write(func.script())


def write_small_database(out):
    """A JSONDatabase of two hand-written schedules of a 16x16 matmul, with fixed run times:
    written by whichever TVM runs this (with another one than 0.27, the shape of its files)."""
    from tvm.s_tir import meta_schedule as ms
    from tvm.target import Target

    out = os.path.join(out, "database")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    a = te.placeholder((16, 16), name="A")
    b = te.placeholder((16, 16), name="B")
    k = te.reduce_axis((0, 16), name="k")
    c = te.compute((16, 16), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    func = te.create_prim_func([a, b, c])
    mod = tvm.IRModule({"main": func})
    database = ms.database.JSONDatabase(
        path_workload=os.path.join(out, "database_workload.json"),
        path_tuning_record=os.path.join(out, "database_tuning_record.json"))
    workload = database.commit_workload(mod)
    target = Target({"kind": "llvm", "num-cores": 2})
    for n, factors in enumerate([[4, 4], [2, 8]]):
        sch = tvm.s_tir.Schedule(mod)
        block = sch.get_sblock("C")
        i, j, kk = sch.get_loops(block)
        tile = sch.sample_perfect_tile(j, n=2, max_innermost_factor=16, decision=factors)
        j0, j1 = sch.split(j, tile)
        sch.reorder(i, j0, kk, j1)
        sch.parallel(i)
        sch.vectorize(j1)
        database.commit_tuning_record(ms.database.TuningRecord(
            sch.trace, workload, [1.0e-6 * (n + 1)], target,
            ms.arg_info.ArgInfo.from_prim_func(func)))
    with open(os.path.join(out, "workload_0.tir"), "w") as f:
        f.write(func.script())


def tune(trials):
    from tvm.s_tir import meta_schedule as ms
    from tvm.target import Target

    target = Target({"kind": "llvm", "num-cores": 2})
    with tempfile.TemporaryDirectory() as work_dir:
        for name, func in workloads():
            ms.tune_tir(mod=func, target=target, work_dir=work_dir, max_trials_global=trials,
                        num_trials_per_iter=trials, seed=11, num_tuning_cores=1,
                        cost_model="random",
                        builder=ms.builder.LocalBuilder(max_workers=1, timeout_sec=600),
                        runner=ms.runner.LocalRunner(timeout_sec=120))
            print(f"tuned {name}", flush=True)
        shutil.copy(os.path.join(work_dir, "database_workload.json"), WORKLOAD_FILE)
        shutil.copy(os.path.join(work_dir, "database_tuning_record.json"), RECORD_FILE)


def describe():
    import tvm_ffi

    names = {}
    for name, func in workloads():
        mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
        names[str(tvm_ffi.structural_hash(mod))] = name
    for entry in os.listdir(HERE):
        if entry.endswith(".tir"):
            os.remove(os.path.join(HERE, entry))
    manifest = {"tvm_version": tvm.__version__, "workloads": [], "records": []}
    database = tvm.s_tir.meta_schedule.database.JSONDatabase(
        path_workload=WORKLOAD_FILE, path_tuning_record=RECORD_FILE)
    modules = {str(tvm_ffi.structural_hash(rec.workload.mod)): rec.workload.mod
               for rec in database.get_all_tuning_records()}
    for w, line in enumerate(open(WORKLOAD_FILE).read().splitlines()):
        shash, _ = json.loads(line)
        mod = modules.get(shash)
        assert mod is not None, f"workload line {w} (hash {shash}) has no record"
        script = f"workload_{w}.tir"
        with open(os.path.join(HERE, script), "w") as f:
            f.write(mod["main"].script())
        manifest["workloads"].append(
            {"line": w, "hash": shash, "name": names.get(shash, f"workload_{w}"), "script": script})
    for i, line in enumerate(open(RECORD_FILE).read().splitlines()):
        w, (_trace, run_secs, target, _args) = json.loads(line)
        manifest["records"].append({"line": i, "workload": w, "run_secs": run_secs,
                                    "target": target})
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"{len(manifest['workloads'])} workloads, {len(manifest['records'])} records")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--describe", action="store_true", help="do not tune, describe only")
    parser.add_argument("--trials", type=int, default=5, help="trials per workload")
    parser.add_argument("--graphs-only", action="store_true",
                        help="write graphs/ only (with another TVM: graphs/tvm-<version>/)")
    args = parser.parse_args()
    if args.graphs_only:
        write_graphs()
        if tvm.__version__ != "0.27.0.post1":
            write_small_database(os.path.join(HERE, "graphs", "tvm-" + tvm.__version__))
        return
    if not args.describe:
        tune(args.trials)
    write_graphs()
    describe()


if __name__ == "__main__":
    main()
