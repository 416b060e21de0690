"""Shared helpers: small scenarios and a CLI runner (a real child process,
so exit codes, stdout and stderr are exactly what a user sees)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: A small, fast scenario: 4 senders -> host 0 through one switch.
SMALL = """
name = "small"
seed = 1

[topology]
kind = "star"
hosts = 5
link_rate = "1Gbps"

[protocol]
name = "rcp"

[workload]
pattern = "aggregation"
flows = 4
size = { dist = "uniform", min = "2KB", max = "50KB" }
deadline = { dist = "exponential", mean = "20ms", min = "3ms" }
"""

MONITOR = """
[monitor]
interval = "100us"
links = ["bottleneck"]
flows = true
"""

#: Two explicit flows; tests patch single keys of it to make errors.
EXPLICIT = """
name = "explicit"
seed = 1

[topology]
kind = "star"
hosts = 4
link_rate = "1Gbps"

[protocol]
name = "tcp"

[workload]
pattern = "explicit"

[[flows]]
src = 1
dst = 0
size = "20KB"
start = "0ms"

[[flows]]
src = 2
dst = 0
size = "10KB"
start = "0ms"
deadline = "10ms"
"""


def write(tmp_path: Path, text: str, name: str = "scenario.toml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


@pytest.fixture
def small(tmp_path: Path) -> Path:
    return write(tmp_path, SMALL, "small.toml")


@pytest.fixture
def small_monitored(tmp_path: Path) -> Path:
    return write(tmp_path, SMALL + MONITOR, "small_monitored.toml")


def dcflow(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m dcflow ARGS...` and capture its output."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "dcflow", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=120)


def modules_loaded_by(code: str, modules: tuple[str, ...]) -> list[str]:
    """Run `code` in a fresh interpreter; which of `modules` it imported."""
    probe = f"\nimport sys\nprint('loaded:', *(m for m in {modules!r} if m in sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", code + probe], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[-1].split()[1:]


def stderr_on_a_terminal(args: list[str], columns: int = 100) -> tuple[int, str]:
    """Run `dcflow ARGS` with stderr on a pseudo-terminal `columns` wide (0:
    a terminal that reports no size, as `script -c` opens outside a terminal)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24 if columns else 0, columns, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "dcflow", *args], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    proc.communicate(timeout=120)
    os.close(master)
    return proc.returncode, seen.decode(errors="replace")


def sigint_as_on_a_terminal() -> None:
    """`preexec_fn` for a child the test interrupts: SIGINT's default action,
    as in a terminal's foreground job. A suite started in the background
    (`make test &`, some CI runners) inherits SIGINT ignored, and so would
    every child, which Ctrl-C could then never stop."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
