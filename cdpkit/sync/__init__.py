"""cdpkit without ``async``: blocking twins of the whole public API, for scripts, notebooks
and thread pools::

    import cdpkit.sync as sync
    from cdpkit import cdp

    with sync.launch() as browser:
        page = browser.new_page()
        sync.tools.navigate(page, "https://example.com")
        title = page.send(cdp.runtime.evaluate("document.title", return_by_value=True))
        with page.expect(cdp.page.LoadEventFired) as load:
            page.send(cdp.page.reload())
        print(title.result.value, load.value.timestamp)

:func:`launch`, :func:`connect`, :func:`pool`, :func:`engine`, :func:`browse`,
:func:`record` and :func:`grid` take the parameters of their async namesakes in
:mod:`cdpkit` and give sync :class:`Browser`, :class:`BrowserContext`, :class:`Page`,
:class:`Pool`, :class:`Engine`, :class:`Recording` and :class:`GridBrowser` (and
``browser.process``, a :class:`ChromeProcess`), whose methods and properties have the async
ones' names, parameters and docstrings; :mod:`cdpkit.sync.tools` has every tool of
:mod:`cdpkit.tools`. Results, the :mod:`cdpkit.cdp` bindings and the errors are the async
API's own objects and classes. ``async with`` is ``with``, ``async for`` is ``for``
(``with page.listen(Event) as events: for event in events``).

``launch()`` and ``connect()`` return the started browser: use it in a ``with`` block
(closed on exit) or call ``browser.close()``.

Every call runs on one event loop in a daemon thread (see :mod:`cdpkit.sync._runner`), so
it works inside a running event loop (a Jupyter cell) with no ``nest_asyncio``, and from
several threads at once (a page per thread). Ctrl-C during a call raises
``KeyboardInterrupt`` at once and cancels the call. Callbacks cdpkit calls itself
(``page.dialog_policy``, ``on_event`` handlers, ``predicate``) run on that loop's thread
and must not call :mod:`cdpkit.sync` (they would wait for themselves: ``RuntimeError``).

The twins are generated from the async API by ``python -m cdpkit.sync._generate``.
"""

from __future__ import annotations

from . import tools
from ._generated import (
    Browser,
    BrowserContext,
    ChromeProcess,
    Engine,
    EventStream,
    Expectation,
    GridBrowser,
    Page,
    Pool,
    Recording,
    Session,
    browse,
    connect,
    engine,
    grid,
    launch,
    pool,
    record,
)

# For cdpkit's pytest plugin (its sync_page saves a failed test's artifacts with the async
# page behind the twin), not part of the API: not in __all__.
from ._runner import run as run
from ._runner import unwrap as unwrap

__all__ = [
    "Browser",
    "BrowserContext",
    "ChromeProcess",
    "Engine",
    "EventStream",
    "Expectation",
    "GridBrowser",
    "Page",
    "Pool",
    "Recording",
    "Session",
    "browse",
    "connect",
    "engine",
    "grid",
    "launch",
    "pool",
    "record",
    "tools",
]
