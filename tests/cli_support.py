"""What the command-line tests share: running a program's ``main`` as the shell would, checking a
refusal, and a pickle that shows whether it was ever loaded."""

from __future__ import annotations

from pathlib import Path


def run_main(main, argv: list[str], capsys) -> tuple[int, str]:
    """``main(argv)`` as the command line runs it: (exit code, stderr); argparse exits with 2."""
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    return code, capsys.readouterr().err


def assert_refused(code: int, stderr: str, *named: str, rc: int = 2, first: bool = False) -> None:
    """Exit code ``rc``, an ``error:`` line (the first thing printed, with ``first``), no traceback,
    and each of ``named`` in the message."""
    assert code == rc, stderr
    assert (stderr.startswith("error:") if first else "error:" in stderr) and "Traceback" not in stderr, stderr
    for text in named:
        assert text in stderr, (text, stderr)


class Planted:
    """A pickle that, when loaded, creates ``marker`` (as a command run by ``os.system`` would)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))
