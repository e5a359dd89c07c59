"""kiln.Client: a model tuned by a coordinator daemon and its workers, as `tune submit`,
`tune status`, `tune watch`, `tune cancel` and `tune workers` do it.

    job = kiln.Client("tcp://127.0.0.1:7070").submit(mod, target="vulkan", trials=512)
    for event in job.events():                   # what `tune watch --json` prints
        print(event["state"], event["trials_done"], "/", event["trials_total"])
    job.wait(progress=True)                      # the live task table, in a terminal or Jupyter

Every answer is the dict the command prints with --json. Errors are kiln.Error subclasses with
the command's text: kiln.IOError when no coordinator answers (naming the address), the
coordinator's own error (an unknown job, a refused model) with its kind.
"""

import json as _json

from . import _arguments as _args
from . import _kiln
from . import _progress

_FINAL_STATES = ("done", "failed", "cancelled")

# kiln.Client.submit's keyword -> the job option's name on the wire (coordinator/job_options.h).
_JOB_OPTIONS = {
    "strategy": "strategy",
    "seed": "seed",
    "population": "population",
    "trials_per_round": "trials_per_round",
    "trials_per_task": "trials_per_task",
    "task_scheduler": "task_scheduler",
    "cost_model": "cost_model",
    "min_repeat_ms": "min_repeat_ms",
    "threads": "num_threads",
    "family_share": "family_share",
    "measure_untuned": "measure_untuned",
    "dims": "dims",
    "default_dim": "default_dim",
}


class Job:
    """A job on a coordinator: its id, and the calls that follow it."""

    def __init__(self, client, job_id):
        self.client = client
        self.id = int(job_id)

    def __repr__(self):
        return f"<kiln.Job {self.id} on {self.client.address}>"

    def status(self):
        """The job now, as `tune status JOB --json`: job, state ('queued', 'running', 'done',
        'failed', 'cancelled'), trials_done, trials_total, tasks (index, name, trials_done,
        trials_total, best_latency_s, weight, flop, untuned_latency_s, done), model, target,
        message, elapsed_s and client."""
        return _kiln._job_status(self.client.address, self.id)

    def cancel(self):
        """Stops the job, as `tune cancel`; what was measured stays stored. Returns its status."""
        return _kiln._cancel(self.client.address, self.id)

    def events(self, keepalive_s=2.0):
        """Yields each event the coordinator pushes (the dicts of `status()`) until the job is
        done, failed or cancelled; the last one yielded is the final state. A quiet stretch of
        ``keepalive_s`` subscribes again, which also follows a restarted coordinator. Waits
        without the GIL; Ctrl-C raises KeyboardInterrupt in the loop (the job goes on: call
        cancel() to stop it). kiln.IOError when the coordinator stops answering."""
        return self._events(keepalive_s, draw=False)

    def _events(self, keepalive_s, draw):
        # With `draw` each event is also printed on stderr as `tune watch` prints it.
        watch = _kiln._JobWatch(self.client.address, self.id, keepalive_s, draw)
        while True:
            event = watch.next(0.2)
            if event is None:
                continue
            yield event
            if event["state"] in _FINAL_STATES:
                return

    def wait(self, progress=False):
        """Follows the job until it ends and returns its final state. ``progress=True`` draws
        the live task table (redrawn in place in a terminal, a table that updates itself in
        Jupyter); a function is called with each event instead."""
        if progress not in (True, False) and not callable(progress):
            raise _kiln.ParseError("progress: True, False or a function of the event expected")
        notebook = progress is True and _progress.in_notebook()
        table = _progress.NotebookTable() if notebook else None
        last = None
        for event in self._events(2.0, draw=progress is True and not notebook):
            last = event
            if table is not None:
                table.update(event)
            elif callable(progress):
                progress(event)
        return last


class Client:
    """A coordinator at ``address`` (default $KILN_COORDINATOR, else tcp://127.0.0.1:7070).
    Nothing is sent until a call; with $KILN_KEYS set the client speaks CurveZMQ, as `tune`
    does. Each request waits $KILN_TIMEOUT_S (10 s) for an answer."""

    def __init__(self, address=None):
        self.address = address or _kiln._default_coordinator()

    def __repr__(self):
        return f"<kiln.Client {self.address}>"

    def submit(self, mod, target="llvm", *, trials, device="", dims=None, buckets=None,
               default_dim=None, strategy=None, seed=None, population=None,
               trials_per_round=None, trials_per_task=None, task_scheduler=None,
               cost_model=None, min_repeat_ms=None, threads=None, family_share=None,
               measure_untuned=None):
        """Sends a model (a kiln.Module from load_onnx or parse, a model file's path, Relax
        TVMScript text, or TVM's IRModule) as a tuning job and returns its kiln.Job, as `tune
        submit`. ``device`` keeps the job on workers of that device key. ``dims`` and
        ``buckets`` specialise the model as kiln.tune does; the search options left None keep
        the coordinator's defaults. kiln.UnsupportedError for TensorIR kernels (submit a
        model; kiln.tune tunes kernels here)."""
        module = _args.module_of(mod, "module")
        given = dict(strategy=strategy, seed=seed, population=population,
                     trials_per_round=trials_per_round, trials_per_task=trials_per_task,
                     task_scheduler=task_scheduler, cost_model=cost_model,
                     min_repeat_ms=min_repeat_ms, threads=threads, family_share=family_share,
                     measure_untuned=measure_untuned, dims=_args.check_dims(dims),
                     default_dim=default_dim)
        options = {_JOB_OPTIONS[k]: v for k, v in given.items() if v is not None}
        job_id = _kiln._submit(self.address, module, target, device, trials,
                               _json.dumps(options), _args.check_buckets(buckets))
        return Job(self, job_id)

    def job(self, job_id):
        """The kiln.Job of an id (one submitted earlier, by anyone)."""
        return Job(self, job_id)

    def jobs(self):
        """Every job the coordinator knows, as `tune status --json`: a list of status dicts."""
        return _kiln._list_jobs(self.address)["jobs"]

    def workers(self):
        """Every registered worker, as `tune workers --json`: dicts with id, device, target,
        state, in_flight, last_seen_s and hardware."""
        return _kiln._list_workers(self.address)["workers"]
