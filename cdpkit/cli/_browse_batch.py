"""``cdpkit browse --batch FILE``: many URLs through one engine, one JSON line each.

The URLs (one a line; blank lines and ``#`` comments skipped; ``-`` reads stdin) are
browsed concurrently over one :class:`cdpkit.Engine` (``--concurrency`` at once): tier-1
pages are plain HTTP requests, tier-2/3 pages share the engine's one browser, launched
(or attached, or leased from a grid) the first time a page needs it. Each URL gives one
line on stdout, in input order, written as soon as it and every URL before it are done:
``{"url", "ok": true, ...BrowseResult.to_dict()}`` or ``{"url", "ok": false, "error":
{"code", "message", "recoverable", "suggestion"}}``. One URL failing never stops the
others; the exit status is 0 when every URL succeeded, 1 when any failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, Protocol

import typer

from .._front.browser_options import CLIError, error_line
from .._front.cli_common import normalize_url, run

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from .._browse._engine import Engine
    from .._browse._result import BrowseResult

__all__ = [
    "BatchEngine",
    "BatchLine",
    "BatchOption",
    "BrowseOne",
    "ConcurrencyOption",
    "browse_batch",
    "check_batch",
    "check_call_options",
    "error_record",
    "read_batch",
    "run_batch",
    "success_record",
]

# The code of a line that is not a URL cdpkit can load (checked before anything is fetched).
INVALID_URL_CODE = "page.invalid_url"


class BatchEngine(Protocol):
    """What a batch needs of an engine: :meth:`cdpkit.Engine.browse`."""

    async def browse(
        self, url: str, *, session: str | None = None, **options: Any
    ) -> BrowseResult: ...


@dataclass(frozen=True, slots=True)
class BatchLine:
    """One URL of the batch file.

    Attributes:
        url: The URL to browse (normalized as the single-URL command does), or the line
            as written when it is not one.
        line: Its line number in the file (1-based), for messages.
        problem: Why the line is not a URL cdpkit can load, or ``None``.
    """

    url: str
    line: int
    problem: str | None = None


def read_batch(source: str, *, stdin: IO[str] | None = None) -> list[BatchLine]:
    """The URLs of a batch file (``-``: stdin): one a line, surrounding spaces ignored,
    blank lines and lines starting with ``#`` skipped. A line that is not a URL is kept
    with its problem, so it gets an error line in the output where it stands.

    Raises:
        CLIError: The file cannot be read, or it lists no URL (exit status 2).
    """
    if source == "-":
        text = (stdin or sys.stdin).read()
        where = "stdin"
    else:
        path = Path(source).expanduser()
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise CLIError(
                f"No such file: {source} (--batch takes a file of URLs, one a line, or - for stdin)",
                2,
            ) from None
        except IsADirectoryError:
            raise CLIError(f"--batch {source} is a directory, not a file of URLs", 2) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise CLIError(
                f"Cannot read --batch {source}: {getattr(exc, 'strerror', None) or exc}", 2
            ) from None
        where = source
    lines: list[BatchLine] = []
    for number, raw in enumerate(text.splitlines(), 1):
        entry = raw.strip().lstrip("\ufeff")  # a byte-order mark read from stdin
        if not entry or entry.startswith("#"):
            continue
        try:
            lines.append(BatchLine(normalize_url(entry), number))
        except CLIError as exc:
            lines.append(BatchLine(entry, number, str(exc)))
    if not lines:
        raise CLIError(
            f"--batch {where} lists no URL (one a line; blank lines and # comments are skipped)", 2
        )
    return lines


def success_record(url: str, result: BrowseResult) -> dict[str, Any]:
    """The output line of a URL browsed: ``{"url", "ok": true, ...result.to_dict()}``
    (``url`` is the URL as asked; ``final_url`` says where it ended)."""
    return {"url": url, "ok": True, **{k: v for k, v in result.to_dict().items() if k != "url"}}


def error_record(url: str, exc: BaseException) -> dict[str, Any]:
    """The output line of a URL that failed: its code (``network.dns``, ``http.404``...),
    the message without the URL and code around it, whether trying again may work, and
    what to change."""
    from .._browse import BrowseError

    if isinstance(exc, BrowseError):
        return {
            "url": url,
            "ok": False,
            "error": {
                "code": exc.code,
                "message": _bare_message(exc),
                "recoverable": exc.recoverable,
                "suggestion": exc.suggestion,
            },
        }
    if isinstance(exc, CLIError | ValueError):  # normalize_url's, or the engine's URL check
        code, recoverable, suggestion = INVALID_URL_CODE, False, "fix this line of the batch file"
    elif isinstance(exc, TimeoutError):
        code, recoverable, suggestion = "network.timeout", True, "raise --timeout SECONDS"
    else:
        code, recoverable, suggestion = (
            "processing.internal",
            False,
            "run it alone with --debug to see why",
        )
    return {
        "url": url,
        "ok": False,
        "error": {
            "code": code,
            "message": error_line(exc),
            "recoverable": recoverable,
            "suggestion": suggestion,
        },
    }


def _bare_message(exc: Any) -> str:
    """A :class:`BrowseError`'s message without the ``URL: `` in front and the
    `` [code] (suggestion)`` after it (both have their own fields in the record)."""
    message = getattr(exc, "message", None)
    if isinstance(message, str) and message:
        return message
    text = str(exc).removeprefix(f"{exc.url}: ")
    hint = f" ({exc.suggestion})" if exc.suggestion else ""
    return text.removesuffix(f" [{exc.code}]{hint}")


class _InOrder:
    """Writes each URL's line in input order, as soon as it and every one before it are
    done (so a slow first URL holds back only the lines after it, never loses them)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.pending: dict[int, dict[str, Any]] = {}
        self.next = 0

    def done(self, index: int, record: Mapping[str, Any]) -> None:
        self.pending[index] = dict(record)
        while self.next in self.pending:
            line = json.dumps(self.pending.pop(self.next), ensure_ascii=False, default=str)
            self.out.write(line + "\n")
            self.next += 1
        self.out.flush()

    def rest(self) -> None:
        """Write the lines done but held back behind a URL still running (when the
        batch is interrupted), in input order."""
        for index in sorted(self.pending):
            self.out.write(
                json.dumps(self.pending.pop(index), ensure_ascii=False, default=str) + "\n"
            )
        self.out.flush()


