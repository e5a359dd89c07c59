"""kiln.Client against real daemons: a kiln-coordinator and a CPU kiln-worker on loopback,
started once for the module. Each job's answers are checked against what the coordinator
stored and what `tune status --json` prints."""

import json
import socket
import subprocess
import time

import pytest

import kiln
from conftest import COORDINATOR, MATMUL_TIR, MLP, TUNE, WORKER

# A short job: the MLP at batch 1, a few candidates, each timed briefly.
SHORT = dict(trials=6, dims={"batch": 1}, trials_per_round=6, population=64, min_repeat_ms=5)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """(client, database path) of a coordinator with one CPU worker."""
    for binary in (COORDINATOR, WORKER):
        assert binary.exists(), f"{binary} is not built (cmake --build build)"
    tmp = tmp_path_factory.mktemp("service")
    address = f"tcp://127.0.0.1:{free_port()}"
    db = tmp / "tuning.db"
    coordinator = subprocess.Popen([str(COORDINATOR), "--listen", address, "--db", str(db),
                                    "--log-level", "warn"])
    worker = subprocess.Popen([str(WORKER), "--coordinator", address, "--device", "cpu",
                               "--build-jobs", "1", "--cache-dir", str(tmp / "cache"),
                               "--log-level", "warn"])
    client = kiln.Client(address)
    deadline = time.monotonic() + 60
    while not client.workers():
        assert time.monotonic() < deadline, "the worker did not register within 60 s"
        time.sleep(0.2)
    yield client, db
    for process in (worker, coordinator):
        process.terminate()
        process.wait(timeout=30)


def test_submit_follow_and_finish(service, mlp):
    client, db = service
    job = client.submit(mlp, **SHORT)
    assert isinstance(job, kiln.Job) and job.id > 0
    events = list(job.events())
    assert events, "no event was pushed"
    last = events[-1]
    assert last["state"] == "done", last
    assert last["job"] == job.id and last["trials_done"] >= SHORT["trials"]
    assert all(e["state"] in ("queued", "running", "done") for e in events)
    assert [t["name"] for t in last["tasks"]] == [t["name"] for t in job.status()["tasks"]]
    assert any(t["best_latency_s"] for t in last["tasks"])
    # The same object `tune status JOB --json` prints.
    printed = json.loads(subprocess.run(
        [str(TUNE), "status", str(job.id), "--coordinator", client.address, "--json"],
        check=True, capture_output=True, text=True).stdout.splitlines()[-1])
    assert printed["state"] == "done" and printed["tasks"] == job.status()["tasks"]
    assert job.id in [j["job"] for j in client.jobs()]
    with kiln.Database(str(db), create=False) as stored:
        assert stored.history(job=job.id), "the job's measurements are not in the database"


def test_wait_with_a_progress_function_and_the_terminal_table(service, mlp, capfd):
    client, _ = service
    seen = []
    final = client.submit(str(MLP), **SHORT).wait(progress=seen.append)
    assert final["state"] == "done" and seen[-1] == final
    assert capfd.readouterr().err == "", "a progress function must not also draw"
    job = client.submit(mlp, **SHORT)
    assert job.wait(progress=True)["state"] == "done"
    err = capfd.readouterr().err
    assert f"job {job.id} done" in err and "trials" in err, err


def test_cancel_keeps_the_job_and_ends_it(service, mlp):
    client, _ = service
    job = client.submit(mlp, trials=100000, dims={"batch": 1}, min_repeat_ms=5)
    cancelled = job.cancel()
    assert cancelled["job"] == job.id
    states = [e["state"] for e in job.events()]
    assert states[-1] == "cancelled", states
    assert job.status()["state"] == "cancelled"


def test_buckets_travel_with_the_job(service, mlp):
    client, _ = service
    final = client.submit(mlp, trials=4, buckets={"batch": [1, 2]}, trials_per_round=4,
                          population=32, min_repeat_ms=5).wait()
    assert final["state"] == "done", final
    assert len({t["name"] for t in final["tasks"]}) >= 2


def test_refusals_carry_the_coordinators_and_the_commands_messages(service, mlp):
    client, _ = service
    with pytest.raises(kiln.Error, match="no job 999999|unknown job|999999"):
        client.job(999999).status()
    with pytest.raises(kiln.ParseError, match="strategy"):
        client.submit(mlp, trials=4, strategy="annealing")
    with pytest.raises(kiln.ParseError, match="trials"):
        client.submit(mlp, trials=0)
    with pytest.raises(kiln.ParseError, match="buckets"):
        client.submit(mlp, trials=4, buckets={"batch": [0]})
    with pytest.raises(kiln.UnsupportedError):
        client.submit(kiln.load_model(str(MATMUL_TIR)), trials=4)
    with pytest.raises(kiln.ParseError, match="job"):
        client.job(0).status()
    with pytest.raises(kiln.ParseError, match="progress"):
        client.job(1).wait(progress="yes")


def test_no_coordinator_is_an_io_error_naming_the_address(monkeypatch):
    monkeypatch.setenv("KILN_TIMEOUT_S", "0.5")
    address = f"tcp://127.0.0.1:{free_port()}"
    client = kiln.Client(address)
    with pytest.raises(kiln.IOError, match=address.replace(".", r"\.")):
        client.jobs()
    with pytest.raises(kiln.IOError, match="no answer"):
        next(client.job(1).events())


def test_default_address_follows_the_environment(monkeypatch):
    monkeypatch.setenv("KILN_COORDINATOR", "tcp://127.0.0.1:7171")
    assert kiln.Client().address == "tcp://127.0.0.1:7171"
    assert repr(kiln.Client().job(3)) == "<kiln.Job 3 on tcp://127.0.0.1:7171>"
