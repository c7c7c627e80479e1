"""Errors raised on bad user input.

Every error a user can cause is an :class:`InputError`: the command line prints its one-line
message (``where: what``) and exits with code 2, without a traceback.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path


class _Located(Exception):
    """An error said in one line, ``where: what`` (``what`` alone without a place)."""

    def __init__(self, message: str, where: str | None = None) -> None:
        self.where = where
        self.what = message
        super().__init__(f"{where}: {message}" if where else message)


class InputError(_Located, ValueError):
    """Bad user input: a malformed file line, an impossible job, an unknown name, a bad key."""


class OutputError(_Located, RuntimeError):
    """The machine failed while writing a result (full disk, I/O error): the command line prints
    one line naming the file and exits with code 1; the earlier result, if any, is intact."""


class ScheduleError(RuntimeError):
    """A run whose schedule breaks an invariant (``violations``, the validator's lines): a
    policy that changed the kernel's state, or a bug. A command prints the violations and exits
    with code 1, as ``simulate`` and ``validate`` do for a broken invariant."""

    def __init__(self, violations: list[str]) -> None:
        self.violations = violations
        super().__init__(f"the schedule broke an invariant: {violations[0]}")


def check_seed(seed: int, where: str = "--seed") -> int:
    """A random seed: an integer in [0, 2**63); anything else is an :class:`InputError`."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InputError(f"a seed must be an integer from 0 to 2**63 - 1, got {seed!r}", where)
    return seed


def check_counts(where: str | None = None, must: str = ">= 1", **counts: int | None) -> None:
    """Each count ``NAME=value`` given (not None) is >= 1, else InputError "--NAME must be MUST"."""
    for name, value in counts.items():
        if value is not None and value < 1:
            raise InputError(f"--{name.replace('_', '-')} must be {must}, got {value}", where)


#: the most bytes a gzip file may decompress to: a trace of some 40 million jobs, far beyond any
#: real one; a few megabytes of gzip that decompress to more (a "gzip bomb") would exhaust the
#: memory before any line is read
MAX_GUNZIPPED = 4 << 30


#: the magic bytes (prefixes) of other compressed or archive formats, what they are and how
#: to unpack them: read as text, they were "FILE:1: has 1 field, SWF needs 18" (bzip2: "BZh",
#: the block size 1-9, then a block's or the end's magic, so no text starting "BZh" matches)
OTHER_COMPRESSIONS = (
    (tuple(b"BZh" + bytes([size]) + block for size in b"123456789"
           for block in (b"1AY&SY", b"\x17rE8P\x90")), "a bzip2-compressed file", "bunzip2 -k"),
    ((b"\xfd7zXZ\x00",), "an xz-compressed file", "unxz -k"),
    ((b"\x28\xb5\x2f\xfd",), "a zstd-compressed file", "unzstd"),
    ((b"PK\x03\x04",), "a zip archive", "unzip"),
    ((b"7z\xbc\xaf\x27\x1c",), "a 7-Zip archive", "7z x"),
    ((b"\x04\x22\x4d\x18",), "an lz4-compressed file", "unlz4"),
)  # fmt: skip


def gunzip(data: bytes, where: str) -> bytes:
    """``data`` decompressed when it is gzip (its magic bytes), else as it is; a broken gzip
    file, one decompressing to more than :data:`MAX_GUNZIPPED` bytes, or a file of another
    compression (:data:`OTHER_COMPRESSIONS`) is an :class:`InputError` naming ``where``."""
    if data[:2] != b"\x1f\x8b":
        for magic, kind, tool in OTHER_COMPRESSIONS:
            if data.startswith(magic):
                raise InputError(
                    f"{kind}: coschedlab reads plain text or gzip; unpack it first "
                    f"({tool} {where})",
                    where=where,
                )
        return data
    whole = _one_member(data)
    if whole is not None:
        return whole
    parts: list[bytes] = []
    total, rest = 0, data
    try:
        while rest:  # one gzip member after the other, as gzip.decompress reads them
            member = zlib.decompressobj(16 + zlib.MAX_WBITS)
            part = member.decompress(rest, MAX_GUNZIPPED + 1 - total)
            total += len(part)
            if total > MAX_GUNZIPPED or member.unconsumed_tail:
                raise InputError(
                    f"decompresses to more than {MAX_GUNZIPPED >> 30} GiB: not a trace (a gzip "
                    "bomb?)",
                    where=where,
                )
            if not member.eof:
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            parts.append(part)
            rest = member.unused_data
            if not rest.strip(b"\x00"):  # gzip allows zero padding after the last member
                break
    except (EOFError, zlib.error) as exc:
        raise InputError(f"broken gzip file: {exc}", where=where) from None
    return parts[0] if len(parts) == 1 else b"".join(parts)


#: more than deflate's largest expansion (~1,032 bytes out per byte in: 258-byte matches of
#: two bits each): a gzip file of at most MAX_GUNZIPPED // this bytes cannot be a "gzip bomb"
_MAX_RATIO = 2048


def _one_member(data: bytes) -> bytes | None:
    """A gzip file of one member, small enough not to be a bomb (most traces), decompressed
    into one buffer of the size its trailer gives: the general loop's output grows in blocks
    joined at the end (a second copy of the text, its pages faulted in twice). zlib checks the
    member's CRC-32 and length against its own trailer; the file's last four bytes must give
    that length (the member ends the file, but for trailing bytes that happen to end so, which
    are ignored then, as gzip does). None when not surely so (another member may start: its
    magic bytes appear after the header; another length; a broken stream): the general loop
    reads the file then, and says why it fails."""
    if len(data) < 18 or len(data) > MAX_GUNZIPPED // _MAX_RATIO:
        return None
    if data.find(b"\x1f\x8b\x08", 10) >= 0:  # (or by chance inside the deflate stream)
        return None
    size = int.from_bytes(data[-4:], "little")  # the text's length (mod 2**32)
    if size > len(data) * _MAX_RATIO:
        return None  # a trailer no stream of this length can match
    try:
        text = zlib.decompress(data, 16 + zlib.MAX_WBITS, size)
    except zlib.error:
        return None
    return text if len(text) == size else None


def refuse_device(path: str | Path) -> None:
    """An :class:`InputError` for a character or block device (``/dev/zero`` would be read
    without end); files, pipes and process substitutions pass."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # the read that follows says why
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise InputError("is a device, not a file", where=str(path))


def _ours(filename: str, package: str) -> bool:
    """Whether a traceback's file is coschedlab's: under the package, or one of its compiled
    modules (named by its ``.pyx`` path relative to the build, ``src/coschedlab/...``)."""
    if filename.endswith(".pyx") and "coschedlab" in Path(filename).parts:
        return True
    return str(Path(filename).resolve()).startswith(package)


def source_line(fn: object) -> str | None:
    """``file:line`` where function ``fn`` is defined (None when not known): what an error
    about a policy's own method names."""
    import inspect  # (only on an error's path: the light command does not load it)

    try:
        return f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"  # type: ignore[arg-type]
    except (TypeError, OSError):
        return None


def failure_where(exc: BaseException) -> str | None:
    """``file:line`` where ``exc`` was raised: the deepest frame outside coschedlab (a user's
    policy file), else the deepest frame; None without a traceback."""
    import traceback

    if isinstance(exc, SyntaxError) and exc.filename:  # raised by the parser, not a frame
        return f"{exc.filename}:{exc.lineno}"
    package = str(Path(__file__).resolve().parent)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename[:1] != "<"]
    outside = [f for f in frames if not _ours(f.filename, package)]
    frame = (outside or frames or [None])[-1]
    return f"{frame.filename}:{frame.lineno}" if frame is not None else None
