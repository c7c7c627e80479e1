"""``errors.gunzip``: a gzip file of one member is decompressed in one buffer of its final
size; every other file (several members, padding, trailing bytes, a broken stream) goes
through the member loop, with the same bytes or the same error as before."""

from __future__ import annotations

import gzip
import zlib

import pytest

from coschedlab import errors
from coschedlab.errors import InputError, gunzip

TEXT = b"".join(b"%d 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n" % i for i in range(5_000))


class _NoLoop:
    """zlib as the loop would use it, its decompressobj refused: only the one-buffer path."""

    MAX_WBITS = zlib.MAX_WBITS
    error = zlib.error
    decompress = staticmethod(zlib.decompress)

    @staticmethod
    def decompressobj(*a, **k):
        raise AssertionError("the member loop was used")


@pytest.mark.parametrize("text", [TEXT, b"", b"x", TEXT[:1000] * 3])
@pytest.mark.parametrize("level", [0, 1, 9])
def test_one_member_is_read_in_one_buffer(monkeypatch, text, level):
    data = gzip.compress(text, compresslevel=level, mtime=0)
    monkeypatch.setattr(errors, "zlib", _NoLoop)
    assert gunzip(data, "t.gz") == text


@pytest.mark.parametrize(
    "data",
    [
        gzip.compress(TEXT, mtime=0) * 2,  # two equal members: the trailer matches the first
        gzip.compress(TEXT[:700], mtime=0) + gzip.compress(TEXT, mtime=0),
        gzip.compress(TEXT, mtime=0) + b"\0" * 100,  # zero padding after the last member
    ],
)
def test_other_files_give_what_gzip_gives(data):
    assert gunzip(data, "t.gz") == gzip.decompress(data)
    assert errors._one_member(data) is None  # not taken for one member


def test_an_empty_member_and_padding():
    data = gzip.compress(b"", mtime=0) + b"\0" * 8  # the padding reads as its trailer: b""
    assert gunzip(data, "t.gz") == gzip.decompress(data) == b""


@pytest.mark.parametrize(
    "data",
    [
        gzip.compress(TEXT, mtime=0) + b"garbage!",  # trailing bytes: not a member
        gzip.compress(TEXT, mtime=0)[:-9] + b"\0" * 9,  # a broken stream or trailer
        gzip.compress(TEXT, mtime=0)[:-8] + b"\0" * 4 + len(TEXT).to_bytes(4, "little"),
        gzip.compress(TEXT, mtime=0)[:-3],  # cut short
    ],
)
def test_broken_files_are_still_refused(data):
    with pytest.raises(InputError, match="broken gzip file"):
        gunzip(data, "t.gz")


def test_a_trailer_of_a_size_no_stream_could_reach_is_not_trusted():
    data = bytearray(gzip.compress(TEXT, mtime=0))
    data[-4:] = (2**32 - 1).to_bytes(4, "little")  # 4 GiB claimed: no buffer of that size
    assert errors._one_member(bytes(data)) is None
    with pytest.raises(InputError, match="broken gzip file"):
        gunzip(bytes(data), "t.gz")
