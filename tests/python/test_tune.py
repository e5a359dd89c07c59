"""kiln.tune: the embedded coordinator and worker, options checked at the edge, Ctrl-C."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import kiln
from conftest import MATMUL_TIR


def test_tune_result(tuned, mlp):
    db, result, reports = tuned
    names = [t.name for t in kiln.extract_tasks(mlp, dims={"batch": 1})]
    assert [t["name"] for t in result["tasks"]] == names
    assert result["total_trials"] >= 6
    assert result["db"] == db.path and result["job"] >= 1 and result["finished"]
    assert any(t["best_latency_s"] for t in result["tasks"])
    assert reports and reports[-1]["finished"]
    assert db.jobs()[0]["state"] == "done"


def test_bad_options_name_the_option(mlp, tmp_path):
    db = str(tmp_path / "t.db")
    with pytest.raises(kiln.ParseError, match="strategy"):
        kiln.tune(mlp, trials=4, database=db, strategy="bogus")
    with pytest.raises(kiln.ParseError, match="trials: must be positive"):
        kiln.tune(mlp, trials=0, database=db)
    with pytest.raises(kiln.Error, match="target"):
        kiln.tune(mlp, target="no-such-target", trials=4, database=db)
    with pytest.raises(kiln.ParseError, match="progress"):
        kiln.tune(mlp, trials=4, database=db, progress="yes")


def test_symbolic_kernels_cannot_be_tuned(tmp_path):
    text = MATMUL_TIR.read_text()
    dynamic = kiln.parse((MATMUL_TIR.parent / "softmax_dynamic.tir").read_text())
    with pytest.raises(kiln.UnsupportedError, match="tuning needs static shapes"):
        kiln.tune(dynamic, trials=4, database=str(tmp_path / "t.db"))
    assert kiln.parse(text).format == "tir"


def test_ctrl_c_cancels_the_job_and_keeps_its_records(tmp_path):
    db_path = tmp_path / "t.db"
    script = textwrap.dedent(f"""
        import sys, kiln
        mod = kiln.parse(open({str(MATMUL_TIR)!r}).read())
        try:
            kiln.tune(mod, trials=2000, database={str(db_path)!r}, min_repeat_ms=5,
                      trials_per_round=4, population=32)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        sys.exit(0)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        # Poll the database until the job has stored a measurement, then interrupt it.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if db_path.exists() and kiln.Database(str(db_path)).count() > 0:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3, (out, err)
    assert "interrupted" in out
    assert "its measurements are stored in" in err
    db = kiln.Database(str(db_path))
    assert db.count() > 0
    history = db.history(limit=1)
    assert history and history[0]["job"] == 1
    (job,) = db.jobs()
    assert job["state"] == "cancelled" and job["error"] == "interrupted by SIGINT"
    assert 0 < job["trials_done"] < 2000


def test_tune_on_the_vulkan_device(tmp_path):
    # Lavapipe (deploy/install-deps.sh) is a real Vulkan device on the CPU: every candidate is
    # built to SPIR-V, run by the Vulkan runner and checked against the interpreter.
    db = kiln.Database(str(tmp_path / "tuning.db"))
    result = kiln.tune(kiln.load_model(str(MATMUL_TIR)), target="vulkan", trials=4, database=db,
                       trials_per_round=4, population=32, min_repeat_ms=5)
    task = result["tasks"][0]
    assert result["target"] == "vulkan" and task["trials"] >= 1, result
    assert task["best_latency_s"] is not None and task["best_latency_s"] > 0, task
    rows = db.list()
    assert rows and all(r["target"] == "vulkan" for r in rows), rows
