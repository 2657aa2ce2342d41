"""Importing the bindings is cheap: no domain module on ``import cdpkit.cdp``, no class on
importing a domain, and only the modules a validation really needs after it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.bindings.conftest import REPO


def loaded_after(code: str) -> list[str]:
    """The ``cdpkit.cdp.*`` modules loaded in a fresh interpreter after running ``code``."""
    script = textwrap.dedent(code) + textwrap.dedent(
        """
        import json, sys
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("cdpkit.cdp."))))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded: list[str] = json.loads(completed.stdout.splitlines()[-1])
    return loaded


def test_import_cdp_imports_no_domain_module() -> None:
    assert loaded_after("import cdpkit.cdp") == []


def test_importing_a_domain_creates_no_class_and_imports_no_other_domain() -> None:
    assert loaded_after("from cdpkit.cdp import page") == ["cdpkit.cdp.page"]
    assert loaded_after("from cdpkit.cdp import page; page.navigate('https://example.com')") == [
        "cdpkit.cdp._results",
        "cdpkit.cdp._results.page",
        "cdpkit.cdp.page",
    ]


def test_first_use_loads_only_what_validation_needs() -> None:
    loaded = loaded_after(
        """
        from cdpkit.cdp import page, runtime
        page.NavigateResult.model_validate({"frameId": "F", "loaderId": "L"})
        runtime.EvaluateResult.model_validate({"result": {"type": "number", "value": 2}})
        """
    )
    assert loaded == [
        "cdpkit.cdp._results",
        "cdpkit.cdp._results.page",
        "cdpkit.cdp._results.runtime",
        "cdpkit.cdp._types",
        "cdpkit.cdp._types.runtime",
        "cdpkit.cdp.network",  # for network.LoaderId, a NewType: no network class is created
        "cdpkit.cdp.page",
        "cdpkit.cdp.runtime",
    ]


def test_parsing_an_event_imports_one_domain() -> None:
    loaded = loaded_after(
        """
        from cdpkit._core.streams import _parse_event
        _parse_event("Page.loadEventFired", {"timestamp": 1.5})
        """
    )
    assert loaded == [
        "cdpkit.cdp._events",
        "cdpkit.cdp._events.page",
        "cdpkit.cdp._registry",
        "cdpkit.cdp.network",
        "cdpkit.cdp.page",
    ]


def test_dir_lists_lazy_names() -> None:
    loaded = loaded_after(
        """
        from cdpkit import cdp
        assert "page" in dir(cdp) and "input_" in dir(cdp)
        names = dir(cdp.page)
        assert {"Frame", "NavigateResult", "LoadEventFired", "FrameId", "navigate"} <= set(names)
        """
    )
    assert loaded == ["cdpkit.cdp.page"]


def test_first_validation_ignores_the_callers_local_names() -> None:
    # A user's function with locals named like domains (``page``, ``dom``) validates first:
    # the annotations ``page.FrameId``/``dom.BackendNodeId`` still mean the domains.
    code = """
        from cdpkit import cdp

        def handler(page, dom="a local string"):
            return cdp.accessibility.AXNode.model_validate(
                {"nodeId": "1", "ignored": False, "frameId": "F", "backendDOMNodeId": 3}
            )

        node = handler(object())
        assert (node.frame_id, node.backend_dom_node_id) == ("F", 3), node
        box = cdp.dom.BoxModel(content=[0] * 8, padding=[0] * 8, border=[0] * 8,
                               margin=[0] * 8, width=1, height=1)
        assert box.width == 1
    """
    loaded_after(code)  # raises CalledProcessError (with the traceback) if it failed


def test_send_json_and_using_a_domain_load_no_wire_module() -> None:
    """The wire TypedDicts are for type checkers: the fast path never imports them."""
    loaded = loaded_after(
        """
        import asyncio, json
        from cdpkit import cdp
        from cdpkit.session import Session

        class Loopback:  # answers every command at once with a small AX tree
            max_command_size = 2**20
            session = None
            def next_id(self):
                return 1
            def send_now(self, text):  # a transport that cannot write without awaiting
                return False
            async def send_text(self, text):
                message = json.loads(text)
                answer = {"id": 1, "result": {"nodes": [{"nodeId": "1", "ignored": False}]}}
                asyncio.get_running_loop().call_soon(self.session._resolve, message["id"], answer)

        async def main():
            connection = Loopback()
            connection.session = session = Session(connection, "S")
            tree = await session.send_json(cdp.accessibility.get_full_ax_tree(depth=2))
            assert tree == {"nodes": [{"nodeId": "1", "ignored": False}]}, tree
            await session.send_json(cdp.accessibility.enable())
            cdp.dom.get_box_model(backend_node_id=cdp.dom.BackendNodeId(1))

        asyncio.run(main())
        """
    )
    assert not [name for name in loaded if "._wire" in name], loaded
    # Building a command names its result model (for send); no other module comes in.
    assert loaded == [
        "cdpkit.cdp._results",
        "cdpkit.cdp._results.accessibility",
        "cdpkit.cdp._results.dom",
        "cdpkit.cdp.accessibility",
        "cdpkit.cdp.dom",
    ]
