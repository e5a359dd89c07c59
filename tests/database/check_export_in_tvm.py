"""Checks, where TVM is installed, that TVM's JSONDatabase loads what `tune db export` writes.

CI never installs TVM; run by hand with the TVM virtual environment:

    /work/tvm-venv/bin/python tests/database/check_export_in_tvm.py --tune build/cli/tune
    /work/tvm-venv/bin/python tests/database/check_export_in_tvm.py --tune build/cli/tune \
        --db ~/.cache/kiln/tuning.db      # also a database Kiln filled itself

For TVM's own database (tests/data/tvm_db/ by default) it runs `tune db import` into a fresh
file and `tune db export` out of it, then loads the export with ms.database.JSONDatabase and
checks, against the database TVM wrote:
  - every workload loads as an IRModule structurally equal (TVM's equality) to TVM's own, and
    its line carries TVM's structural hash of it, so that TVM's queries by module find it;
  - every record has the trace (as JSON) and the run_secs of TVM's record, and TVM replays the
    trace on the workload;
  - query_tuning_record and get_top_k answer for each workload.
A database another TVM wrote (--source tests/data/tvm_db/graphs/tvm-0.25.0.post1/database),
which this TVM may not load itself, is checked for loading and replaying only: its hashes are
the other TVM's. With --db, a database Kiln filled is exported too: its workloads must load in TVM equal to
TVM's parse of the TVMScript Kiln stored for them (a failure otherwise); each record's trace is
replayed in TVM and the file loaded with JSONDatabase, and the outcome is reported (Kiln's
records are exported up to their EnterPostproc, which TVM replays; records stored before Kiln
wrote the mark are whole, TVM may refuse their postprocessing and JSONDatabase then the whole
file: said, not counted as a failure of the export). Prints one line per check and a JSON summary last; exits non-zero on a failure.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import tvm
import tvm_ffi
from tvm.s_tir import meta_schedule as ms
from tvm.s_tir.schedule import Trace

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def load(folder):
    return ms.database.JSONDatabase(
        path_workload=os.path.join(folder, "database_workload.json"),
        path_tuning_record=os.path.join(folder, "database_tuning_record.json"))


def records_by_hash(database):
    out = {}
    for rec in database.get_all_tuning_records():
        out.setdefault(str(tvm_ffi.structural_hash(rec.workload.mod)), []).append(rec)
    return out


def stored_hashes(folder):
    with open(os.path.join(folder, "database_workload.json")) as f:
        return [json.loads(line)[0] for line in f if line.strip()]


def replays(rec):
    sch = tvm.s_tir.Schedule(rec.workload.mod)
    rec.trace.apply_to_schedule(sch, remove_postproc=False)
    return sch


def check_tvm_database(tune, source, work, failures):
    db = os.path.join(work, "tvm.db")
    out = os.path.join(work, "export")
    imported = run([tune, "db", "import", source, "--device", "cpu-check", "--db", db, "--json"])
    exported = run([tune, "db", "export", out, "--db", db, "--json"])
    print(f"import: {imported['records_added']} of {imported['records_read']} records, "
          f"{len(imported['skipped'])} skipped; export: {exported['records']} records of "
          f"{exported['workloads']} workloads")
    try:
        original = records_by_hash(load(source))
    except Exception as e:  # noqa: BLE001 - another TVM's files: what Kiln wrote must load
        print(f"this TVM does not load {source} itself ({str(e).splitlines()[-1][:100]}); "
              f"the export is checked without comparing with it")
        original = None
    loaded = load(out)
    mine = records_by_hash(loaded)
    hashes = stored_hashes(out)
    if original is None:
        # The hashes are the other TVM's, which this one computes differently: said, not failed.
        records = loaded.get_all_tuning_records()
        replayed = sum(1 for rec in records if replays(rec) is not None)
        checks = {"workloads": len(hashes), "records": len(records), "replayed": replayed,
                  "lines_with_this_tvms_hash": sum(h in mine for h in hashes)}
        print(f"another TVM's database through Kiln: {checks}")
        if len(records) != exported["records"] or replayed != len(records):
            failures.append(f"{source}: TVM loaded {len(records)} and replayed {replayed} of "
                            f"{exported['records']} records")
        return checks
    checks = {"workloads": 0, "records": 0, "replayed": 0, "queried": 0}
    for h in hashes:
        if h not in mine:
            failures.append(f"workload line with hash {h}: TVM's hash of the module differs")
            continue
        if original is not None:
            if h not in original:
                failures.append(f"workload {h}: not a workload of {source}")
                continue
            if not tvm_ffi.structural_equal(mine[h][0].workload.mod, original[h][0].workload.mod):
                failures.append(f"workload {h}: not structurally equal to TVM's")
                continue
            expected = sorted((str(r.trace), json.dumps(list(map(float, r.run_secs))))
                              for r in original[h])
            actual = sorted((str(r.trace), json.dumps(list(map(float, r.run_secs))))
                            for r in mine[h])
            if expected != actual:
                failures.append(f"workload {h}: records differ from TVM's")
        checks["workloads"] += 1
        checks["records"] += len(mine[h])
        for rec in mine[h]:
            try:
                replays(rec)
                checks["replayed"] += 1
            except Exception as e:  # noqa: BLE001 - report, go on
                failures.append(f"workload {h}: TVM cannot replay a record: {e}")
        mod = mine[h][0].workload.mod
        target = mine[h][0].target
        best = loaded.get_top_k(loaded.commit_workload(mod), 1)
        if loaded.has_workload(mod) and best and loaded.query_tuning_record(mod, target, "main"):
            checks["queried"] += 1
        else:
            failures.append(f"workload {h}: TVM's queries by module do not find it")
    print(f"TVM's database through Kiln and back: {checks}")
    return checks


def check_kiln_database(tune, db, work, failures):
    """A database Kiln filled: its workloads must load in TVM equal to TVM's parse of the text
    Kiln stored for them; its records' traces are replayed one by one and the whole file loaded
    with JSONDatabase, and what TVM says is reported."""
    import base64
    import sqlite3

    from tvm.script import from_source

    out = os.path.join(work, "kiln-export")
    exported = run([tune, "db", "export", out, "--db", db, "--json"])
    texts = dict(sqlite3.connect(db).execute("SELECT hash, tvmscript FROM workloads"))
    modules = []
    equal = 0
    with open(os.path.join(out, "database_workload.json")) as f:
        for line in f:
            shash, field = json.loads(line)
            raw = base64.b64decode(field)
            mod = tvm.ir.load_json(raw[8:].decode())
            modules.append(mod)
            kiln_hash = format(int(shash), "016x")
            text = texts.get(kiln_hash)
            if text is None:  # a workload imported from TVM carries TVM's hash
                equal += 1
                continue
            if tvm_ffi.structural_equal(mod["main"], from_source(text)):
                equal += 1
            else:
                failures.append(f"{db}: workload {kiln_hash} differs from TVM's parse of its text")
    replayed, refused = 0, {}
    with open(os.path.join(out, "database_tuning_record.json")) as f:
        for line in f:
            index, (trace, _run_secs, _target, _args) = json.loads(line)
            sch = tvm.s_tir.Schedule(modules[index])
            try:
                Trace.apply_json_to_schedule(trace, sch)
                replayed += 1
            except Exception as e:  # noqa: BLE001 - counted and reported
                text = str(e)
                at = text.find("schedule primitive '")
                primitive = text[at + 20:text.find("'", at + 20)] if at >= 0 else "?"
                refused[primitive] = refused.get(primitive, 0) + 1
    try:
        load(out)
        loaded = True
    except Exception:  # noqa: BLE001 - TVM refuses the file when one record does not replay
        loaded = False
    print(f"Kiln's database {db}: {exported['workloads']} workloads ({equal} equal to TVM's "
          f"parse of Kiln's text), {exported['records']} records: {replayed} replay in TVM, "
          f"refused by TVM's primitives {refused}; JSONDatabase "
          f"{'loads the file' if loaded else 'refuses the file'}")
    return {"workloads": exported["workloads"], "workloads_equal": equal,
            "records": exported["records"], "replayed_in_tvm": replayed, "refused": refused,
            "jsondatabase_loads": loaded}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tune", required=True, help="the tune binary")
    parser.add_argument("--source", default=os.path.join(ROOT, "tests", "data", "tvm_db"),
                        help="a folder with TVM's JSONDatabase files")
    parser.add_argument("--db", help="also export this Kiln database and load it in TVM")
    args = parser.parse_args()
    failures = []
    summary = {"tvm_version": tvm.__version__}
    with tempfile.TemporaryDirectory() as work:
        summary["tvm_database"] = check_tvm_database(args.tune, args.source, work, failures)
        if args.db:
            summary["kiln_database"] = check_kiln_database(args.tune, args.db, work, failures)
    for f in failures:
        print("FAIL:", f)
    summary["failures"] = len(failures)
    print(json.dumps(summary))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
