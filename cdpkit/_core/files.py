"""Writing files that hold cookies or credentials (storage state, HAR, saved sessions), or
what a user read (the media cache).

:func:`write_private` never leaves such a file readable by others, also when it replaces
one that was: the data goes to a new file created with mode 0600 beside the target, which
is then renamed over it (atomically: a reader sees the old file or the new one, never half
of one, and never the old file's permissions).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["private_dir", "write_private"]


def private_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` as a directory only its owner can enter (mode 0700), made with its
    missing parents (those made now 0700 too); an existing one is set to 0700.

    Raises:
        OSError: It could not be made, or is not a directory.
    """
    target = Path(path)
    missing: list[Path] = []
    for parent in (target, *target.parents):
        if parent.exists():
            break
        missing.append(parent)
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=0o700)
    if not target.is_dir():
        raise NotADirectoryError(f"{target} is not a directory")
    os.chmod(target, 0o700)
    return target


def write_private(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` with mode 0600, replacing it atomically.

    The parent directories are created if missing. A symbolic link at ``path`` is
    replaced, not followed.

    Raises:
        OSError: The directory could not be written.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates the file exclusively with mode 0600, whatever the umask.
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".cdpkit-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
