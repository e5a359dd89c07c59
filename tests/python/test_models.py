"""kiln.parse, kiln.load_onnx, kiln.load_model and kiln.Module."""

import pytest

import kiln
from conftest import GATED_MLP, MATMUL_TIR, MLP


def test_parse_relax_prints_back_the_same_module():
    mod = kiln.parse(GATED_MLP.read_text(), name=str(GATED_MLP))
    assert mod.format == "relax"
    assert mod.entry == "main"
    assert "residual_add" in mod.functions
    text = mod.script()
    assert "@R.function" in text and "@I.ir_module" in text
    again = kiln.parse(text)
    assert again.script() == text


def test_parse_tensorir_kernels():
    mod = kiln.parse(MATMUL_TIR.read_text())
    assert mod.format == "tir"
    assert mod.entry is None
    assert mod.functions == ["matmul"]
    assert "T.prim_func" in mod.script()
    assert "T.block(" in mod.script(dialect="tvm-0.23")


def test_parse_takes_an_object_that_prints_itself():
    # TVM's IRModule and PrimFunc are read through their script(), as kiln.Module is here.
    mod = kiln.parse(GATED_MLP.read_text())
    assert kiln.parse(mod).script() == mod.script()


def test_parse_error_names_the_line_and_column():
    with pytest.raises(kiln.ParseError) as info:
        kiln.parse("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\"):\n    pass\n", name="bad.tir")
    assert str(info.value).startswith("bad.tir:")
    assert info.value.kind == "parse error"
    assert isinstance(info.value, kiln.Error) and isinstance(info.value, ValueError)


def test_parse_refuses_what_is_not_text():
    with pytest.raises(kiln.ParseError, match="text: expected TVMScript"):
        kiln.parse(42)


def test_load_onnx():
    mod = kiln.load_onnx(str(MLP))
    assert mod.format == "onnx" and mod.entry == "main"
    assert "R.Tensor((batch, 64)" in mod.script(show_metadata=False)
    assert repr(mod) == f"<kiln.Module {MLP} (onnx)>"


def test_load_onnx_missing_file_is_an_io_error(tmp_path):
    with pytest.raises(kiln.IOError) as info:
        kiln.load_onnx(str(tmp_path / "missing.onnx"))
    assert isinstance(info.value, OSError)
    assert "missing.onnx" in str(info.value)


def test_load_onnx_refuses_another_extension():
    with pytest.raises(kiln.ParseError, match="expected an ONNX file"):
        kiln.load_onnx(str(GATED_MLP))


def test_load_onnx_malformed_file(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage that is not a model")
    with pytest.raises(kiln.Error) as info:
        kiln.load_onnx(str(bad))
    assert "bad.onnx" in str(info.value)


def test_load_model_by_extension():
    assert kiln.load_model(GATED_MLP).format == "relax"
    assert kiln.load_model(MATMUL_TIR).format == "tir"
    with pytest.raises(kiln.ParseError, match="expected a model file"):
        kiln.load_model("model.txt")


def test_relax_entry_function_can_be_chosen():
    with pytest.raises(kiln.InvalidIRError, match="no Relax function 'nope'"):
        kiln.parse(GATED_MLP.read_text(), func="nope")


@pytest.mark.parametrize("name,builtin,kind", [
    ("ParseError", ValueError, "parse error"),
    ("ShapeError", ValueError, None),
    ("InvalidIRError", ValueError, None),
    ("ScheduleError", None, None),
    ("ExecutionError", RuntimeError, None),
    ("UnsupportedError", None, None),
    ("IOError", OSError, None),
    ("InternalError", None, None),
])
def test_every_error_kind_crosses_as_its_exception(name, builtin, kind):
    cls = getattr(kiln, name)
    with pytest.raises(cls) as caught:
        kiln._kiln._raise_error(name, f"model.onnx:3: a {name} here")
    e = caught.value
    assert isinstance(e, kiln.Error) and type(e) is cls
    assert str(e) == f"model.onnx:3: a {name} here"
    assert isinstance(e.kind, str) and e.kind
    if kind is not None:
        assert e.kind == kind
    if builtin is not None:
        assert isinstance(e, builtin)
    assert cls.__doc__, f"kiln.{name} has no docstring"
