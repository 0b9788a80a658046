"""Generated model files (a robot's MJCF built from a package, its scenes), kept between runs.

Each file is written through a temporary file and a rename (readers never see part of one; the
temporary file is removed on any failure) with a first line that stamps a hash of the rest, so a
file cut short or changed later is found and rebuilt ([`cached_file`][humanoid_env.robots.cache.cached_file], with a
[`ModelCacheWarning`][humanoid_env.robots.cache.ModelCacheWarning] naming it) instead of breaking every later run with a parse error.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import warnings
from collections.abc import Iterable
from pathlib import Path

#: The first line of a cached file: an XML comment holding 16 hex digits of the rest's sha256.
_STAMP = re.compile(r"<!-- humanoid-wbc cache: content sha256 ([0-9a-f]{16}) -->\n")


class ModelCacheError(OSError):
    """A generated model file cannot be written: the message names the folder and ``HUMANOID_WBC_CACHE``."""


class ModelCacheWarning(UserWarning):
    """A cached model file was damaged (or from a version without its stamp) and is being rebuilt."""


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


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cached_file_problem(path: Path) -> str | None:
    """Why the cached file ``path`` cannot be used (None: it can): unreadable, no stamp, or a text
    that does not hash to its stamp. Reads and hashes the file (tens of kB: well under a millisecond)."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        return f"cannot read it ({type(err).__name__}: {err})"
    match = _STAMP.match(text)
    if match is None:
        return "it has no content stamp (damaged, or written by an older version)"
    if _text_hash(text[match.end() :]) != match[1]:
        return "its content does not match its stamp (cut short or changed)"
    return None


def cached_file(path: Path) -> Path | None:
    """``path`` if it holds a sound cached file; None if it is absent or damaged (then with a
    [`ModelCacheWarning`][humanoid_env.robots.cache.ModelCacheWarning] naming it and why: the caller builds it again)."""
    if not path.exists():
        return None
    problem = cached_file_problem(path)
    if problem is None:
        return path
    warnings.warn(f"rebuilding the cached model file {path}: {problem}", ModelCacheWarning, stacklevel=3)
    return None


def write_cached_file(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` under its stamp line, through a temporary file in the same folder
    and a rename, so that processes building the same file at once (parallel test workers) never
    read a partial one; the temporary file is removed on any failure. Raises
    [`ModelCacheError`][humanoid_env.robots.cache.ModelCacheError] naming the folder and ``HUMANOID_WBC_CACHE`` when it cannot be written."""
    folder = path.parent
    temporary = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=path.name, suffix=".tmp")
        with os.fdopen(handle, "w") as file:
            file.write(f"<!-- humanoid-wbc cache: content sha256 {_text_hash(text)} -->\n{text}")
        os.replace(temporary, path)
    except OSError as err:
        error = ModelCacheError(_cache_error_message(folder, err))
        error.errno = err.errno
        raise error from err
    finally:
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
    return path


def _cache_error_message(folder: Path, err: OSError) -> str:
    setting = os.environ.get("HUMANOID_WBC_CACHE")
    chosen = f"HUMANOID_WBC_CACHE={setting!r}" if setting else "the default: HUMANOID_WBC_CACHE is not set"
    return (
        f"cannot write the model cache in {folder} ({chosen}): {err.strerror or err}; "
        "set HUMANOID_WBC_CACHE to a writable folder with free space"
    )
