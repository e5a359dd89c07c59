"""Kiln beside TVM: a kernel written with TVM's tensor expressions is tuned by Kiln, the best
schedule is handed back to TVM as its own Schedule, TVM builds it, and the result is checked
against numpy; then Kiln's records are exported as TVM's JSONDatabase and read by
MetaSchedule. Without TVM it says so and exits 0.

    PYTHONPATH=build/python python examples/python/tvm_interop.py --trials 16

(TVM from PyPI: pip install apache-tvm; the TVM 0.24+ namespaces are used, tvm.s_tir.)"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import kiln


def matmul_relu(n):
    """TVM's IRModule of relu(A @ B) for n x n float32 matrices, from tensor expressions."""
    import tvm
    from tvm import te

    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    d = te.compute((n, n), lambda i, j: te.max(c[i, j], tvm.tirx.const(0, "float32")), name="D")
    return tvm.IRModule({"main": te.create_prim_func([a, b, d])})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--n", type=int, default=128)
    args = parser.parse_args()
    try:
        import tvm
        from tvm.s_tir import meta_schedule as ms
    except ImportError as e:
        print(f"skipped: TVM 0.24 or later is not installed ({e}); pip install apache-tvm")
        return

    from kiln import tvm_interop

    tvm_mod = matmul_relu(args.n)
    # Kiln reads TVM's module through its TVMScript.
    task = kiln.extract_tasks(tvm_mod)[0]
    print(f"task {task.name}: {task.flops} FLOP, hash {task.hash}")
    with tempfile.TemporaryDirectory() as tmp:
        db = kiln.Database(os.path.join(tmp, "tuning.db"))
        result = kiln.tune(tvm_mod, trials=args.trials, database=db, min_repeat_ms=20)
        t = result["tasks"][0]
        print(f"tuned: {t['trials']} trials, best {t['best_latency_s'] * 1e6:.2f} us, "
              f"untuned {t['untuned_latency_s'] * 1e6:.2f} us")

        # The best record as TVM's Schedule of TVM's own module, built by TVM.
        record = db.best(task, k=1)[0]
        sch = tvm_interop.schedule(record, tvm_mod)
        lib = tvm.compile(sch.mod, target="llvm")
        rng = np.random.default_rng(0)
        a = rng.standard_normal((args.n, args.n)).astype(np.float32)
        b = rng.standard_normal((args.n, args.n)).astype(np.float32)
        device = tvm.cpu()
        out = tvm.runtime.tensor(np.zeros((args.n, args.n), np.float32), device)
        lib(tvm.runtime.tensor(a, device), tvm.runtime.tensor(b, device), out)
        np.testing.assert_allclose(out.numpy(), np.maximum(a @ b, 0), rtol=1e-4, atol=1e-3)
        print("TVM's build of Kiln's schedule matches numpy")
        args_tvm = (tvm.runtime.tensor(a, device), tvm.runtime.tensor(b, device), out)
        runs = []
        for _ in range(5):  # the median of 5 repeats of 50 calls (the call's overhead included)
            start = time.perf_counter()
            for _ in range(50):
                lib(*args_tvm)
            runs.append((time.perf_counter() - start) / 50)
        print(f"TVM's build: {statistics.median(runs) * 1e6:.2f} us a call from Python "
              f"(Kiln measured the kernel at {t['best_latency_s'] * 1e6:.2f} us)")

        # Kiln's records as TVM's JSONDatabase, which MetaSchedule loads.
        exported = db.export_tvm(os.path.join(tmp, "tvm_db"))
        tvm_db = ms.database.JSONDatabase(work_dir=os.path.join(tmp, "tvm_db"))
        print(f"exported {exported['records']} records; TVM's JSONDatabase holds "
              f"{len(tvm_db)} of them")


if __name__ == "__main__":
    main()
