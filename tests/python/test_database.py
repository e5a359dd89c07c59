"""kiln.Database: opening, the queries of `tune db`, and TVM's JSON database in and out."""

import json
import os
import subprocess
import sys

import pytest

import kiln
from conftest import TVM_DB


def test_new_database_is_empty(tmp_path):
    db = kiln.Database(str(tmp_path / "sub" / "t.db"))
    assert db.list() == [] and db.count() == 0 and db.history() == []
    assert db.path.endswith("t.db") and (tmp_path / "sub" / "t.db").exists()


def test_missing_database_without_create_is_an_io_error(tmp_path):
    with pytest.raises(kiln.IOError):
        kiln.Database(str(tmp_path / "missing.db"), create=False)
    assert not (tmp_path / "missing.db").exists()


def test_default_path_follows_kiln_db(tmp_path):
    # A fresh interpreter, so that the environment is read as a user's program reads it.
    env = dict(os.environ, KILN_DB=str(tmp_path / "env.db"))
    out = subprocess.run([sys.executable, "-c", "import kiln; print(kiln.Database().path)"],
                         env=env, check=True, capture_output=True, text=True)
    assert out.stdout.strip() == str(tmp_path / "env.db")


def test_import_query_and_export_tvm(tmp_path):
    db = kiln.Database(str(tmp_path / "t.db"))
    report = db.import_tvm(str(TVM_DB), device="cpu-test")
    assert report["records_added"] > 0 and report["workloads_added"] > 0
    listed = db.list()
    assert listed and all(w["device"] == "cpu-test" for w in listed)
    workload = next(w for w in listed if w["best_latency_s"] is not None)
    best = db.best(workload["hash"], k=2)
    assert 1 <= len(best) <= 2
    assert best[0]["latency_s"] == pytest.approx(workload["best_latency_s"])
    assert isinstance(best[0]["trace"], list)
    assert db.history(limit=3) and len(db.history(limit=3)) <= 3
    again = db.import_tvm(str(TVM_DB), device="cpu-test")
    assert again["records_added"] == 0 and again["records_present"] == report["records_added"]

    exported = db.export_tvm(str(tmp_path / "out"))
    assert exported["records"] == report["records_added"]
    for name in ("database_workload.json", "database_tuning_record.json"):
        assert (tmp_path / "out" / name).exists()
    copy = kiln.Database(str(tmp_path / "copy.db"))
    assert copy.import_tvm(str(tmp_path / "out"), device="cpu-test")["records_added"] == exported["records"]


def test_best_of_an_unknown_workload_is_a_parse_error(tmp_path):
    db = kiln.Database(str(tmp_path / "t.db"))
    with pytest.raises(kiln.ParseError, match="no workload with hash 0123"):
        db.best("0123")
    with pytest.raises(kiln.ParseError, match="k: must be positive"):
        db.best("0123", k=0)


def test_import_of_a_missing_folder_is_an_io_error(tmp_path):
    db = kiln.Database(str(tmp_path / "t.db"))
    with pytest.raises(kiln.IOError, match="database_workload.json: cannot be read"):
        db.import_tvm(str(tmp_path / "nothing"), device="cpu-test")


def test_closed_database_refuses_queries(tmp_path):
    with kiln.Database(str(tmp_path / "t.db")) as db:
        pass
    with pytest.raises(kiln.IOError, match="the database was closed"):
        db.list()


def test_damaged_file_is_an_error(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(kiln.Error):
        kiln.Database(str(bad)).list()


def test_tuned_records_are_in_the_database(tuned, mlp):
    db, result, _ = tuned
    hashes = {w["hash"] for w in db.list()}
    task = kiln.extract_tasks(mlp, dims={"batch": 1})[0]
    assert task.hash in hashes
    best = db.best(task)
    assert best and best[0]["job"] == result["job"]
    assert json.dumps(best[0]["trace"])
