"""Building the documentation site for the docs tests (``test_docs``, ``test_docs_browser``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The build takes about 4 s here (the first one also fetches MathJax from npm, about 2 s); a minute
#: means something is wrong (a registry that does not answer, a loop).
BUILD_TIMEOUT_S = 120


def build_site(site: Path) -> Path:
    """``mkdocs build --strict`` of the repository into ``site``; the build's output in the failure."""
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    return site
