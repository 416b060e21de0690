"""What a person at a terminal meets: a sweep's progress bar, and Ctrl-C on
a sweep and during start-up (README "Sweeps": --resume)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import sigint_as_on_a_terminal, stderr_on_a_terminal, write

#: Four quick points (10 KB and 20 KB flows, two seeds), then two of a 20 GB
#: flow (minutes): with one worker the quick ones finish first, in order.
SLOW_TAIL = """
[base]
name = "tail"
[base.topology]
kind = "star"
hosts = 2
[base.protocol]
name = "tcp"
[base.workload]
pattern = "aggregation"
flows = 1
[grid]
"workload.size" = [{dist = "fixed", value = "10KB"}, {dist = "fixed", value = "20KB"},
                   {dist = "fixed", value = "20GB"}]
[seeds]
count = 2
"""

QUICK = SLOW_TAIL.replace('{dist = "fixed", value = "20GB"}', '{dist = "fixed", value = "30KB"}')

needs_pty = pytest.mark.skipif(not Path("/dev/ptmx").exists(), reason="needs pseudo-terminals")


@needs_pty
def test_a_sweep_shows_points_done_with_an_eta_on_a_terminal(tmp_path):
    sweep = write(tmp_path, QUICK, "sweep.toml")
    code, err = stderr_on_a_terminal(["sweep", str(sweep), "-o", str(tmp_path / "out"), "--workers", "1"], 0)
    assert code == 0, err
    bars = re.findall(r"tail: +(\d+)%\|.*?\| (\d)/6 \[\d\d:\d\d<([\d:?]+)", err)
    assert bars[0][:2] == ("0", "0"), err  # drawn before any point finishes
    assert bars[-1][:2] == ("100", "6") and re.fullmatch(r"\d\d:\d\d", bars[-1][2]), err


def _wait_for(condition, proc: subprocess.Popen | None, what: str, limit_s: float = 120) -> None:
    """Poll `condition` until it holds; fail if `proc` ends first or after `limit_s`."""
    end = time.monotonic() + limit_s
    while not condition():
        assert proc is None or proc.poll() is None, f"the sweep ended before {what}: {proc.communicate()[1]}"
        assert time.monotonic() < end, f"no {what} after {limit_s} s"
        time.sleep(0.05)


@pytest.mark.parametrize("who,executor", [("group", "local"), ("parent", "local"), ("group", "dask")])
def test_ctrl_c_stops_a_sweep_at_once_keeping_finished_points(who, executor, tmp_path):
    """Ctrl-C in a terminal signals the whole process group; `kill -INT`
    only the parent. Either way the sweep stops within a second or so
    (the 20 GB points take minutes), keeps the four finished points and
    says how to go on."""
    sweep = write(tmp_path, SLOW_TAIL, "sweep.toml")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "dcflow", "sweep", str(sweep), "-o", str(out), "--workers", "1",
                             "--executor", executor],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=sigint_as_on_a_terminal)
    points = out / "points"
    _wait_for(lambda: points.is_dir() and len(list(points.glob("*.parquet"))) == 4, proc, "four points")
    sent = time.monotonic()
    if who == "group":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    assert proc.returncode == 130, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines[-1] == "error: interrupted: 4 of 6 points saved; rerun with --resume", stderr
    assert "Traceback" not in stderr
    assert len(list(points.glob("*.parquet"))) == 4
    assert took < 5, f"stopped {took:.1f} s after SIGINT"
    # No worker left behind: the session empties (multiprocessing's resource
    # tracker leaves once it reads the end of its pipe).
    _wait_for(lambda: _session(proc.pid) == [], None, "empty session", 30)


def _session(sid: int) -> list[str]:
    ps = subprocess.run(["ps", "-o", "pid=,args=", "-s", str(sid)], capture_output=True, text=True)
    return ps.stdout.splitlines()


def test_ctrl_c_during_start_up_is_one_line(tmp_path):
    """SIGINT while the command line's modules import (-X importtime
    reports each as it is imported: click is one of them)."""
    scenario = write(tmp_path, "[workload]\nflows = 2\n", "s.toml")
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "dcflow", "run", str(scenario)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_as_on_a_terminal)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if re.search(r"\|\s+click$", line):
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.stderr.read()
    proc.wait(timeout=60)
    lines = [line for line in rest.splitlines() if line.strip() and not line.startswith("import time:")]
    assert seen and "click" in seen[-1], "click was never imported"
    assert proc.returncode == 130 and lines == ["error: interrupted"], rest
