"""`python -m dcflow` and the `dcflow` console script.

The command line's modules (click, pyarrow, the extension) take a moment to
import; a Ctrl-C meanwhile is reported as one line, as one later is
(:func:`dcflow.cli.main`), not as a traceback.
"""

import sys


def run() -> None:
    try:
        from dcflow.cli import main
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)  # dcflow.cli.EXIT_INTERRUPTED, not importable here
    sys.exit(main())


if __name__ == "__main__":
    run()
