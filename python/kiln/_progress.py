"""The live task table in Jupyter: kiln.tune(progress=True) and kiln.Job.wait(progress=True)
draw it as an HTML table that updates itself in place (in a terminal the C++ side draws the
text table of `tune run` on stderr instead). It reads the dicts both calls produce: a tuning
report (tasks with trials) or a job event (tasks with trials_done and trials_total)."""

import html as _html


def in_notebook():
    """True inside a Jupyter kernel (IPython's ZMQ shell), where stderr is not the page."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _microseconds(seconds):
    return "-" if not seconds else f"{seconds * 1e6:.2f}"


def _rows(report):
    for i, task in enumerate(report.get("tasks", [])):
        trials = task.get("trials", task.get("trials_done", 0))
        total = task.get("trials_total")
        best, untuned = task.get("best_latency_s"), task.get("untuned_latency_s")
        speedup = f"{untuned / best:.2f}x" if best and untuned else "-"
        yield (task.get("index", i), task.get("name", ""), task.get("weight", 1),
               f"{trials}/{total}" if total else str(trials), _microseconds(best),
               _microseconds(untuned), speedup, "yes" if task.get("done") else "")


def render(report):
    """The report or event as an HTML table, with a caption of the job's state and trials."""
    head = ("#", "task", "weight", "trials", "best us", "untuned us", "speedup", "done")
    state = report.get("state", "tuning" if not report.get("finished") else "done")
    done = report.get("trials_done", report.get("total_trials", 0))
    total = report.get("trials_total")
    caption = f"{state}: {done}/{total} trials" if total else f"{state}: {done} trials"
    if report.get("message"):
        caption += f" ({report['message']})"
    cells = "".join(f"<th>{_html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_html.escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in _rows(report))
    return (f"<table><caption>{_html.escape(caption)}</caption><thead><tr>{cells}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


class NotebookTable:
    """One display in the notebook's output, redrawn with each report."""

    def __init__(self):
        from IPython.display import HTML, display

        self._html = HTML
        self._handle = display(HTML("<i>kiln: starting</i>"), display_id=True)

    def update(self, report):
        self._handle.update(self._html(render(report)))
