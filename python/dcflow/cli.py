"""The ``dcflow`` command line.

Errors in the user's input (a bad scenario, a missing file, a bad ``--set``)
print exactly one line ``error: <message>`` on stderr and exit with status 2.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from dcflow.presets import PRESETS
from dcflow.scenario import Scenario, ScenarioError, parse_set

EXIT_USAGE = 2  # bad scenario / bad arguments
EXIT_FAILURE = 1  # the run could not write its outputs, plots failed, ...
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)


class CliError(Exception):
    """A user-facing error: printed as one line, exit status ``code``."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


def _load(scenario: str, sets: Sequence[str]) -> Scenario:
    overrides = dict(parse_set(s) for s in sets)  # parse --set first: cheap, no I/O
    sc = Scenario.from_toml(scenario)
    return sc.with_overrides(overrides) if overrides else sc


_set_option = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override a scenario key; VALUE is parsed as TOML (30, 1.5, true, [1,2]) "
    "and otherwise taken as a string (d3, 25us). Repeatable.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """dcflow: simulate datacenter transports (PDQ, D3, RCP, pFabric, TCP, ...)."""


@cli.command("run")
@click.argument("scenario", metavar="SCENARIO")
@click.option("-o", "--out", "out", metavar="DIR", help="Write summary.json, flows.parquet, "
              "timeseries.parquet (when monitored) and scenario.resolved.toml into DIR.")
@_set_option
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar (it shows only on a terminal).")
def run_cmd(scenario: str, out: str | None, sets: tuple[str, ...], as_json: bool, quiet: bool) -> None:
    """Run SCENARIO (a TOML file) and print its summary."""
    from dcflow import progress
    from dcflow.result import summary_to_json
    from dcflow.run import run_scenario

    sc = _load(scenario, sets)
    if out is not None:
        # Refuse an unusable destination before simulating, not after.
        from dcflow.result import check_output_dir

        try:
            check_output_dir(out)
        except (FileExistsError, PermissionError) as e:
            raise CliError(f"-o: {e}", EXIT_USAGE) from None
    bar = progress.RunProgress() if progress.wanted(quiet) else None
    try:
        result = run_scenario(sc, bar)
    finally:
        if bar is not None:
            bar.close()
    if result.summary.get("status") == "stalled":
        click.echo(stall_warning(result), err=True)
    if out is not None:
        try:
            path = result.save(out)
        except OSError as e:
            raise CliError(f"{out}: cannot write outputs: {e.strerror or e}", EXIT_FAILURE) from None
        click.echo(f"wrote {path}", err=True)
    if as_json:
        click.echo(summary_to_json(result.summary, indent=None))
    else:
        click.echo(format_summary(result.summary, title=sc.to_dict().get("name") or scenario))


@cli.command("topo")
@click.argument("scenario", metavar="SCENARIO")
@_set_option
def topo_cmd(scenario: str, sets: tuple[str, ...]) -> None:
    """Print the hosts, switches and link names of SCENARIO's topology."""
    text = _load(scenario, sets).topo()
    click.echo(text.rstrip("\n"))


@cli.command("validate")
@click.argument("scenario", metavar="SCENARIO")
@_set_option
def validate_cmd(scenario: str, sets: tuple[str, ...]) -> None:
    """Check SCENARIO and print it with every default filled in (TOML)."""
    click.echo(_load(scenario, sets).to_toml().rstrip("\n"))


@cli.command("plot")
@click.argument("directory", metavar="DIR")
@click.option("-o", "--out", "out", metavar="OUTDIR", help="Where to write PNGs (default DIR/plots).")
def plot_cmd(directory: str, out: str | None) -> None:
    """Plot a run (`dcflow run -o DIR`) or a sweep (`dcflow sweep -o DIR`) directory (PNG and PDF)."""
    from dcflow.plot import PlotError, plot_dir

    try:
        paths = plot_dir(directory, out)
    except PlotError as e:
        raise CliError(str(e)) from None
    for p in paths:
        click.echo(f"wrote {p}")


@cli.command("export")
@click.argument("scenario", metavar="SCENARIO")
@click.option("--format", "fmt", type=click.Choice(["csv", "hpcc", "htsim", "yaps"]), required=True,
              help="csv: dcflow's trace (replays with workload.trace); hpcc: HPCC's ns-3 flow file; "
              "htsim: an htsim connection matrix; yaps: a YAPS flow trace, plus FILE.conf, the YAPS "
              "configuration of the scenario's network and protocol (docs/inputs.md).")
