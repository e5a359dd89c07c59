"""Kiln from Python: read a model, split it into tuning tasks, tune them, compile the model
with the best schedules found and run it on numpy arrays.

    import kiln, numpy as np
    mod = kiln.load_onnx("model.onnx")          # or kiln.parse(text): Relax or TensorIR TVMScript
    for t in kiln.extract_tasks(mod, dims={"batch": 1}):
        print(t.name, t.weight, t.flops)
    db = kiln.Database("tuning.db")             # kiln.Database(): the default one
    kiln.tune(mod, trials=64, database=db, dims={"batch": 1})
    art = kiln.compile(mod, database=db, dims={"batch": 1})
    out = art(x=np.random.rand(1, 64).astype("float32"))   # {output name: numpy array}

Every call is the library call the `tune` command makes (tune tasks, run, compile, bench,
db); errors are kiln.Error subclasses carrying the command's message.
"""

import os as _os

from . import _kiln
from ._kiln import (
    Artifact,
    Database,
    Error,
    ExecutionError,
    InternalError,
    InvalidIRError,
    IOError,
    Module,
    ParseError,
    PrimFunc,
    ScheduleError,
    ShapeError,
    Task,
    UnsupportedError,
    load,
)

from . import _arguments as _args
from . import _progress
from . import tvm_interop
from .client import Client, Job

__version__ = _kiln.__version__

__all__ = [
    "Artifact",
    "Client",
    "Database",
    "Error",
    "ExecutionError",
    "IOError",
    "InternalError",
    "InvalidIRError",
    "Job",
    "Module",
    "ParseError",
    "PrimFunc",
    "ScheduleError",
    "ShapeError",
    "Task",
    "UnsupportedError",
    "compile",
    "empty",
    "extract_tasks",
    "load",
    "load_model",
    "load_onnx",
    "parse",
    "tune",
    "tvm_interop",
]


def _use_installed_runners():
    # An installed package carries the runners the tuner measures candidates in: kiln-sandbox
    # (runtime/sandbox_client.h looks at $KILN_SANDBOX first) and the GPU runners its build had
    # ($KILN_VULKAN_RUNNER, ...: runtime/gpu/gpu_measurer.h). A build tree's extension finds
    # the ones built beside it by itself; a variable already set is left alone.
    bin_dir = _os.path.join(_os.path.dirname(__file__), "bin")
    for variable, name in (("KILN_SANDBOX", "kiln-sandbox"),
                           ("KILN_VULKAN_RUNNER", "kiln-vulkan-runner"),
                           ("KILN_OPENCL_RUNNER", "kiln-opencl-runner"),
                           ("KILN_CUDA_RUNNER", "kiln-cuda-runner")):
        runner = _os.path.join(bin_dir, name)
        if not _os.environ.get(variable) and _os.access(runner, _os.X_OK):
            _os.environ[variable] = runner


_use_installed_runners()


def empty(shape, dtype="float32"):
    """An uninitialised numpy array at a 64-byte aligned address: a model's call reads such an
    array in place, where any other is copied once (kiln.Artifact.copied_inputs says which)."""
    import numpy as np

    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + 64, np.uint8)
    offset = -raw.ctypes.data % 64
    return raw[offset:offset + nbytes].view(dtype).reshape(shape)


def parse(text, name="<string>", func=None):
    """Reads TVMScript into a kiln.Module: a Relax module (``@I.ir_module`` with an
    ``@R.function``) or TensorIR functions (``@T.prim_func``), in the dialect of TVM 0.24 and
    later or of earlier TVM. ``text`` may also be an object with ``.script()``, such as TVM's
    ``IRModule`` or ``PrimFunc``. ``name`` names the text in error messages; ``func`` picks the
    Relax function that is the model when the module has several public ones.
    Raises kiln.ParseError naming the line and column."""
    return _kiln._parse(_args.text_of(text, "text"), name, func or "")


def load_onnx(path, func=None):
    """Imports an ONNX model (opsets 11 to 28) into a kiln.Module. Symbolic dims stay symbolic
    until extract_tasks, tune or compile bind them. Raises kiln.IOError for a missing file,
    kiln.UnsupportedError listing every node Kiln cannot import, kiln.ParseError for a
    malformed one."""
    path = _os.fspath(path)
    if not path.endswith(".onnx"):
        raise ParseError(f"{path}: expected an ONNX file ending in .onnx")
    return _kiln._load_model(path, func or "")


