"""kiln.compile, kiln.load and kiln.Artifact: numpy in and out, dtypes and layouts, the
executor's checks as Python exceptions, save and load, benchmark, threads."""

import gc
import threading

import numpy as np
import pytest

import kiln
from conftest import GATED_MLP, MATMUL_TIR, MLP, read_pb

# One input of each dtype numpy and Kiln share, each returned doubled (bool: negated), over a
# symbolic number of rows.
DTYPES = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64"]
DTYPE_MODULE = "@I.ir_module\nclass Module:\n    @R.function\n    def main({params}, flag: R.Tensor((\"n\", 3), \"bool\")):\n        with R.dataflow():\n{body}            nflag = R.logical_not(flag)\n            gv = ({outs}, nflag)\n            R.output(gv)\n        return gv\n".format(
    params=", ".join(f'x_{d}: R.Tensor(("n", 3), "{d}")' for d in DTYPES),
    body="".join(f"            y_{d} = R.add(x_{d}, x_{d})\n" for d in DTYPES),
    outs=", ".join(f"y_{d}" for d in DTYPES))


@pytest.fixture(scope="module")
def dtype_model(tmp_path_factory):
    mod = kiln.parse(DTYPE_MODULE, name="dtypes")
    return kiln.compile(mod, database=False, library="never",
                        output=str(tmp_path_factory.mktemp("dtypes") / "dtypes.kiln"))


def test_untuned_mlp_matches_onnx_runtimes_outputs(mlp_untuned):
    x = read_pb(MLP.parent / "test_data_set_0" / "input_0.pb")
    expected = read_pb(MLP.parent / "test_data_set_0" / "output_0.pb")
    out = mlp_untuned(x=x)
    assert list(out) == mlp_untuned.outputs
    (got,) = out.values()
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)
    np.testing.assert_array_equal(mlp_untuned(x)[mlp_untuned.outputs[0]], got)  # positional


def test_inputs_and_outputs_describe_the_model(mlp_untuned):
    assert mlp_untuned.inputs == [("x", "float32", ("batch", 64))]
    assert len(mlp_untuned.outputs) == 1
    assert mlp_untuned.threads >= 1
    assert "inputs: x" in repr(mlp_untuned)
    assert mlp_untuned.report["kernels"] == 3 and mlp_untuned.report["tuned"] == 0
    assert all(t["untuned"] for t in mlp_untuned.report["tasks"])


def test_every_dtype_round_trips(dtype_model):
    rng = np.random.default_rng(1)
    inputs = {}
    for d in DTYPES:
        if d.startswith("float"):
            inputs[f"x_{d}"] = rng.standard_normal((4, 3)).astype(d)
        else:
            inputs[f"x_{d}"] = rng.integers(0, 50, size=(4, 3)).astype(d)
    inputs["flag"] = rng.integers(0, 2, size=(4, 3)).astype(bool)
    out = list(dtype_model(**inputs).values())
    assert len(out) == len(DTYPES) + 1
    for d, got in zip(DTYPES, out):
        assert got.dtype == np.dtype(d) and got.shape == (4, 3)
        np.testing.assert_array_equal(got, inputs[f"x_{d}"] + inputs[f"x_{d}"])
    assert out[-1].dtype == np.bool_
    np.testing.assert_array_equal(out[-1], ~inputs["flag"])


def test_outputs_are_not_copied(mlp_untuned, mlp_input):
    out = mlp_untuned(x=mlp_input)[mlp_untuned.outputs[0]]
    # The array is a view over the executor's own buffer: numpy does not own it.
    assert not out.flags.owndata and out.base is not None
    assert out.ctypes.data % 64 == 0  # the executor's aligned allocation, not a numpy copy
    assert out.flags.writeable and out.flags.c_contiguous


def test_outputs_outlive_the_artifact(mlp, mlp_input, tmp_path):
    art = kiln.compile(mlp, database=False, library="never", dims={"batch": 4})
    expected = art(x=mlp_input)[art.outputs[0]].copy()
    out = art(x=mlp_input)[art.outputs[0]]
    path = art.path
    del art
    gc.collect()
    np.testing.assert_array_equal(out, expected)
    import os
    assert not os.path.exists(path)  # the temporary artifact went with it