@click.option("-o", "--out", "out", metavar="FILE", required=True, help="The file to write.")
@click.option("--overwrite", is_flag=True, help="Replace FILE if it exists.")
@_set_option
def export_cmd(scenario: str, fmt: str, out: str, overwrite: bool, sets: tuple[str, ...]) -> None:
    """Write the flows SCENARIO generates (for its seed) as a flow file, to
    replay them in dcflow or another simulator."""
    from dcflow.result import write_file_atomically

    sc = _load(scenario, sets)
    dest = _writable_file(out, overwrite)
    files = {out: sc.export_flows(fmt)}
    if fmt == "yaps":
        files[out + ".conf"] = _yaps_config(sc, os.path.basename(dest), files[out])
    for path in files:
        if os.path.lexists(path) and not overwrite:
            raise CliError(f"-o: {path} exists; pass --overwrite to replace it")
    for path, text in files.items():
        try:
            write_file_atomically(path, text)
        except OSError as e:
            raise CliError(f"{out}: cannot write: {e.strerror or e}", EXIT_FAILURE) from None
    note = _yaps_rounding_note(sc) if fmt == "yaps" else ""
    click.echo(f"wrote {' and '.join(files)}{note}", err=True)


def _yaps_config(sc: Scenario, trace_name: str, trace: str) -> str:
    """YAPS's configuration for the scenario, reading `trace_name` from the
    directory YAPS runs in."""
    from dcflow.yaps import YapsError, config

    try:
        return config(sc.resolved(), trace_name, trace.count("\n"))
    except YapsError as e:
        raise CliError(str(e)) from None


def _yaps_rounding_note(sc: Scenario) -> str:
    """Says how many flow sizes the YAPS trace rounded up (YAPS counts whole
    packets), or nothing when none was."""
    from dcflow.yaps import MSS

    sizes = (line.split(",")[3] for line in sc.export_flows("csv").splitlines()[1:])
    rounded = sum(int(s) % MSS != 0 for s in sizes)
    return f" ({rounded:,} flow sizes rounded up to whole {MSS}-byte packets)" if rounded else ""


@cli.command("bench")
@click.argument("scenarios", nargs=-1, metavar="[SCENARIO]...")
@click.option("--repeat", default=1, show_default=True, help="Runs per scenario; the fastest counts.")
@click.option("-o", "--out", "out", metavar="FILE", help="Also write the markdown table to FILE.")
def bench_cmd(scenarios: tuple[str, ...], repeat: int, out: str | None) -> None:
    """Time scenarios (default: bench/*.toml): wall time, events/s, peak RSS."""
    from dcflow import bench

    code = bench.main([*scenarios, "--repeat", str(repeat), *(["-o", out] if out else [])])
    if code:
        raise SystemExit(code)


@cli.command("new")
@click.option("--preset", default="papers", show_default=True,
              type=click.Choice(list(PRESETS)),
              help="papers: the defaults (1 Gbps era); leafspine-40g: pFabric's 144-host leaf-spine; "
              "fattree-100g: a k = 8 fat-tree at 100 Gbps.")
@click.option("-o", "--out", "out", metavar="FILE", help="Write the scenario to FILE (default: print it).")
@click.option("--overwrite", is_flag=True, help="Replace FILE if it exists.")
def new_cmd(preset: str, out: str | None, overwrite: bool) -> None:
    """Write a complete, commented starter scenario."""
    text = PRESETS[preset]
    if out is None:
        click.echo(text, nl=False)
        return
    dest = _writable_file(out, overwrite)
    from dcflow.result import write_file_atomically

    try:
        write_file_atomically(dest, text)
    except OSError as e:
        raise CliError(f"{out}: cannot write: {e.strerror or e}", EXIT_FAILURE) from None
    click.echo(f"wrote {out} (dcflow run {out})", err=True)


def _writable_file(out: str, overwrite: bool) -> str:
    """`-o FILE` checked before any work: not a directory, not an existing
    file unless `overwrite`, in an existing directory."""
    dest = os.path.abspath(out)
    if os.path.isdir(dest):
        raise CliError(f"-o: {out} is a directory; expected a file name")
    if os.path.lexists(dest) and not overwrite:
        raise CliError(f"-o: {out} exists; pass --overwrite to replace it")
    if not os.path.isdir(os.path.dirname(dest)):
        raise CliError(f"-o: {os.path.dirname(dest)} is not a directory")
    from pathlib import Path

    from dcflow.result import check_writable

    try:
        check_writable(Path(dest).parent)
    except PermissionError as e:
        raise CliError(f"-o: {e}") from None
    return dest


@cli.command("keys")
@click.argument("section", required=False, metavar="[SECTION]")
@click.option("--markdown", is_flag=True, help="Print docs/keys.md: every section as a Markdown table.")
def keys_cmd(section: str | None, markdown: bool) -> None:
    """Every scenario key with its type, unit, default, allowed values and
    paper section. SECTION: scenario, topology, protocol, workload, flows,
    monitor, faults, fluid, stats, or a protocol name (pdq, dctcp, ...)."""
    from dcflow import keys
    from dcflow.suggest import did_you_mean

    if markdown:
        click.echo(keys.render_markdown(), nl=False)
        return
    choices = [*keys.SECTIONS, *keys.PROTOCOLS]
    if section is not None and section not in choices:
        raise CliError(f"keys: unknown section {section!r}{did_you_mean(section, choices)}; "
                       f"allowed: {', '.join(choices)}")
    click.echo(keys.render_text(keys.select(section)))


@cli.command("version")
def version_cmd() -> None:
    """Print the dcflow version."""
    from dcflow import __version__

    click.echo(__version__)


