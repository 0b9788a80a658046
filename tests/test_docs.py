"""The documentation site builds with ``mkdocs build --strict``: a broken reference, a docstring
griffe cannot read or a page missing from the navigation fails the suite (CI runs ``make test``).

The docstrings are Markdown with autorefs cross-references (``[`Name`][package.module.Name]``), the
syntax mkdocstrings renders; a reST role or literal marker left in one would show as raw text. The
site is self-contained: its scripts and style sheets (MathJax included) are its own files. How the
pages look in a browser: ``tests/test_docs_browser.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs_site import ROOT, build_site

PACKAGES = ("wbc_layer", "humanoid_env", "training")
#: Sphinx roles (``:class:`X```) and literal-block markers (a line ending in ``::``).
REST_ROLE = re.compile(r":(?:py:)?(?:class|meth|attr|data|mod|func|exc|obj|const|ref|doc)s?:`")
REST_LITERAL_MARKER = re.compile(r"::\s*$", re.M)

pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
pytest.importorskip("mkdocstrings")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built strictly into a temporary folder."""
    return build_site(tmp_path_factory.mktemp("docs") / "site")


def test_the_docs_build_strictly_and_hold_every_page(site):
    pages = {p.relative_to(site).parent.as_posix() for p in site.rglob("index.html")}
    expected = {".", "install", "architecture", "qp", "conventions", "envs/balance", "envs/wall", "envs/seesaw", "envs/square", "envs/walk", "training",
                "speed", "reproducibility", "reproductions", "references", "robots", "api/wbc_layer",
                "api/humanoid_env", "api/training"}  # fmt: skip
    assert expected <= pages, sorted(expected - pages)


def test_the_api_reference_lists_every_public_name(site):
    import humanoid_env.scenarios
    import wbc_layer

    api = (site / "api" / "wbc_layer" / "index.html").read_text()
    # each name has its own anchor, id="wbc_layer.<module>.<name>"
    missing = [name for name in wbc_layer.__all__ if not re.search(rf'id="wbc_layer\.\w+\.{name}"', api)]
    assert not missing, missing
    envs = (site / "api" / "humanoid_env" / "index.html").read_text()
    # (min_jerk is wbc_layer.references' and documented there; the scenarios re-export it)
    missing = [name for name in humanoid_env.scenarios.__all__ if f'.{name}"' not in envs + api]
    assert not missing, missing


def test_the_api_reference_shows_no_implementation_details(site):
    """Undocumented working attributes (``add_reduce = np.add.reduce``, ``solver = self._new_solver()``)
    are not listed, and a documented instance attribute is shown without its initialiser."""
    base = (site / "api" / "humanoid_env" / "index.html").read_text()
    controller = (site / "api" / "wbc_layer" / "index.html").read_text()
    assert 'id="humanoid_env.envs.base.add_reduce"' not in base
    assert 'id="wbc_layer.controller.WholeBodyController.solver"' not in controller
    # documented ones are there, by name only
    pipeline = re.search(r'id="humanoid_env\.envs\.base\.HumanoidWBCBaseEnv\.pipeline".*?</h\d>', base, re.S)
    assert pipeline is not None
    assert "StatePipeline.assemble(" not in pipeline.group(0)


def test_cross_references_become_links(site):
    """A docstring's ``[`ControllerConfig`][wbc_layer.config.ControllerConfig]`` is a link to its entry."""
    api = (site / "api" / "humanoid_env" / "index.html").read_text()
    links = set(re.findall(r'href="\.\./wbc_layer/#(wbc_layer\.[\w.]+)"', api))
    assert "wbc_layer.config.ControllerConfig" in links, sorted(links)[:20]
    assert "[`" not in re.sub(r"<pre.*?</pre>", "", api, flags=re.S)  # no cross-reference left unresolved


def test_the_site_is_self_contained(site):
    """Every script and style sheet of every page is a file of the site (no CDN), MathJax among them."""
    external = []
    for page in site.rglob("*.html"):
        html = page.read_text()
        for url in re.findall(r'<script[^>]*\bsrc="([^"]+)"', html) + re.findall(r'<link[^>]*\bhref="([^"]+)"', html):
            if re.match(r"(?:[a-z]+:)?//", url):
                external.append(f"{page.relative_to(site)}: {url}")
    assert not external, external[:10]
    qp = (site / "qp" / "index.html").read_text()
    assert "assets/mathjax/tex-svg.js" in qp and 'class="arithmatex"' in qp
    assert (site / "assets" / "mathjax" / "tex-svg.js").stat().st_size > 1_000_000


def test_docstrings_hold_no_rest_markup():
    """No Sphinx role and no ``::`` literal marker in the three packages' sources (docstrings and
    comments): mkdocstrings would print them as text."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text()
            for match in [*REST_ROLE.finditer(text), *REST_LITERAL_MARKER.finditer(text)]:
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(ROOT)}:{line}: {text.splitlines()[line - 1].strip()[:100]}")
    assert not found, f"{len(found)} reST constructs (write [`Name`][package.module.Name], and ':' before a block):\n" + "\n".join(found[:30])
