"""Framing between ``benchmarks.placo_g1`` and its workers (``benchmarks/placo_worker.py``,
``benchmarks/tsid_worker.py``), and the workers' command loop (:func:`serve`).

Each worker runs in its own virtualenv (``.venv-placo``: PlaCo pins ``pin==3.8.0``;
``.venv-tsid``: TSID is built against ``pin==4.0.0``; ours is ``pin==4.1.0``), so this module
needs only the standard library and numpy, and both sides import it: ours as
``benchmarks.worker_protocol``, a worker as ``worker_protocol`` (its own folder is on its
``sys.path``).

A message is a dict of JSON values and numpy arrays. On the wire (a binary pipe)::

    u32 big-endian  length of the header
    header          UTF-8 JSON: {"fields": {...JSON values...}, "arrays": [[name, nbytes], ...]}
    for each array  its ``.npy`` bytes (numpy's format: dtype, shape and order in the bytes)

Arrays travel bit for bit (``.npy`` keeps the dtype), so timings and torques come back exact.
``allow_pickle`` is off on both sides: only plain numeric arrays are accepted.
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy as np

_LENGTH = struct.Struct(">I")
#: Largest header accepted [bytes]: a header only holds names, sizes and small settings; a
#: larger length means the stream is out of step (e.g. something printed on the worker's stdout).
MAX_HEADER_BYTES = 1 << 24


class ProtocolError(RuntimeError):
    """The stream ended inside a message, or held something that is not a message."""


def encode(message: dict[str, Any]) -> bytes:
    """The bytes of ``message``: numpy arrays go as ``.npy`` blobs, everything else as JSON."""
    fields: dict[str, Any] = {}
    blobs: list[tuple[str, bytes]] = []
    for name, value in message.items():
        if not isinstance(name, str):
            raise ProtocolError(f"message keys must be strings, got {name!r}")
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise ProtocolError(f"array {name!r} holds Python objects; only numeric arrays travel")
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, value, allow_pickle=False)
            blobs.append((name, buffer.getvalue()))
        else:
            fields[name] = value
    header = json.dumps({"fields": fields, "arrays": [[name, len(blob)] for name, blob in blobs]}).encode()
    return b"".join([_LENGTH.pack(len(header)), header, *(blob for _, blob in blobs)])


def write_message(stream: BinaryIO, message: dict[str, Any]) -> None:
    """Write one message and flush."""
    stream.write(encode(message))
    stream.flush()


def _read_exactly(stream: BinaryIO, size: int, what: str) -> bytes:
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise ProtocolError(f"stream ended inside {what} ({size - left} of {size} bytes)")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message, or None if the stream ends cleanly between messages."""
    first = stream.read(_LENGTH.size)
    if not first:
        return None
    if len(first) < _LENGTH.size:
        first += _read_exactly(stream, _LENGTH.size - len(first), "a length prefix")
    (length,) = _LENGTH.unpack(first)
    if length > MAX_HEADER_BYTES:
        raise ProtocolError(
            f"header of {length} bytes (at most {MAX_HEADER_BYTES}): the stream is out of step"
        )
    try:
        header = json.loads(_read_exactly(stream, length, "a header"))
        fields, arrays = header["fields"], header["arrays"]
    except (ValueError, KeyError, TypeError) as err:
        raise ProtocolError(f"not a message header: {err}") from err
    message = dict(fields)
    for name, size in arrays:
        blob = _read_exactly(stream, int(size), f"array {name!r}")
        try:
            message[name] = np.lib.format.read_array(io.BytesIO(blob), allow_pickle=False)
        except ValueError as err:
            raise ProtocolError(f"array {name!r} is not a numeric .npy blob: {err}") from err
    return message


def serve(setup: Callable[[dict[str, Any]], Any]) -> None:
    """A worker's loop: answer each message on stdin on stdout until ``quit`` or the end of input.

    ``setup(message)`` builds the worker from the ``setup`` message; the worker answers ``setup``
    with ``describe()`` and the other commands with ``model_terms(q, v, frames)``,
    ``solve(q, v, extra_force)`` and ``time(q, v, extra_force)``. An error answers
    ``{"error": traceback}`` and the loop goes on.
    """
    # NOTE: the protocol owns the real stdout; anything a library prints goes to stderr, where
    # it cannot break the framing.
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    stdin = sys.stdin.buffer
    worker = None
    while True:
        message = read_message(stdin)
        if message is None or message.get("cmd") == "quit":
            break
        try:
            cmd = message["cmd"]
            if cmd == "setup":
                worker = setup(message)
                reply = worker.describe()
            elif worker is None:
                raise RuntimeError(f"{cmd!r} before 'setup'")
            elif cmd == "model":
                reply = worker.model_terms(message["q"], message["v"], list(message["frames"]))
            elif cmd == "solve":
                reply = worker.solve(message["q"], message["v"], message["extra_force"])
            elif cmd == "time":
                reply = worker.time(message["q"], message["v"], message["extra_force"])
            else:
                raise ValueError(f"unknown command {cmd!r}; valid: setup, model, solve, time, quit")
        except Exception:
            reply = {"error": traceback.format_exc()}
        write_message(protocol_out, reply)
