"""kiln.tvm_interop: without TVM it imports nothing and says what is missing; with TVM (where
apache-tvm is installed; CI does not install it) a tuned record becomes TVM's own Schedule,
which TVM builds and runs to numpy's answer."""

import subprocess
import sys

import numpy as np
import pytest

import kiln
from kiln import tvm_interop
from conftest import MATMUL_TIR


def test_importing_kiln_does_not_import_tvm():
    code = "import sys, kiln; kiln.tvm_interop; print('tvm' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_without_tvm_a_call_says_tvm_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "tvm", None)  # as if TVM were not installed
    with pytest.raises(kiln.UnsupportedError, match="TVM is not installed"):
        tvm_interop.schedule([[], []], "func")
    with pytest.raises(kiln.UnsupportedError, match="TVM is not installed"):
        tvm_interop.to_tvm(kiln.load_model(str(MATMUL_TIR)))


def test_design_space_part_stops_at_enter_postproc():
    insts = [["GetSBlock", [], ["C", "main"], ["b0"]],
             ["SampleCategorical", [], [[0, 16], [0.5, 0.5]], ["v1"]],
             ["EnterPostproc", [], [], []],
             ["SampleCategorical", [], [[0, 16], [0.5, 0.5]], ["v2"]]]
    decisions = [[1, 0], [3, 1]]
    assert tvm_interop.design_space_part([insts, decisions]) == [insts[:2], [[1, 0]]]
    # A trace without the mark is all design space.
    assert tvm_interop.design_space_part([insts[:2], [[1, 0]]]) == [insts[:2], [[1, 0]]]


def test_bad_arguments_are_refused_before_tvm_is_needed(monkeypatch):
    monkeypatch.setitem(sys.modules, "tvm", None)
    with pytest.raises(kiln.UnsupportedError, match="postproc"):
        tvm_interop.schedule([[], []], None, postproc="mine")


@pytest.fixture(scope="module")
def tvm_tuned(tmp_path_factory):
    tvm = pytest.importorskip("tvm", reason="skipped: TVM is not installed (pip install apache-tvm)")
    from tvm import te

    n = 64
    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    mod = tvm.IRModule({"main": te.create_prim_func([a, b, c])})
    db = kiln.Database(str(tmp_path_factory.mktemp("tvm") / "tuning.db"))
    kiln.tune(mod, trials=8, database=db, trials_per_round=8, population=64, min_repeat_ms=5)
    task = kiln.extract_tasks(mod)[0]
    return tvm, mod, task, db.best(task, k=1)[0]


def run_in_tvm(tvm, sch, n=64):
    lib = tvm.compile(sch.mod, target="llvm")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    out = tvm.runtime.tensor(np.zeros((n, n), np.float32))
    lib(tvm.runtime.tensor(a), tvm.runtime.tensor(b), out)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-4, atol=1e-3)


def test_a_record_becomes_tvms_schedule_of_tvms_module(tvm_tuned):
    tvm, mod, task, record = tvm_tuned
    assert task.hash == kiln.extract_tasks(kiln.parse(mod))[0].hash
    sch = tvm_interop.schedule(record, mod, postproc="tvm")
    assert sch.mod.script() != mod.script(), "nothing was scheduled"
    run_in_tvm(tvm, sch)
    # The same from the kiln.Task, and from the trace alone.
    run_in_tvm(tvm, tvm_interop.schedule(record["trace"], task, postproc="tvm"))


def test_auto_replays_whole_or_falls_back_with_a_warning(tvm_tuned):
    tvm, mod, _, record = tvm_tuned
    try:
        sch = tvm_interop.schedule(record, mod, postproc="kiln")
    except Exception:  # TVM refused a step of Kiln's postprocessing
        with pytest.warns(UserWarning, match="design-space part"):
            sch = tvm_interop.schedule(record, mod)
    run_in_tvm(tvm, sch)
