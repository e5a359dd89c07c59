"""kiln.extract_tasks, checked against `tune tasks --json` on the same model."""

import json
import subprocess

import pytest

import kiln
from conftest import GATED_MLP, MATMUL_TIR, MLP, TUNE


def test_tasks_of_a_symbolic_model(mlp):
    tasks = kiln.extract_tasks(mlp)
    assert [t.name for t in tasks] == ["fused_linear_relu", "fused_linear1_relu1", "linear2"]
    assert tasks[0].flops == "batch * 16640"
    assert tasks[0].weight == 1
    assert tasks[0].params[0] == "float32[batch, 64]"


@pytest.mark.skipif(not TUNE.exists(), reason="the tune command is not built")
def test_tasks_match_the_command_line(mlp):
    listed = json.loads(subprocess.run([str(TUNE), "tasks", str(MLP), "--dim", "batch=2", "--json"],
                                       check=True, capture_output=True, text=True).stdout.splitlines()[-1])
    tasks = kiln.extract_tasks(mlp, dims={"batch": 2})
    assert [(t.name, t.hash, t.weight, t.flops) for t in tasks] == [
        (t["name"], t["hash"], t["weight"], t["flops_value"]) for t in listed["tasks"]]


def test_task_function_prints_and_hashes(mlp):
    task = kiln.extract_tasks(mlp, dims={"batch": 1})[2]
    assert task.func.name == "linear2"
    assert task.func.hash == task.hash
    assert "@T.prim_func" in task.func.script()
    assert kiln.parse(task.func.script()).functions == ["linear2"]


def test_tasks_of_tensorir_kernels():
    text = MATMUL_TIR.read_text()
    tasks = kiln.extract_tasks(kiln.parse(text + "\n" + text.replace("def matmul", "def again")))
    assert len(tasks) == 1 and tasks[0].weight == 2
    assert tasks[0].flops == 2 * 128 ** 3


def test_relax_module_tasks():
    tasks = kiln.extract_tasks(kiln.parse(GATED_MLP.read_text()))
    assert "fused_matmul2_residual_add" in [t.name for t in tasks]


def test_bad_dims_name_the_argument(mlp):
    with pytest.raises(kiln.ParseError, match="dims: 'batch'=0"):
        kiln.extract_tasks(mlp, dims={"batch": 0})
    with pytest.raises(kiln.ParseError, match="dims: expected a dict"):
        kiln.extract_tasks(mlp, dims=["batch"])


def test_relax_dims_are_unsupported():
    with pytest.raises(kiln.UnsupportedError, match="a Relax module keeps its symbolic dims"):
        kiln.extract_tasks(kiln.parse(GATED_MLP.read_text()), dims={"n": 4})


def test_extract_tasks_refuses_what_is_not_a_module():
    with pytest.raises(kiln.ParseError, match="module: expected a kiln.Module"):
        kiln.extract_tasks(3.5)
