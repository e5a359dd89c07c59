"""The checks of kiln's arguments shared by its calls: dims, buckets and what may stand for a
module (a kiln.Module, TVMScript text, an object with .script() such as TVM's IRModule, a model
file's path). Each refusal is a kiln.ParseError naming the argument, as the CLI names its flag."""

import os as _os

from . import _kiln
from ._kiln import Module, ParseError


def check_dims(dims, what="dims"):
    """{dim name: positive int}, or None."""
    if dims is None:
        return None
    if not isinstance(dims, dict):
        raise ParseError(f"{what}: expected a dict of dim name to value, got {type(dims).__name__}")
    for name, value in dims.items():
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ParseError(f"{what}: {name!r}={value!r}: expected NAME=VALUE with VALUE > 0")
    return dict(dims)


def check_buckets(buckets):
    """{dim name: [positive ints]} (a single int is a list of one), or None."""
    if buckets is None:
        return None
    if not isinstance(buckets, dict):
        raise ParseError("buckets: expected a dict of dim name to a list of values")
    out = {}
    for name, values in buckets.items():
        values = [values] if isinstance(values, int) else list(values)
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ParseError(f"buckets: {name}={value!r}: expected positive integers")
        out[name] = values
    return out


def text_of(source, what):
    """TVMScript text of a str, bytes or an object with .script()."""
    if isinstance(source, str):
        return source
    if isinstance(source, bytes):
        return source.decode("utf-8")
    # TVM's IRModule and PrimFunc (and kiln.Module) print themselves as TVMScript.
    script = getattr(source, "script", None)
    if callable(script):
        return script()
    raise ParseError(f"{what}: expected TVMScript text or an object with .script(), "
                     f"got {type(source).__name__}")


_MODEL_EXTENSIONS = (".onnx", ".relax", ".py", ".tir")


def module_of(mod, what):
    """A kiln.Module of a kiln.Module, a model file's path (a path object, or a one-line str
    ending in .onnx, .relax, .py or .tir), TVMScript text or an object with .script()."""
    if isinstance(mod, Module):
        return mod
    if isinstance(mod, str) and "\n" not in mod and mod.endswith(_MODEL_EXTENSIONS):
        return _kiln._load_model(mod, "")
    if isinstance(mod, (str, bytes)) or callable(getattr(mod, "script", None)):
        return _kiln._parse(text_of(mod, what), "<string>", "")
    if isinstance(mod, _os.PathLike):
        return _kiln._load_model(_os.fspath(mod), "")
    raise ParseError(f"{what}: expected a kiln.Module (kiln.parse, kiln.load_onnx), TVMScript "
                     f"text or a TVM IRModule, got {type(mod).__name__}")
