"""Where downloads go and what they are called: the download folder, file names made safe
(no path, no hidden or bidirectional control characters, within the file system's limit),
never overwriting (``name-1.ext``), and publishing a finished file under its name."""

from __future__ import annotations

import mimetypes
import os
import re
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import platformdirs

from ..errors import DownloadError

_SCRIPT_EXTENSIONS = {".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".py", ".do", ".action"}
_PREFERRED_EXTENSIONS = {"image/jpeg": ".jpg", "text/plain": ".txt", "audio/mpeg": ".mp3"}


MAX_NAME_BYTES = 255  # what most file systems allow a name, in bytes


def default_download_dir() -> Path:
    """The user's download folder: ``$XDG_DOWNLOAD_DIR`` if set (an absolute path), else
    the one ``~/.config/user-dirs.dirs`` names, else ``~/Downloads`` (Windows: the
    Downloads known folder)."""
    return platformdirs.user_downloads_path()


def download_dir(dest_dir: str | os.PathLike[str] | None) -> Path:
    """``dest_dir`` (``~`` expanded) or the default download folder, as an absolute path:
    results name where the file is, whatever the working directory becomes."""
    return Path(os.path.abspath(Path(dest_dir).expanduser() if dest_dir else default_download_dir()))


def _invisible(char: str) -> bool:
    """Whether ``char`` is one Chrome replaces by ``_`` in a download's name
    (``IllegalCharacters`` in base/i18n/file_util_icu.cc) beyond the control characters
    (which cdpkit drops): a format character (the bidirectional controls among them, which
    make ``invoice\\u202etxt.exe`` show as ``invoiceexe.txt``; zero-width ones) or a
    non-character; a lone surrogate is no character either."""
    code = ord(char)
    return (
        unicodedata.category(char) in ("Cf", "Cs")
        or 0xFDD0 <= code <= 0xFDEF
        or code & 0xFFFE == 0xFFFE
    )


def _split_extension(name: str) -> tuple[str, str]:
    """``(stem, extension)``; an "extension" over 32 bytes is part of the stem."""
    stem, ext = os.path.splitext(name)
    return (name, "") if len(ext.encode()) > 32 else (stem, ext)


def _fit(stem: str, ext: str, suffix: str, limit: int) -> str:
    """``stem + suffix + ext`` in at most ``limit`` bytes of UTF-8: the stem is cut, on
    a character boundary, so that the extension and the suffix stay whole."""
    room = max(limit - len((suffix + ext).encode()), 0)
    encoded = stem.encode()
    if len(encoded) > room:
        stem = encoded[:room].decode(errors="ignore")  # drops a character cut in two
    return stem + suffix + ext


def sanitize_filename(name: str) -> str:
    """A safe file name: no path separators, no ``..``, no NUL or control characters;
    format characters (bidirectional controls, zero-width characters) and non-characters
    replaced by ``_`` as Chrome does; at most 255 bytes (extension kept). Empty if
    nothing usable is left."""
    name = "".join(
        "_" if _invisible(ch) else ch for ch in name if unicodedata.category(ch) != "Cc"
    )
    name = re.sub(r"[/\\:]+", "_", name).strip().strip(".")
    name = name.replace("..", "_")
    if len(name.encode()) > MAX_NAME_BYTES:
        name = _fit(*_split_extension(name), "", MAX_NAME_BYTES)
    return name


def _name_limit(directory: Path) -> int:
    """The longest file name ``directory``'s filesystem takes, in bytes (at most 255)."""
    try:
        return min(MAX_NAME_BYTES, os.pathconf(directory, "PC_NAME_MAX"))
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows), or no answer
        return MAX_NAME_BYTES


def _free_names(directory: Path, filename: str | None, extension: str) -> Iterator[str]:
    """The names to try, in order, for a file in ``directory``: ``filename``, then
    ``name-1.ext``, ``name-2.ext``... (the stem cut to fit the filesystem's limit, the
    extension and the number kept); with no ``filename``, ``{13-digit ms timestamp}{ext}``
    then the next milliseconds."""
    if filename:
        stem, ext = _split_extension(filename)
        limit = _name_limit(directory)
        return (_fit(stem, ext, f"-{i}" if i else "", limit) for i in range(10_000))
    start = int(time.time() * 1000)
    return (f"{start + i:013d}{extension}" for i in range(10_000))


def claim_free_name(directory: Path, filename: str, *, mode: int = 0o666) -> Path:
    """Create an empty file in ``directory`` under ``filename`` (sanitized), or the first
    free ``name-N.ext``, exclusively: an existing file is never replaced. The caller then
    writes (or atomically replaces) that file, which is its own.

    Args:
        directory: Where (created if missing).
        filename: The wanted name.
        mode: Its permissions (less the umask); 0o600 for a file holding credentials.

    Raises:
        DownloadError: Every candidate name is taken.
    """
    directory.mkdir(parents=True, exist_ok=True)
    for candidate in _free_names(directory, sanitize_filename(filename) or "file", ""):
        final = directory / candidate
        try:
            os.close(os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode))
        except FileExistsError:
            continue
        return final.resolve()
    raise DownloadError(f"No free file name left in {directory}")


def extension_for(url: str, mime_type: str | None) -> str:
    """The extension a file fetched from ``url`` as ``mime_type`` is saved with (".bin" if
    neither says; never one the system would run as a script)."""
    suffix = PurePosixPath(urllib.parse.urlsplit(url).path).suffix.lower()
    known = suffix in mimetypes.types_map or mime_type is None
    if re.fullmatch(r"\.[a-z0-9]{1,8}", suffix) and suffix not in _SCRIPT_EXTENSIONS and known:
        return suffix
    if mime_type:
        essence = mime_type.split(";")[0].strip().lower()
        guessed = _PREFERRED_EXTENSIONS.get(essence) or mimetypes.guess_extension(essence)
        if guessed:
            return guessed
    return ".bin"


def publish(part: Path, directory: Path, filename: str | None, extension: str) -> Path:
    """Give the finished ``part`` file its final name without ever replacing a file.

    With no ``filename``: ``{13-digit ms timestamp}{extension}``, the next millisecond if
    taken. With one: that name, then ``name-1.ext``, ``name-2.ext``... (see
    :func:`_free_names`).
    """
    candidates = _free_names(directory, filename, extension)
    for candidate in candidates:
        final = directory / candidate
        try:
            os.link(part, final)  # fails if the name exists: never overwrites
        except FileExistsError:
            continue
        except OSError:
            # Filesystems without hard links: claim the name exclusively, then replace.
            try:
                os.close(os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                continue
            os.replace(part, final)
            return final
        part.unlink()
        return final
    raise DownloadError(f"No free file name left in {directory}")