# sweep, capacity, repro (python/dcflow/cli_experiments.py: outside the
# repro package, whose import loads the whole catalog)
from dcflow.cli_experiments import add_commands as _add_experiment_commands  # noqa: E402

_add_experiment_commands(cli)


# ---------------------------------------------------------------- formatting
def stall_warning(result: Any) -> str:
    """The one line a stalled run prints on stderr (the summary says "stalled")."""
    import tomllib

    s = result.summary
    resolved = tomllib.loads(result.resolved_toml)
    stuck = s["flows_total"] - s["flows_completed"] - s["flows_terminated"]
    return (f"warning: run stalled at {s['sim_time_s']:.3f} s: {stuck} of {s['flows_total']} flows "
            f"made no progress for {resolved['stall']} under {resolved['protocol']['name']}")


def _fmt(key: str, v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, list):
        return ", ".join(map(str, v))
    if isinstance(v, bool) or isinstance(v, int):
        return f"{v:,}" if not isinstance(v, bool) else str(v)
    if isinstance(v, float):
        if key.endswith("_s"):
            return _fmt_seconds(v)
        if key in ("app_throughput", "utilization"):
            return f"{v:.4f}  ({v * 100:.2f}%)"
        return f"{v:.4g}"
    return str(v)


def _fmt_seconds(v: float) -> str:
    a = abs(v)
    if v != v:  # NaN
        return "-"
    if a == 0 or a >= 1:
        return f"{v:.4g} s"
    if a >= 1e-3:
        return f"{v * 1e3:.4g} ms"
    if a >= 1e-6:
        return f"{v * 1e6:.4g} us"
    return f"{v * 1e9:.4g} ns"


def format_summary(summary: dict[str, Any], title: str | None = None) -> str:
    """A readable two-column table of the summary (docs/outputs.md key order)."""
    from dcflow.result import SUMMARY_KEYS

    from dcflow.sweep import BUCKET_STATS, bucket_column

    labels = summary.get("size_buckets") or []
    per_bucket = {bucket_column(stat, label) for stat in BUCKET_STATS for label in labels} | {"size_buckets"}
    keys = [k for k in SUMMARY_KEYS if k in summary] + sorted(k for k in summary if k not in SUMMARY_KEYS)
    keys = [k for k in keys if k not in per_bucket]
    width = max((len(k) for k in keys), default=0)
    lines = [f"summary: {title}"] if title else []
    lines += [f"  {k:<{width}}  {_fmt(k, summary[k])}" for k in keys]
    if labels:
        lines.append("  size_buckets (slowdown of completed flows: mean / p50 / p99)")
        lw = max(len(label) for label in labels)
        for label in labels:
            b = {stat: summary.get(bucket_column(stat, label)) for stat in BUCKET_STATS}
            stats = " / ".join(_fmt(k, b[k]) for k in ("slowdown_mean", "slowdown_p50", "slowdown_p99"))
            counts = f"{b['completed']:,} of {b['flows']:,} flows"
            lines.append(f"    {label:<{lw}}  {counts:<22}  {stats}")
    return "\n".join(lines)


# ---------------------------------------------------------------------- main
_NoArgsIsHelp = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click >= 8.2

def _error(message: str, code: int) -> int:
    sys.stdout.flush()
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    return code


def _interrupted(e: BaseException | None, args: Sequence[str]) -> str:
    """The Ctrl-C line, with what was kept when the interrupted work says
    (a sweep: "k of N points saved", and how `dcflow sweep` goes on)."""
    if not hasattr(e, "saved"):  # dcflow.sweep.SweepInterrupted
        return "interrupted"
    how = "; rerun with --resume" if args[:1] == ["sweep"] else ""
    return f"interrupted: {e}{how}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dcflow`` console script; returns the exit status."""
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        rv = cli.main(args=args, prog_name="dcflow", standalone_mode=False)
    except ScenarioError as e:
        return _exit(_error(str(e), EXIT_USAGE), argv)
    except CliError as e:
        return _exit(_error(str(e), e.code), argv)
    except _NoArgsIsHelp as e:  # bare `dcflow`: show help, like --help
        click.echo(e.ctx.get_help() if getattr(e, "ctx", None) else str(e))
        return _exit(0, argv)
    except click.ClickException as e:  # usage errors: unknown option, missing argument
        return _exit(_error(e.format_message(), e.exit_code or EXIT_USAGE), argv)
    except click.exceptions.Abort as e:  # click's form of Ctrl-C
        return _exit(_error(_interrupted(e.__cause__, args), EXIT_INTERRUPTED), argv)
    except KeyboardInterrupt as e:
        return _exit(_error(_interrupted(e, args), EXIT_INTERRUPTED), argv)
    except BrokenPipeError:
        return _exit(0, argv)
    code = rv if isinstance(rv, int) else 0
    return _exit(code, argv)


def _exit(code: int, argv: Sequence[str] | None) -> int:
    if argv is None:  # called as the console script
        sys.exit(code)
    return code


if __name__ == "__main__":
    main()
