"""The documentation site builds with ``mkdocs build --strict``: a broken reference, a docstring
griffe cannot read or a page missing from the navigation fails the suite (CI runs ``make test``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The build takes about 2 s here; a minute means something is wrong (a network fetch, a loop).
BUILD_TIMEOUT_S = 120

pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
pytest.importorskip("mkdocstrings")


def test_the_docs_build_strictly_and_hold_every_page(tmp_path):
    site = tmp_path / "site"
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    pages = {p.relative_to(site).parent.as_posix() for p in site.rglob("index.html")}
    expected = {".", "install", "qp", "conventions", "envs/balance", "envs/wall", "envs/seesaw", "training",
                "speed", "reproducibility", "reproductions", "references", "robots", "api/wbc_layer", "api/humanoid_env"}  # fmt: skip
    assert expected <= pages, sorted(expected - pages)


def test_the_api_reference_lists_every_public_name(tmp_path):
    import humanoid_env.scenarios
    import wbc_layer

    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    api = (site / "api" / "wbc_layer" / "index.html").read_text()
    # each name has its own anchor, id="wbc_layer.<module>.<name>"
    missing = [name for name in wbc_layer.__all__ if not re.search(rf'id="wbc_layer\.\w+\.{name}"', api)]
    assert not missing, missing
    envs = (site / "api" / "humanoid_env" / "index.html").read_text()
    missing = [name for name in humanoid_env.scenarios.__all__ if f'.{name}"' not in envs]
    assert not missing, missing
