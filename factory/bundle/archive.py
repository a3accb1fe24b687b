"""The bundle's tarball, written reproducibly and read back carefully.

Written: one top folder `<name>-<version>/`, regular files only, in path order, each with the same
mtime (the world's frozen date, midnight UTC), owner 0:0 with empty owner names, mode 0644; gzip
with mtime 0, no file name and level 9. The same files give the same bytes on any machine with the
same zlib.

Read: every member must be a regular file (or a folder) under the one top folder, with a relative
path that stays inside it; a link, a device, an absolute path or `..` is refused by name.
"""

from __future__ import annotations

import datetime as dt
import gzip
import io
import os
import tarfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from factory.bundle.errors import BundleError, BundleRejected

FILE_MODE = 0o644
GZIP_LEVEL = 9


def frozen_mtime(today: str) -> int:
    """The world's frozen date (`YYYY-MM-DD`) as seconds since the epoch, at midnight UTC."""
    try:
        day = dt.date.fromisoformat(today)
    except ValueError as exc:
        raise BundleError(f"spec.json: today {today!r} is not a YYYY-MM-DD date") from exc
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp())


def write_tarball(target: Path, top: str, files: Mapping[str, bytes], mtime: int) -> None:
    """`files` (bundle-relative path → bytes) as `target`, written whole or not at all."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with partial.open("wb") as raw, \
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=GZIP_LEVEL) as zipped, \
                tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path in sorted(files):
                data = files[path]
                info = tarfile.TarInfo(f"{top}/{path}")
                info.size, info.mtime, info.mode = len(data), mtime, FILE_MODE
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.type = tarfile.REGTYPE
                tar.addfile(info, io.BytesIO(data))
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def read_tarball(path: Path) -> tuple[str, dict[str, bytes]]:
    """The top folder's name and every file under it (bundle-relative path → bytes)."""
    if not path.is_file():
        raise BundleError(f"{path}: no such bundle file")
    files: dict[str, bytes] = {}
    tops: set[str] = set()
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            for member in tar:
                name = PurePosixPath(member.name)
                if name.is_absolute() or ".." in name.parts or not name.parts:
                    raise BundleRejected(f"{path}: member {member.name!r} points outside the bundle")
                if not (member.isfile() or member.isdir()):
                    raise BundleRejected(f"{path}: member {member.name!r} is not a regular file (links and devices "
                                         "are refused)")
                tops.add(name.parts[0])
                if member.isfile():
                    if len(name.parts) < 2:
                        raise BundleRejected(f"{path}: file {member.name!r} is outside the bundle's top folder")
                    rel = PurePosixPath(*name.parts[1:]).as_posix()
                    if rel in files:
                        raise BundleRejected(f"{path}: {rel} appears twice in the bundle")
                    extracted = tar.extractfile(member)
                    assert extracted is not None  # a regular file always has a body
                    files[rel] = extracted.read()
    except (tarfile.TarError, EOFError, OSError, gzip.BadGzipFile) as exc:
        raise BundleRejected(f"{path}: not a readable .tar.gz bundle ({type(exc).__name__}: {exc})") from exc
    if len(tops) != 1:
        raise BundleRejected(f"{path}: a bundle has one top folder, found {sorted(tops) or 'none'}")
    return tops.pop(), files


def unpack(files: Mapping[str, bytes], root: Path) -> Path:
    """Write `files` (already read and checked) under `root`; `root`."""
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root
