"""Kiln's results in TVM's own objects, where TVM is installed (nothing here imports it before a
call needs it):

    import kiln, tvm
    from kiln import tvm_interop
    task = kiln.extract_tasks(mod, dims={"batch": 1})[0]
    record = kiln.Database("tuning.db").best(task, k=1)[0]
    sch = tvm_interop.schedule(record, task)       # a TVM Schedule of TVM's own module
    lib = tvm.compile(sch.mod, target="llvm")

kiln.parse, extract_tasks, tune and compile take TVM's IRModule and PrimFunc directly (through
their .script()); this module goes the other way. A record's trace is MetaSchedule's JSON, and
like TVM's it marks where the postprocessors begin (EnterPostproc). TVM's schedule primitives
are stricter than Kiln's in places (TVM will not vectorize the loop of a reduction's update
after the reduction was decomposed), so replay keeps to what TVM itself would do: with
postproc="auto" the whole trace is replayed when TVM accepts it, and otherwise its
design-space part with TVM's own postprocessors for the target.
"""

import os as _os
import warnings as _warnings

from ._kiln import UnsupportedError

_ENTER_POSTPROC = "EnterPostproc"


def _tvm():
    try:
        import tvm
    except ImportError as e:
        raise UnsupportedError(
            f"TVM is not installed ({e}); kiln.tvm_interop needs it (pip install apache-tvm)"
        ) from None
    return tvm


def _schedule_module(tvm):
    """TVM's schedule namespace: tvm.s_tir from 0.24 on, tvm.tir before."""
    for name in ("s_tir", "tir"):
        try:
            module = __import__(f"tvm.{name}", fromlist=["Schedule"])
        except ImportError:
            continue
        if hasattr(module, "Schedule") and hasattr(module, "Trace"):
            return module
    raise UnsupportedError(f"TVM {tvm.__version__} has neither tvm.s_tir.Schedule nor tvm.tir.Schedule")


def to_tvm(func):
    """TVM's IRModule of a kiln.Module, kiln.PrimFunc or kiln.Task (its function), parsed by
    TVM from Kiln's TVMScript; a TVM IRModule or PrimFunc is returned as an IRModule."""
    tvm = _tvm()
    if isinstance(func, tvm.ir.IRModule):
        return func
    if hasattr(func, "func") and hasattr(func, "hash"):  # a kiln.Task
        func = func.func
    parsed = tvm.script.from_source(func.script())
    if isinstance(parsed, tvm.ir.IRModule):
        return parsed
    return tvm.IRModule({"main": parsed})


def _trace_of(record):
    trace = record.get("trace") if isinstance(record, dict) else record
    if not (isinstance(trace, list) and len(trace) == 2 and isinstance(trace[0], list)):
        raise UnsupportedError("record: a kiln.Database record (a dict with 'trace') or a "
                               "MetaSchedule trace [instructions, decisions] expected")
    return trace


def design_space_part(trace):
    """The trace's instructions before EnterPostproc (all of them when it has none), with their
    decisions: what TVM's Trace.apply_to_schedule(remove_postproc=True) replays."""
    insts, decisions = trace
    end = next((i for i, inst in enumerate(insts) if inst[0] == _ENTER_POSTPROC), len(insts))
    return [insts[:end], [d for d in decisions if d[0] < end]]


def _postprocess(tvm, s_tir, sch, target):
    from importlib import import_module

    ms = import_module(f"{s_tir.__name__}.meta_schedule")
    if target is None:
        target = {"kind": "llvm", "num-cores": _os.cpu_count() or 1}
    target = tvm.target.Target(target)
    context = ms.TuneContext(mod=sch.mod, target=target, num_threads=1)
    kind = "cuda" if target.kind.name == "cuda" else "llvm"
    for postproc in ms.postproc.Postproc.create(kind):
        postproc._initialize_with_tune_context(context)
        if not postproc.apply(sch):
            raise UnsupportedError(f"TVM's postprocessor {type(postproc).__name__} refused the "
                                   "schedule's design-space part")


def schedule(record, func, target=None, postproc="auto"):
    """A TVM Schedule of ``func`` (a kiln.Task, kiln.PrimFunc, or TVM's IRModule or PrimFunc)
    with ``record``'s trace applied (a record dict of kiln.Database.best or .history, or the
    trace itself). ``postproc``: "kiln" replays the whole trace and raises when TVM refuses a
    step; "tvm" replays the part before EnterPostproc and runs TVM's postprocessors for
    ``target`` (TVM's Target or its dict; default this CPU, {"kind": "llvm", "num-cores": N});
    "auto" (default) tries "kiln", then "tvm" with a warning naming TVM's refusal.
    Raises kiln.UnsupportedError without TVM, and TVM's own error when the design-space part
    does not apply (a record of another workload)."""
    if postproc not in ("auto", "kiln", "tvm"):
        raise UnsupportedError(f"postproc: 'auto', 'kiln' or 'tvm' expected, not {postproc!r}")
    tvm = _tvm()
    s_tir = _schedule_module(tvm)
    trace = _trace_of(record)
    mod = to_tvm(func)
    if postproc in ("auto", "kiln"):
        sch = s_tir.Schedule(mod)
        try:
            s_tir.Trace.apply_json_to_schedule(trace, sch)
            return sch
        except Exception as e:  # TVM's error class differs between its versions
            if postproc == "kiln":
                raise
            refusal = str(e).strip().splitlines()[-1]
        _warnings.warn(f"TVM refused a step of the trace's postprocessing ({refusal}); its "
                       "design-space part was replayed with TVM's postprocessors", stacklevel=2)
    sch = s_tir.Schedule(mod)
    s_tir.Trace.apply_json_to_schedule(design_space_part(trace), sch)
    _postprocess(tvm, s_tir, sch, target)
    return sch