def load_model(path, func=None):
    """Reads a model file by its extension, as the `tune` command does: .onnx (ONNX), .relax or
    .py (Relax TVMScript), .tir (TensorIR kernels)."""
    return _kiln._load_model(_os.fspath(path), func or "")


def extract_tasks(mod, dims=None):
    """The tuning tasks of a model, as `tune tasks` lists them: the model is legalized to
    TensorIR, fused, and each structurally distinct kernel is one kiln.Task (name, weight =
    call sites, flops, hash, params, func). ``dims`` binds symbolic dims of an ONNX model
    ({"batch": 1}); without it FLOP counts of symbolic models are text ("batch * 16640").
    For TensorIR kernels each distinct function is a task."""
    return _kiln._extract_tasks(_args.module_of(mod, "module"), _args.check_dims(dims))


def tune(mod, target="llvm", *, trials, database=None, dims=None, buckets=None,
         default_dim=128, trials_per_task=0, trials_per_round=0, strategy="evolutionary",
         cost_model="xgb", task_scheduler="gradient", population=512, seed=1, min_repeat_ms=100,
         threads=0, build_jobs=0, cache_dir=None, progress=False):
    """Tunes a model's tasks (or TensorIR kernels) on this machine, as `tune run` does: the
    embedded coordinator and a worker in this process, every candidate built, checked against
    the reference interpreter and timed in a sandbox, every measurement stored in ``database``
    (a kiln.Database, a path, or None for the default one). A second run starts from the
    stored best records.

    ``dims`` binds symbolic dims ({"batch": 1}); ``buckets`` ({"seq": [16, 32]}) tunes one
    specialisation per value, as `tune run --bucket`; the other dims take ``default_dim``.
    ``trials`` is the budget over all tasks. ``progress=True`` draws the live task table: on
    stderr in a terminal, as a table that updates itself in Jupyter; a function is called
    with each report (the dict returned at the end) instead. The GIL is released while
    tuning; Ctrl-C cancels the job, keeps what was measured, and raises KeyboardInterrupt.

    Returns the dict `tune run --json` prints: tasks (name, workload_hash, flop, weight, trials,
    best_latency_s, best_gflops, untuned_latency_s, best_trace, errors, failure, ...),
    total_trials, wall_s, job and db. Raises kiln.ParseError for a bad option (naming it),
    kiln.ExecutionError when the job fails."""
    table = _progress.NotebookTable() if progress is True and _progress.in_notebook() else None
    result = _kiln._tune(
        _args.module_of(mod, "module"), target, trials, database, _args.check_dims(dims),
        _args.check_buckets(buckets), default_dim, trials_per_task, trials_per_round, strategy,
        cost_model, task_scheduler, population, seed, min_repeat_ms, threads, build_jobs,
        cache_dir or "", table.update if table is not None else progress)
    if table is not None:
        table.update(result)
    return result


def compile(mod, target="llvm", *, database=None, dims=None, buckets=None, default_dim=128,
            symbolic=False, library="auto", library_function="dnnl_sgemm", device_key="",
            cache_dir=None, build_jobs=0, threads=0, untuned_check=True, default_schedule=True,
            output=None):
    """Compiles a model (ONNX or Relax) for this CPU with the best records ``database`` holds
    (a kiln.Database, a path, None for the default one when it exists, False for none), as
    `tune compile` does, and returns the loaded kiln.Artifact (its ``report`` says which record
    each task used).

    Specialise it as it was tuned: ``dims`` ({"batch": 1}) and ``buckets`` ({"seq": [16, 32]})
    give one graph per bucket beside a symbolic fallback; with neither, a model with symbolic
    dims compiles symbolic (every kernel untuned). ``library`` ("auto", "never", "always") lets
    a matmul run as a library call. ``default_schedule=False`` keeps the loops as written for
    kernels no record covers (by default their default schedule is timed against them and the
    faster kept). ``output`` is the artifact folder to write; None writes a
    temporary one, removed with the artifact (art.save keeps a copy). The GIL is released
    while compiling."""
    out = None if output is None else _os.fspath(output)
    return _kiln._compile(
        _args.module_of(mod, "module"), target, database, _args.check_dims(dims),
        _args.check_buckets(buckets),
        default_dim, symbolic, library, library_function, device_key, cache_dir or "",
        build_jobs, threads, untuned_check, default_schedule, out)
