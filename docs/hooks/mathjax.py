"""MkDocs hook: the site ships its own MathJax, so its formulas typeset without a network.

MathJax 3.2.2's single-file SVG build (``es5/tex-svg.js``: TeX input, SVG output, no font files to
load) comes from the npm registry's ``mathjax`` package, fetched once with ``npm pack`` into
``build/docs-vendor/`` (git-ignored, like every build output) and checked against the sha512 the
registry publishes for that tarball. Every build then adds the file, and MathJax's licence beside it,
to the site as ``assets/mathjax/``; ``mkdocs.yml`` loads it after ``javascripts/mathjax-config.js``.

A build without npm, or whose fetch fails, stops with an error saying so; a cached, checked copy is
used without npm. Concurrent builds (the test suite's) each fetch into a temporary folder of their own
and move the finished files into place, so none reads half a file.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

#: The npm package and version, and the sha512 of its tarball as the registry publishes it
#: (``npm view mathjax@3.2.2 dist.integrity``).
PACKAGE = "mathjax"
VERSION = "3.2.2"
INTEGRITY = "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw=="
#: tarball member -> (its path in the site, its sha256): a cached copy that differs is fetched again.
FILES = {
    "package/LICENSE": ("assets/mathjax/LICENSE", "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"),
    "package/es5/tex-svg.js": (
        "assets/mathjax/tex-svg.js", "d4295dc33744836935c1399feece5159577b34c5c8ffb9f1c6324cd82e03a882"
    ),
}
#: A fetch of the 6 MB tarball takes about 2 s here; this bounds a registry that does not answer [s].
NPM_TIMEOUT_S = 300


def _cache_dir(config) -> Path:
    return Path(config.config_file_path).resolve().parent / "build" / "docs-vendor" / f"{PACKAGE}-{VERSION}"


def _fetch(cache: Path) -> None:
    """Fetch the tarball with npm, check its sha512 and unpack ``FILES`` into ``cache``."""
    npm = shutil.which("npm")
    if npm is None:
        raise PluginError(
            f"the docs ship MathJax {VERSION}, fetched once from the npm registry with npm into {cache}; "
            "npm was not found: install Node.js and npm (Debian: apt-get install npm)"
        )
    cache.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache.parent, prefix=".fetch-") as tmp:
        try:
            run = subprocess.run(
                [npm, "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", tmp, "--silent"],
                cwd=tmp, capture_output=True, text=True, timeout=NPM_TIMEOUT_S,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise PluginError(f"npm pack {PACKAGE}@{VERSION} did not finish in {NPM_TIMEOUT_S} s") from exc
        tarball = Path(tmp) / f"{PACKAGE}-{VERSION}.tgz"
        if run.returncode != 0 or not tarball.is_file():
            raise PluginError(
                f"npm pack {PACKAGE}@{VERSION} failed (exit {run.returncode}), so the docs have no MathJax: "
                f"{(run.stderr or run.stdout).strip()[-2000:]}"
            )
        digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
        if digest != INTEGRITY:
            raise PluginError(f"{tarball.name} has {digest}, the registry published {INTEGRITY}: not used")
        unpacked = Path(tmp) / "unpacked"
        unpacked.mkdir()
        with tarfile.open(tarball) as archive:
            for member in FILES:
                archive.extract(member, unpacked, filter="data")
        cache.mkdir(exist_ok=True)
        for member in FILES:
            Path(unpacked, member).touch()  # npm dates every file 1985; a dirty build compares dates
            Path(unpacked, member).replace(cache / Path(member).name)


def _cached(cache: Path) -> bool:
    """Whether ``cache`` holds every file of ``FILES``, each with its sha256."""
    for member, (_, sha256) in FILES.items():
        path = cache / Path(member).name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
            return False
    return True


def on_files(files, config):
    """Add the vendored MathJax files to the site, fetching them first if the cache lacks them."""
    cache = _cache_dir(config)
    if not _cached(cache):
        _fetch(cache)
        if not _cached(cache):
            raise PluginError(f"MathJax {VERSION} from npm does not hold the files expected in {cache}")
    for member, (site_path, _) in FILES.items():
        files.append(File.generated(config, site_path, abs_src_path=str(cache / Path(member).name)))
    return files