@contextlib.contextmanager
def _progress_bar(total: int, enabled: bool) -> Any:
    """A rich progress bar on stderr (``None`` when not ``enabled``)."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("Browsing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]}"),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
        # The JSON lines go to the real stdout, never through the bar's console (stderr).
        redirect_stdout=False,
        redirect_stderr=False,
    )
    with progress:
        yield progress, progress.add_task("batch", total=total, failed="")


async def browse_batch(
    engine: BatchEngine,
    lines: Iterable[BatchLine],
    *,
    options: Mapping[str, Any],
    concurrency: int = 4,
    session: str | None = None,
    out: IO[str] | None = None,
    progress: bool | None = None,
) -> int:
    """Browse every URL of ``lines`` with ``engine``, at most ``concurrency`` at once,
    and write one JSON line per URL to ``out`` (default stdout) in input order.

    A URL that fails gets an error line; the others go on. Cancelling this (Ctrl-C,
    SIGTERM) cancels the browses under way and writes the lines already done, also those
    held back behind a URL still running (each line names its URL).

    Args:
        engine: The engine (its browser is shared by the tier-2/3 pages).
        lines: The URLs, from :func:`read_batch`.
        options: The browse options every URL gets (``format``, ``max_tokens``...).
        concurrency: How many URLs are browsed at once.
        session: The engine session every URL runs in (``None``: a throwaway one each).
        out: Where the lines go (default stdout).
        progress: Show a progress bar on stderr; ``None``: when stderr is a terminal and
            stdout is not (a bar redrawn on the terminal the lines go to would erase them).

    Returns:
        How many URLs failed.
    """
    if concurrency < 1:
        raise CLIError(f"Invalid --concurrency {concurrency}: give at least 1", 2)
    batch = list(lines)
    writer = _InOrder(out if out is not None else sys.stdout)
    show = (sys.stderr.isatty() and not sys.stdout.isatty()) if progress is None else progress
    failed = 0
    # N workers pull the next URL: never more tasks than --concurrency, however long the file.
    queue = iter(enumerate(batch))

    async def worker(bar: tuple[Progress, TaskID] | None) -> None:
        nonlocal failed
        for index, line in queue:
            if line.problem is not None:
                record = error_record(line.url, CLIError(f"line {line.line}: {line.problem}"))
            else:
                try:
                    result = await engine.browse(line.url, session=session, **options)
                    record = success_record(line.url, result)
                except Exception as exc:  # one URL never stops the batch
                    record = error_record(line.url, exc)
            if not record["ok"]:
                failed += 1
            writer.done(index, record)
            if bar is not None:
                bar[0].update(bar[1], advance=1, failed=f"{failed} failed" if failed else "")

    with _progress_bar(len(batch), show) as bar:
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(concurrency, len(batch))):
                    group.create_task(worker(bar))
        except (asyncio.CancelledError, KeyboardInterrupt):
            with contextlib.suppress(OSError):
                writer.rest()  # interrupted: what was done is written, not lost
            raise
        except BaseExceptionGroup as errors:
            # The reader of stdout left (`| head`): said as such, not as a task's failure.
            if errors.subgroup(BrokenPipeError) is not None:
                raise BrokenPipeError("stdout was closed") from None
            raise
    return failed


class BrowseOne(Protocol):
    """How the single-URL command browses one URL (``cli._browse._browse_one``)."""

    def __call__(
        self, engine: Engine, url: str, call: Mapping[str, Any], *, session: str | None = None
    ) -> Awaitable[BrowseResult]: ...


BatchOption = Annotated[
    str | None,
    typer.Option(
        "--batch",
        metavar="FILE",
        help="Browse every URL in FILE (one a line; blank lines and # comments skipped; - "
        "reads stdin), --concurrency at a time over one engine, and print one JSON line per "
        "URL, in input order: {url, ok: true, ...the --json result} or {url, ok: false, "
        "error: {code, message, recoverable, suggestion}}. One failing URL never stops the "
        "others. Exit status 0 when every URL succeeded, exit status 1 when any failed. A "
        "progress bar shows on stderr when it is a terminal (and stdout is not).",
        show_default=False,
    ),
]
ConcurrencyOption = Annotated[
    int,
    typer.Option(
        "--concurrency",
        metavar="N",
        help="With --batch: how many URLs are browsed at once (pages that need JavaScript "
        "share one browser).",
    ),
]


def check_batch(url: str | None, batch: str | None, concurrency: int) -> None:
    """Check, before anything starts, that the command got one URL or ``--batch``.

    Raises:
        CLIError: Both or neither, or ``--concurrency`` below 1 (exit status 2).
    """
    if (url is None) == (batch is None):
        raise CLIError("Give a URL or --batch FILE (one of them)", 2)
    if concurrency < 1:
        raise CLIError(f"Invalid --concurrency {concurrency}: give at least 1", 2)


def check_call_options(call: Mapping[str, Any]) -> None:
    """Check the browse options the command line gave once, before the batch starts:
    an option out of range would fail every URL the same way.

    Raises:
        CLIError: The option and why (exit status 2).
    """
    from .._browse import BrowseOptions

    given = {name: value for name, value in call.items() if value is not None}
    for name in ("selectors", "exclude_selectors", "keywords"):
        if name in given:
            given[name] = tuple(given[name])
    try:
        BrowseOptions(**given).validate()
    except (TypeError, ValueError) as exc:
        raise CLIError(str(exc), 2) from None


def run_batch(
    source: str,
    *,
    engine: Engine,
    browse_one: BrowseOne,
    call: Mapping[str, Any],
    concurrency: int,
    session: str | None,
    debug: bool,
) -> None:
    """What ``cdpkit browse --batch SOURCE`` runs: read the URLs, browse them all with
    ``engine`` (made by the command from its browser options, nothing started yet), each
    as the single-URL command does (``browse_one``), one JSON line each on stdout.

    Raises:
        typer.Exit: Status 1 when any URL failed (after every line is written).
        CLIError: A batch file that cannot be read or lists no URL, or a bad option
            (exit status 2).
    """
    from .._browse import check_session_name

    check_call_options(call)
    if session is not None:
        try:
            check_session_name(session)
        except ValueError as exc:
            raise CLIError(str(exc), 2) from None
    lines = read_batch(source)

    class _OneAtATime:
        """The engine as the batch calls it: each URL as the single-URL command runs it."""

        async def browse(
            self, url: str, *, session: str | None = None, **options: Any
        ) -> BrowseResult:
            return await browse_one(engine, url, options, session=session)

    async def work() -> int:
        async with engine:
            return await browse_batch(
                _OneAtATime(), lines, options=call, concurrency=concurrency, session=session
            )

    if run(work, debug=debug):
        raise typer.Exit(1)
