"""The notebook's live task table (kiln/_progress.py): the HTML drawn from a tuning report and
from a job event, escaped; outside Jupyter progress=True leaves drawing to the C++ side."""

from kiln import _progress

REPORT = {"tasks": [{"name": "fused_linear_relu", "weight": 2, "trials": 12,
                     "best_latency_s": 2e-6, "untuned_latency_s": 8e-6, "done": True},
                    {"name": "<softmax>", "weight": 1, "trials": 0,
                     "best_latency_s": None, "untuned_latency_s": None, "done": False}],
          "total_trials": 12, "finished": False}
EVENT = {"job": 3, "state": "running", "trials_done": 5, "trials_total": 64, "message": "",
         "tasks": [{"index": 0, "name": "linear2", "trials_done": 5, "trials_total": 32,
                    "best_latency_s": 1e-6, "untuned_latency_s": 3e-6, "weight": 1,
                    "done": False}]}


def test_a_report_renders_each_task_with_its_speedup():
    html = _progress.render(REPORT)
    assert html.count("<tr>") == 3  # the header and two tasks
    assert "<td>fused_linear_relu</td>" in html and "<td>4.00x</td>" in html
    assert "<td>2.00</td>" in html and "<td>8.00</td>" in html  # microseconds
    assert "&lt;softmax&gt;" in html and "<softmax>" not in html
    assert "tuning: 12 trials" in html


def test_a_job_event_renders_its_state_and_budget():
    html = _progress.render(EVENT)
    assert "running: 5/64 trials" in html
    assert "<td>5/32</td>" in html and "<td>3.00x</td>" in html


def test_outside_jupyter_nothing_is_drawn_in_python():
    assert _progress.in_notebook() is False


def test_in_jupyter_one_display_is_updated_in_place(monkeypatch):
    # A stand-in for IPython's display machinery (IPython is not a dependency): what Jupyter
    # gets is one display, created once and updated with each report.
    import sys
    import types

    class ZMQInteractiveShell:  # the class name is what in_notebook checks
        pass

    shown = []

    class Handle:
        def update(self, obj):
            shown.append(obj.data)

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: ZMQInteractiveShell()
    display = types.ModuleType("IPython.display")
    display.HTML = type("HTML", (), {"__init__": lambda self, data: setattr(self, "data", data)})
    displays = []
    display.display = lambda obj, display_id=False: displays.append(obj) or Handle()
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display)

    assert _progress.in_notebook() is True
    table = _progress.NotebookTable()
    table.update(REPORT)
    table.update(EVENT)
    assert len(displays) == 1
    assert shown == [_progress.render(REPORT), _progress.render(EVENT)]
