"""Checks in TVM that what Kiln prints and writes of TVM's corpus loads back to the same objects.

The corpus is tests/data/tvm/ (made by tests/data/tvm/make_tvm_corpus.py); Kiln's side comes
from the helper program kiln_tvm_export (tests/tvm_interop/kiln_tvm_export.cc). Three checks:

  tir     every PrimFunc of tests/data/tvm/tir/ and of the databases' workloads: Kiln parses
          and prints it; TVM parses Kiln's text, and the result must be structurally equal
          (tvm.ir.assert_structural_equal) to TVM's parse of its own original text.
  relax   every module of tests/data/tvm/relax/ the same way (modules printed without their
          metadata section do not parse in TVM either and are skipped, saying so).
  trace   every record of tests/data/tvm/database/ and database/handwritten/, and Kiln's own
          committed traces (tests/search/testdata/traces/, bench/traces/): Kiln replays the
          trace on the workload and writes the trace it recorded; that trace goes into a fresh
          JSONDatabase as a tuning record, TVM loads the database and replays the record on
          the workload, and TVM's result must be structurally equal to Kiln's scheduled
          function (parsed by TVM). For TVM's own records it is also compared with what TVM's
          replay of the original record gives (record_<i>_scheduled.tir).

Run from the repository root with a Python that has apache-tvm 0.27 (not the project's .venv),
after building the helper (`cmake --build BUILD --target kiln_tvm_export`):
    /work/tvm-venv/bin/python tests/tvm_interop/check_in_tvm.py --build BUILD [--json OUT]
                                                                [--only tir|relax|trace]
It prints one line per file (PASS, FAIL with the first lines of the reason, SKIP with why, or
for a trace DIFF: TVM loads and replays Kiln's record, but Kiln's own replay of it is a
structurally different function) and a summary, and exits 1 when anything fails. Where TVM is not installed it prints why it
skipped and exits 0: CI never installs TVM.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data", "tvm")

try:
    import tvm
    import tvm.script
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir import Schedule
except ImportError as error:  # CI and the project's .venv have no TVM.
    print(f"check_in_tvm: skipped: TVM is not installed here ({error}); run it with a Python "
          "that has apache-tvm 0.27, e.g. /work/tvm-venv/bin/python")
    sys.exit(0)


class Checker:
    def __init__(self, export):
        self.export = export
        self.results = []

    def record(self, kind, name, status, reason=""):
        self.results.append(dict(kind=kind, file=name, status=status, reason=reason))
        first = "; ".join(line.strip() for line in reason.strip().splitlines()[:3])
        print(f"{status:4} {kind:5} {name}" + (f": {first[:300]}" if first else ""), flush=True)

    def kiln(self, *args):
        """Runs kiln_tvm_export; its stdout, or raises with its stderr."""
        done = subprocess.run([self.export, *args], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError("Kiln: " + (done.stderr.strip() or f"exit {done.returncode}"))
        return done.stdout

    # ---- TensorIR and Relax ----

    def check_text(self, kind, path):
        name = os.path.relpath(path, ROOT)
        original = open(path).read()
        if kind == "relax" and "metadata[" in original and "tvm.ir.load_json" not in original:
            self.record(kind, name, "SKIP", "printed without its metadata section: TVM cannot "
                        "parse it either")
            return
        try:
            expected = tvm.script.from_source(original)
        except Exception as e:  # noqa: BLE001
            self.record(kind, name, "SKIP", f"TVM does not parse its own text: {e}")
            return
        try:
            printed = self.kiln(kind, path)
        except Exception as e:  # noqa: BLE001
            self.record(kind, name, "FAIL", str(e))
            return
        try:
            actual = tvm.script.from_source(printed)
        except Exception as e:  # noqa: BLE001
            self.record(kind, name, "FAIL", f"TVM does not parse Kiln's text: {e}")
            return
        try:
            if kind == "tir":
                # A standalone PrimFunc compares as one; its name is not part of equality.
                tvm.ir.assert_structural_equal(actual, expected)
            else:
                tvm.ir.assert_structural_equal(actual, expected)
        except Exception as e:  # noqa: BLE001
            self.record(kind, name, "FAIL", f"not structurally equal: {e}")
            return
        self.record(kind, name, "PASS")

    # ---- Traces ----

    def replay_in_tvm(self, workload_mod, trace_json, target, args_info):
        """Writes `trace_json` as a record of a fresh JSONDatabase, loads it back and replays
        it in TVM; the scheduled PrimFunc."""
        with tempfile.TemporaryDirectory() as work_dir:
            database = ms.database.JSONDatabase(work_dir=work_dir)
            database.commit_workload(workload_mod)
            with open(os.path.join(work_dir, "database_tuning_record.json"), "w") as f:
                f.write(json.dumps([0, [trace_json, [1.0e-6], target, args_info]]) + "\n")
            loaded = ms.database.JSONDatabase(work_dir=work_dir)
            records = loaded.get_all_tuning_records()
            if len(records) != 1:
                raise RuntimeError(f"TVM's JSONDatabase read {len(records)} records, not 1")
            sch = Schedule(records[0].workload.mod)
            records[0].trace.apply_to_schedule(sch, remove_postproc=False)
            return sch.mod["main"]

    def check_trace(self, name, workload_path, trace_path, target, args_info, tvm_scheduled=None):
        try:
            workload = tvm.script.from_source(open(workload_path).read())
            out = json.loads(self.kiln("trace", workload_path, trace_path))
        except Exception as e:  # noqa: BLE001
            self.record("trace", name, "FAIL", str(e))
            return
        try:
            if args_info is None:
                args_info = [a.as_json() for a in ms.arg_info.ArgInfo.from_prim_func(workload)]
                args_info = json.loads(json.dumps(args_info, default=lambda o: list(o)))
            scheduled = self.replay_in_tvm(tvm.IRModule({"main": workload}), out["trace"],
                                           target, args_info)
        except Exception as e:  # noqa: BLE001
            self.record("trace", name, "FAIL", f"TVM does not load or replay Kiln's record: {e}")
            return
        # TVM loaded and replayed Kiln's record: the interop holds. What is left to compare is
        # whether Kiln's primitives build the same function as TVM's (DIFF when not).
        if tvm_scheduled and os.path.exists(tvm_scheduled):
            try:
                tvm.ir.assert_structural_equal(
                    scheduled, tvm.script.from_source(open(tvm_scheduled).read()))
            except Exception as e:  # noqa: BLE001
                self.record("trace", name, "FAIL",
                            f"TVM's replay of Kiln's record differs from TVM's own record: {e}")
                return
        try:
            tvm.ir.assert_structural_equal(tvm.script.from_source(out["scheduled"]), scheduled)
        except Exception as e:  # noqa: BLE001
            self.record("trace", name, "DIFF", f"TVM replays Kiln's record; Kiln's own replay "
                        f"is another function: {e}")
            return
        self.record("trace", name, "PASS")

    def check_database(self, folder):
        path = os.path.join(DATA, folder)
        lines = open(os.path.join(path, "database_tuning_record.json")).read().splitlines()
        with tempfile.TemporaryDirectory() as tmp:
            for i, line in enumerate(lines):
                record = json.loads(line)
                trace_path = os.path.join(tmp, f"record_{i}.json")
                with open(trace_path, "w") as f:
                    f.write(line)
                self.check_trace(f"tests/data/tvm/{folder}/database_tuning_record.json:{i + 1}",
                                 os.path.join(path, f"workload_{record[0]}.tir"), trace_path,
                                 record[1][2], record[1][3],
                                 os.path.join(path, f"record_{i}_scheduled.tir"))

    def check_kiln_traces(self, target):
        pairs = [(p, os.path.join(ROOT, "tests/search/testdata/traces/workload.tir"))
                 for p in sorted(glob.glob(os.path.join(ROOT, "tests/search/testdata/traces/*.json")))]
        pairs.append((os.path.join(ROOT, "bench/traces/matmul_1024.json"),
                      os.path.join(ROOT, "examples/tir/matmul.tir")))
        with tempfile.TemporaryDirectory() as tmp:
            for trace_path, workload_path in pairs:
                # TVM's parser reads the workload in the dialect Kiln prints by default.
                kiln_workload = os.path.join(tmp, os.path.basename(trace_path) + ".tir")
                try:
                    with open(kiln_workload, "w") as f:
                        f.write(self.kiln("tir", workload_path))
                except Exception as e:  # noqa: BLE001
                    self.record("trace", os.path.relpath(trace_path, ROOT), "FAIL", str(e))
                    continue
                self.check_trace(os.path.relpath(trace_path, ROOT), kiln_workload, trace_path,
                                 target, None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build", help="Kiln's build folder")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--only", choices=["tir", "relax", "trace"])
    args = parser.parse_args()
    export = os.path.join(args.build, "tests", "tvm_interop", "kiln_tvm_export")
    if not os.access(export, os.X_OK):
        print(f"check_in_tvm: {export} is missing: build it with "
              f"cmake --build {args.build} --target kiln_tvm_export", file=sys.stderr)
        return 2
    checker = Checker(os.path.abspath(export))
    if args.only in (None, "tir"):
        files = sorted(glob.glob(os.path.join(DATA, "tir", "*.tir")))
        files += sorted(glob.glob(os.path.join(DATA, "database", "**", "workload_*.tir"),
                                  recursive=True))
        for path in files:
            checker.check_text("tir", path)
    if args.only in (None, "relax"):
        for path in sorted(glob.glob(os.path.join(DATA, "relax", "*.relax"))):
            checker.check_text("relax", path)
    if args.only in (None, "trace"):
        target = None
        for folder in ("database/handwritten", "database"):
            if os.path.exists(os.path.join(DATA, folder, "database_tuning_record.json")):
                checker.check_database(folder)
                line = open(os.path.join(DATA, folder, "database_tuning_record.json")).readline()
                target = json.loads(line)[1][2]
        checker.check_kiln_traces(target)
    summary = {}
    for r in checker.results:
        summary.setdefault(r["kind"], {}).setdefault(r["status"], 0)
        summary[r["kind"]][r["status"]] += 1
    print("summary: " + json.dumps(summary, sort_keys=True))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(tvm_version=tvm.__version__, summary=summary,
                           results=checker.results), f, indent=1)
    return 1 if any(r["status"] == "FAIL" for r in checker.results) else 0


if __name__ == "__main__":
    sys.exit(main())
