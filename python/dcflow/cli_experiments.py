"""CLI commands for experiments: ``dcflow sweep``, ``dcflow capacity`` and
``dcflow repro``; registered on the main group by :func:`add_commands`."""

from __future__ import annotations

import sys

import click


def add_commands(group: click.Group) -> None:
    from dcflow.cli import EXIT_FAILURE, EXIT_USAGE, CliError, _load, _set_option

    @group.command("sweep")
    @click.argument("sweep_file", metavar="SWEEP.toml")
    @click.option("-o", "--out", "out", required=True, metavar="DIR",
                  help="Output directory: points.parquet, flows/, points/ (one file per finished point).")
    @click.option("--executor", type=click.Choice(["local", "dask", "inline"]), default="local",
                  show_default=True, help="local: a process pool; dask: a Dask LocalCluster "
                  "(or the scheduler at --address); inline: this process.")
    @click.option("--address", metavar="ADDR", help="Join the Dask scheduler at ADDR (tcp://host:8786).")
    @click.option("--workers", type=click.IntRange(min=1), metavar="N",
                  help="Worker processes (default: all cores).")
    @click.option("--resume", is_flag=True, help="Run only the points missing from DIR.")
    @click.option("--overwrite", is_flag=True, help="Clear a previous sweep in DIR first.")
    @click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
                  help="Stop a point after SECONDS of wall time; its status is \"timeout\".")
    def sweep_cmd(sweep_file, out, executor, address, workers, resume, overwrite, timeout):
        """Run a sweep: a base scenario x a grid of overrides x seeds."""
        from dcflow.sweep import Sweep, SweepError, format_failures

        if address and executor != "dask":
            executor = "dask"
        try:
            sw = Sweep.from_toml(sweep_file)
            click.echo(f"{sw.name or 'sweep'}: {len(sw)} points ({len(sw) // len(sw.seeds)} grid "
                       f"points x {len(sw.seeds)} seeds), executor {executor}", err=True)
            res = sw.run(out, executor=executor, workers=workers, address=address, resume=resume,
                         overwrite=overwrite, timeout=timeout)
        except SweepError as e:
            raise CliError(str(e)) from None
        except OSError as e:
            raise CliError(f"{out}: {e.strerror or e}", EXIT_FAILURE) from None
        done = res.points.num_rows - len(res.failures)
        click.echo(f"wrote {res.directory / 'points.parquet'}: {done} ok, {len(res.failures)} failed "
                   f"({res.ran} run now, {res.skipped} already done)", err=True)
        from dcflow.sweep_table import results_table

        _print_rows(results_table(res.points))
        if res.failures:
            click.echo(f"error: {len(res.failures)} of {res.points.num_rows} points failed:", err=True)
            click.echo(format_failures(res.failures), err=True)
            return EXIT_FAILURE
        return 0

    @group.command("capacity")
    @click.argument("scenario", metavar="SCENARIO")
    @click.option("--param", default="workload.flows", show_default=True,
                  help="Dotted key to search (a flow count, or workload.rate).")
    @click.option("--lo", type=float, default=1, show_default=True)
    @click.option("--hi", type=float, default=64, show_default=True)
    @click.option("--target", type=float, default=0.99, show_default=True)
    @click.option("--seeds", type=click.IntRange(min=1), default=5, show_default=True,
                  help="Seeds 1..N per probed value.")
    @click.option("--metric", default="app_throughput", show_default=True, help="A summary key.")
    @click.option("--agg", type=click.Choice(["mean", "min"]), default="mean", show_default=True,
                  help="mean over seeds, or min: every seed must meet the target.")
    @click.option("--direction", type=click.Choice(["ge", "le"]), default=None,
                  help="metric >= target (default for throughputs) or <= (default for fct_*, slowdown_*).")
    @click.option("--tol", type=float, default=None, help="Stop when hi - lo <= TOL (real parameters).")
    @click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
                  help="Run each probe's seeds in N processes.")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    @_set_option
    def capacity_cmd(scenario, param, lo, hi, target, seeds, metric, agg, direction, tol, workers,
                     as_json, sets):
        """The largest PARAM value at which METRIC (over seeds) stays >= TARGET, by bisection."""
        import json

        from dcflow.capacity import capacity, default_direction

        sc = _load(scenario, sets)
        direction = direction or default_direction(metric)
        integer = lo.is_integer() and hi.is_integer() and param.endswith("flows")
        echo = (lambda p: None) if as_json else (
            lambda p: click.echo(f"  {param} = {int(p.value) if integer else p.value:<10g} {metric} = "
                                 f"{p.metric:.4f}  {'pass' if p.ok else 'FAIL'}"))
        if not as_json:
            click.echo(f"capacity: largest {param} in [{lo:g}, {hi:g}] with {agg} {metric} "
                       f"{'<=' if direction == 'le' else '>='} {target} over {seeds} seeds")
        try:
            r = capacity(sc, param, int(lo) if integer else lo, int(hi) if integer else hi, target,
                         seeds, metric, agg=agg, direction=direction, integer=integer, tol=tol,
                         workers=workers, on_probe=echo)
        except ValueError as e:
            raise CliError(str(e), EXIT_USAGE) from None
        if as_json:
            click.echo(json.dumps({"param": r.param, "metric": r.metric, "target": r.target,
                                   "agg": r.agg, "direction": r.direction, "value": r.value,
                                   "bounded": r.bounded,
                                   "trace": [{"value": p.value, "metric": p.metric, "per_seed": p.per_seed,
                                              "ok": p.ok} for p in r.trace]}))
        else:
            click.echo(r.describe())

    @group.group("repro", invoke_without_command=True)
    @click.pass_context
    def repro_group(ctx):
        """The papers' tables and figures: `dcflow repro list`, `dcflow repro run NAME -o DIR`."""
        if ctx.invoked_subcommand is None:
            click.echo(ctx.get_help())

    @repro_group.command("list")
    @click.option("-v", "--verbose", is_flag=True, help="Also print settings notes and why entries are pending.")
    def repro_list(verbose):
        """List the catalog, sorted by name: status (ready / pending), figure, title."""
        from dcflow.repro import availability, listing

        for e, line in listing():
            click.echo(line)
            if verbose and e is not None:
                if e.notes:
                    click.echo(f"    {e.notes}")
                for d in availability(e)[1]:
                    click.echo(f"    missing: {d}")

    @repro_group.command("run")
    @click.argument("name")
    @click.option("-o", "--out", "out", metavar="DIR", help="Output directory (default repro-out/NAME).")
    @click.option("--quick", is_flag=True, help="Fewer seeds and x values: seconds, for CI.")
    @click.option("--executor", type=click.Choice(["local", "dask", "inline"]), default="local",
                  show_default=True)
    @click.option("--address", metavar="ADDR", help="Join the Dask scheduler at ADDR.")
    @click.option("--workers", type=click.IntRange(min=1), metavar="N")
    def repro_run(name, out, quick, executor, address, workers):
        """Run catalog entry NAME: DIR/NAME.csv, DIR/NAME.png and the raw outputs."""
        from dcflow.repro import PendingError, ReproError, get, run_entry

        try:
            get(name)
            res = run_entry(name, out or f"repro-out/{name}", quick=quick,
                            executor="dask" if address else executor, workers=workers, address=address)
        except PendingError as e:
            raise CliError(str(e), EXIT_USAGE) from None
        except ReproError as e:
            raise CliError(str(e), EXIT_USAGE) from None
        click.echo(f"wrote {res['csv']}")
        click.echo(f"wrote {res['png']}")
        _print_rows(res["rows"])
        if res["failures"]:
            click.echo(f"error: {len(res['failures'])} runs of {name} failed:", err=True)
            for f in res["failures"][:20]:
                click.echo(f"  {f}", err=True)
            return EXIT_FAILURE
        return 0

    # `dcflow repro NAME ...` as a shorthand for `dcflow repro run NAME ...`.
    orig_resolve = repro_group.resolve_command

    def resolve_command(ctx, args):
        if args and args[0] not in repro_group.commands and not args[0].startswith("-"):
            args = ["run", *args]
        return orig_resolve(ctx, args)

    repro_group.resolve_command = resolve_command  # type: ignore[method-assign]


def _print_rows(rows) -> None:
    if not rows:
        return
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]

    def f(v):
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    table = [keys] + [[f(r.get(k)) for k in keys] for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(keys))]
    for row in table:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    sys.stdout.flush()
