"""Shared fixtures of the Python package's tests: the repository's bundled models, one
untuned compile of the MLP and one short tuning run, made once per session (tuning and
compiling dominate the suite's time)."""

import os
import pathlib

import numpy as np
import pytest

import kiln

ROOT = pathlib.Path(os.environ.get("KILN_TEST_ROOT", pathlib.Path(__file__).resolve().parents[2]))
MLP = ROOT / "examples" / "models" / "mlp" / "model.onnx"
GATED_MLP = ROOT / "examples" / "relax" / "gated_mlp.relax"
MATMUL_TIR = ROOT / "examples" / "tir" / "matmul.tir"
TVM_DB = ROOT / "tests" / "data" / "tvm_db"
BUILD = pathlib.Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
TUNE = BUILD / "cli" / "tune"
COORDINATOR = BUILD / "coordinator" / "kiln-coordinator"
WORKER = BUILD / "worker" / "kiln-worker"


def read_pb(path):
    """A tensor of ONNX's test data sets (TensorProto bytes) as a numpy array."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    tensor = onnx.TensorProto()
    tensor.ParseFromString(pathlib.Path(path).read_bytes())
    return numpy_helper.to_array(tensor)


@pytest.fixture(scope="session")
def mlp():
    return kiln.load_onnx(str(MLP))


@pytest.fixture(scope="session")
def mlp_untuned(mlp, tmp_path_factory):
    """The MLP compiled symbolic in batch, every kernel untuned (no database)."""
    out = tmp_path_factory.mktemp("untuned") / "mlp.kiln"
    return kiln.compile(mlp, database=False, library="never", output=str(out))


@pytest.fixture(scope="session")
def tuned(mlp, tmp_path_factory):
    """A short tuning run of the MLP at batch 1 into a fresh database: (database, result,
    the reports the progress function saw)."""
    db = kiln.Database(str(tmp_path_factory.mktemp("tuned") / "tuning.db"))
    reports = []
    result = kiln.tune(mlp, trials=6, database=db, dims={"batch": 1}, min_repeat_ms=5,
                       trials_per_round=6, population=64, progress=reports.append)
    return db, result, reports


@pytest.fixture
def mlp_input():
    return np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32)
