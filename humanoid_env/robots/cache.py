"""Generated model files (a robot's MJCF built from a package, its scenes), kept between runs."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def cache_dir() -> Path:
    """Where generated models are kept: ``$HUMANOID_WBC_CACHE`` or ``~/.cache/humanoid-wbc``."""
    return Path(os.environ.get("HUMANOID_WBC_CACHE") or Path.home() / ".cache" / "humanoid-wbc")


def content_key(parts: Iterable[bytes | str]) -> str:
    """16 hex digits of a hash of ``parts`` (what the file is made from): a changed source gives a
    new file name, so a stale file is never read."""
    key = hashlib.sha256()
    for part in parts:
        key.update(part.encode() if isinstance(part, str) else part)
        key.update(b"\0")
    return key.hexdigest()[:16]


def write_atomically(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file and a rename, so that processes
    building the same file at once (parallel test workers) never read a partial one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as tmp:
        tmp.write(text)
    os.replace(tmp.name, path)
    return path