def test_non_contiguous_inputs_are_gathered(mlp_untuned, mlp_input):
    expected = mlp_untuned(x=mlp_input)[mlp_untuned.outputs[0]].copy()
    wide = np.zeros((4, 128), np.float32)
    wide[:, ::2] = mlp_input
    strided = wide[:, ::2]
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(mlp_untuned(x=strided)[mlp_untuned.outputs[0]], expected)
    fortran = np.asfortranarray(mlp_input)
    np.testing.assert_array_equal(mlp_untuned(x=fortran)[mlp_untuned.outputs[0]], expected)
    reversed_rows = mlp_input[::-1]
    np.testing.assert_array_equal(mlp_untuned(x=reversed_rows[::-1])[mlp_untuned.outputs[0]], expected)


class DlpackOnly:
    """A producer that offers its memory only through the DLPack protocol (no buffer
    protocol, no __array__), as a framework's tensor does."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_any_dlpack_producer_is_an_input(mlp_untuned, mlp_input):
    expected = mlp_untuned(x=mlp_input)[mlp_untuned.outputs[0]].copy()
    got = mlp_untuned(x=DlpackOnly(mlp_input))[mlp_untuned.outputs[0]]
    np.testing.assert_array_equal(got, expected)
    # Outputs are DLPack producers too: another framework takes them without a copy.
    again = np.from_dlpack(got)
    assert again.ctypes.data == got.ctypes.data


def test_wrong_dtype_is_a_shape_error_with_the_executors_message(mlp_untuned, mlp_input):
    with pytest.raises(kiln.ShapeError, match="^input x is float64, the model takes float32$"):
        mlp_untuned(x=mlp_input.astype(np.float64))
    with pytest.raises(kiln.ShapeError, match="input x is complex64"):
        mlp_untuned(x=mlp_input.astype(np.complex64))
    with pytest.raises(kiln.ShapeError, match="input x is float64"):
        mlp_untuned(x=[[0.5] * 64])  # a list reads as float64


def test_wrong_shape_is_a_shape_error(mlp_untuned):
    with pytest.raises(kiln.ShapeError, match="input x") as info:
        mlp_untuned(x=np.zeros((4, 63), np.float32))
    assert isinstance(info.value, ValueError) and info.value.kind == "type error"
    with pytest.raises(kiln.ShapeError, match="input x: rank 1"):
        mlp_untuned(x=np.zeros(64, np.float32))


def test_missing_unknown_and_repeated_inputs(mlp_untuned, mlp_input):
    with pytest.raises(kiln.ParseError, match=r"no value for the model's input x \(float32\)"):
        mlp_untuned()
    with pytest.raises(kiln.ParseError, match=r"the model has no input y \(its inputs: x\)"):
        mlp_untuned(x=mlp_input, y=mlp_input)
    with pytest.raises(kiln.ParseError, match="given twice"):
        mlp_untuned(mlp_input, x=mlp_input)
    with pytest.raises(kiln.ParseError, match="2 positional inputs"):
        mlp_untuned(mlp_input, mlp_input)


def test_static_artifact_refuses_another_batch(mlp, mlp_input):
    art = kiln.compile(mlp, database=False, library="never", dims={"batch": 1})
    assert art.inputs == [("x", "float32", (1, 64))]
    with pytest.raises(kiln.ShapeError, match="input x"):
        art(x=mlp_input)


def test_save_and_load(mlp_untuned, mlp_input, tmp_path):
    expected = mlp_untuned(x=mlp_input)[mlp_untuned.outputs[0]].copy()
    mlp_untuned.save(str(tmp_path / "copy.kiln"))
    art = kiln.load(str(tmp_path / "copy.kiln"), threads=1)
    assert art.report is None and art.threads == 1
    np.testing.assert_allclose(art(x=mlp_input)[art.outputs[0]], expected, rtol=1e-6)


def test_load_errors(mlp_untuned, tmp_path):
    with pytest.raises(kiln.IOError):
        kiln.load(str(tmp_path / "missing.kiln"))
    mlp_untuned.save(str(tmp_path / "bad.kiln"))
    graph = tmp_path / "bad.kiln" / "graph.json"
    graph.write_text(graph.read_text()[:-10])
    with pytest.raises(kiln.ParseError, match="graph.json"):
        kiln.load(str(tmp_path / "bad.kiln"))


def test_benchmark(mlp_untuned, mlp_input):
    result = mlp_untuned.benchmark(x=mlp_input, repeat=3, min_repeat_ms=1)
    assert len(result["repeats_s"]) == 3
    assert 0 < result["best_s"] <= result["median_s"]
    assert result["graph"] == "fallback"


def test_concurrent_calls_from_threads(mlp_untuned, mlp_input):
    expected = mlp_untuned(x=mlp_input)[mlp_untuned.outputs[0]].copy()
    failures = []

    def work():
        for _ in range(50):
            got = mlp_untuned(x=mlp_input)[mlp_untuned.outputs[0]]
            if not np.array_equal(got, expected):
                failures.append(got)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_compile_of_kernels_or_for_a_gpu_is_unsupported(mlp):
    with pytest.raises(kiln.UnsupportedError, match="compile: .* is TensorIR kernels"):
        kiln.compile(kiln.parse(MATMUL_TIR.read_text()))
    with pytest.raises(kiln.UnsupportedError, match="compile builds for the CPU only"):
        kiln.compile(mlp, target="vulkan", database=False)
    with pytest.raises(kiln.UnsupportedError, match="library sometimes"):
        kiln.compile(mlp, database=False, library="sometimes")
    with pytest.raises(kiln.ParseError, match="database: a kiln.Database"):
        kiln.compile(mlp, database=3)


def test_compile_with_the_tuned_database(tuned, mlp):
    db, result, _ = tuned
    art = kiln.compile(mlp, database=db, dims={"batch": 1}, library="never")
    report = art.report
    assert report["database"] == db.path
    assert report["kernels"] == 3
    recorded = {t["name"] for t in report["tasks"] if t["record"] is not None}
    # Each task whose tuning found a correct candidate has a record to use (the compiler may
    # still keep the untuned kernel when it times faster here).
    found = {t["name"] for t in result["tasks"] if t["best_latency_s"]}
    assert recorded <= {t["name"] for t in report["tasks"]}
    assert found
    x = np.random.default_rng(2).standard_normal((1, 64)).astype(np.float32)
    ref = kiln.compile(mlp, database=False, library="never", dims={"batch": 1})
    np.testing.assert_allclose(art(x=x)[art.outputs[0]], ref(x=x)[ref.outputs[0]], rtol=1e-4, atol=1e-5)


def test_relax_module_compiles_and_runs():
    mod = kiln.parse(GATED_MLP.read_text())
    art = kiln.compile(mod, database=False, library="never")
    rng = np.random.default_rng(3)
    args = {name: rng.standard_normal([2 if d == "n" else d for d in shape]).astype(dtype)
            for name, dtype, shape in art.inputs}
    (out,) = art(**args).values()
    assert out.shape == (2, 64) and np.isfinite(out).all()


def test_aligned_row_major_inputs_are_read_in_place(mlp_untuned, mlp_input):
    expected = mlp_untuned(x=mlp_input)[mlp_untuned.outputs[0]].copy()
    x = kiln.empty(mlp_input.shape, "float32")
    assert x.ctypes.data % 64 == 0 and x.flags.c_contiguous
    x[...] = mlp_input
    np.testing.assert_array_equal(mlp_untuned(x=x)[mlp_untuned.outputs[0]], expected)
    assert mlp_untuned.copied_inputs == []
    # The same values 4 bytes off the alignment, or strided: copied once, and said so.
    raw = kiln.empty(mlp_input.size + 1, "float32")
    shifted = raw[1:].reshape(mlp_input.shape)
    shifted[...] = mlp_input
    np.testing.assert_array_equal(mlp_untuned(x=shifted)[mlp_untuned.outputs[0]], expected)
    assert mlp_untuned.copied_inputs == ["x"]
    np.testing.assert_array_equal(
        mlp_untuned(x=np.asfortranarray(mlp_input))[mlp_untuned.outputs[0]], expected)
    assert mlp_untuned.copied_inputs == ["x"]


def test_an_input_read_in_place_outlives_its_name(mlp_untuned, mlp_input):
    # The array is kept alive by the call, not by the caller's name for it.
    expected = mlp_untuned(x=mlp_input)[mlp_untuned.outputs[0]].copy()
    for _ in range(20):
        x = kiln.empty(mlp_input.shape)
        x[...] = mlp_input
        out = mlp_untuned(x=x)[mlp_untuned.outputs[0]]
        del x
        gc.collect()
        np.testing.assert_array_equal(out, expected)


def test_empty_makes_aligned_arrays_of_every_shape():
    for shape, dtype in (((3, 5), "float32"), (7, "int8"), ((2, 3, 4), "float64"), ((0, 4), "int32")):
        a = kiln.empty(shape, dtype)
        assert a.shape == ((shape,) if isinstance(shape, int) else shape)
        assert a.dtype == np.dtype(dtype) and a.flags.c_contiguous and a.flags.writeable
        assert a.size == 0 or a.ctypes.data % 64 == 0
