"""Real messages captured from headless Chromium parse into the generated models and dump
back to the same JSON; newer-than-the-pin data (unknown enum values, extra fields, unknown
events) is kept, never an error."""

from __future__ import annotations

import importlib
import inspect
import json
from typing import Any

import pytest

from cdpkit import cdp
from cdpkit._core.streams import _parse_event as parse_event  # how sessions deliver events
from cdpkit._model import CDPEnum, CDPModel, Command, Event, RawEvent
from cdpkit.cdp import _registry
from tests.bindings.conftest import FIXTURES


def _messages(kind: str) -> list[dict[str, Any]]:
    found = []
    for path in sorted(FIXTURES.glob("*.json")):
        for message in json.loads(path.read_text(encoding="utf-8"))["messages"]:
            if (kind == "result") == ("result" in message):
                found.append({**message, "file": path.name})
    return found


RESULTS = _messages("result")
EVENTS = _messages("event")


def _message_id(message: dict[str, Any]) -> str:
    return f"{message['method']}-{message['file']}"


def _command_for(method: str) -> Command[Any]:
    """The generated command for ``method``, built with placeholder arguments."""
    module_name, function_name = _registry.COMMANDS[method]
    function = getattr(importlib.import_module(f"cdpkit.cdp.{module_name}"), function_name)
    required = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.default is inspect.Parameter.empty
    ]
    command: Command[Any] = function(*[None] * len(required))
    return command


def _dump(model: CDPModel) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_unset=True, mode="json")


def test_fixtures_cover_the_messages_asked_for() -> None:
    methods = {m["method"] for m in RESULTS + EVENTS}
    assert {
        "Page.navigate",
        "Runtime.evaluate",
        "DOM.getDocument",
        "Accessibility.getFullAXTree",
        "Network.requestWillBeSent",
        "Network.responseReceived",
        "Target.attachedToTarget",
    } <= methods


@pytest.mark.parametrize("message", RESULTS, ids=[_message_id(m) for m in RESULTS])
def test_result_round_trip(message: dict[str, Any]) -> None:
    command = _command_for(message["method"])
    parsed = command.parse(message["result"])
    assert isinstance(parsed, CDPModel)
    assert command.result_type is type(parsed)
    assert _dump(parsed) == message["result"]
    assert parsed.to_wire() == message["result"]


@pytest.mark.parametrize("message", EVENTS, ids=[_message_id(m) for m in EVENTS])
def test_event_round_trip(message: dict[str, Any]) -> None:
    event = parse_event(message["method"], message["params"])
    assert isinstance(event, Event), f"{message['method']} was not recognised"
    assert event.method == message["method"]
    assert _dump(event) == message["params"]


def test_page_navigate_results_as_chrome_sends_them() -> None:
    """Chrome omits loaderId on same-document navigations and sets errorText on failure."""
    normal, same_document, failed = (
        cdp.page.NavigateResult.model_validate(m["result"])
        for m in RESULTS
        if m["method"] == "Page.navigate"
    )
    assert normal.loader_id is not None and normal.error_text is None
    assert same_document.loader_id is None
    assert failed.error_text is not None and failed.error_text.startswith("net::ERR_")


def test_runtime_evaluate_results_are_typed() -> None:
    by_expression = {
        m["params"]["expression"]: cdp.runtime.EvaluateResult.model_validate(m["result"])
        for m in RESULTS
        if m["method"] == "Runtime.evaluate" and "returnByValue" not in m["params"]
    }
    number = by_expression["1+1"]
    assert number.result.type is cdp.runtime.RemoteObjectType.NUMBER
    assert number.result.value == 2
    assert number.exception_details is None
    thrown = by_expression["throw new Error('boom')"]
    assert thrown.exception_details is not None
    assert thrown.exception_details.text == "Uncaught"
    assert thrown.result.subtype is cdp.runtime.RemoteObjectSubtype.ERROR


def test_event_with_inline_enum() -> None:
    progress = next(m for m in EVENTS if m["method"] == "Browser.downloadProgress")
    event = parse_event(progress["method"], progress["params"])
    assert isinstance(event, cdp.browser.DownloadProgress)
    assert isinstance(event.state, cdp.browser.DownloadProgressState)


def test_unknown_enum_value_is_kept_as_its_string() -> None:
    obj = cdp.runtime.RemoteObject.model_validate({"type": "hologram", "subtype": "future"})
    assert isinstance(obj.type, CDPEnum)
    assert obj.type == "hologram"
    assert obj.type.value == "hologram"
    assert obj.to_wire() == {"type": "hologram", "subtype": "future"}


def test_extra_field_is_kept_and_dumped() -> None:
    result = cdp.page.NavigateResult.model_validate(
        {"frameId": "F", "loaderId": "L", "fromTheFuture": {"nested": [1, 2]}}
    )
    assert result.frame_id == "F"
    assert result.to_wire() == {
        "frameId": "F",
        "loaderId": "L",
        "fromTheFuture": {"nested": [1, 2]},
    }


def test_unknown_event_is_delivered_raw() -> None:
    event = parse_event("Future.somethingHappened", {"a": 1})
    assert event == RawEvent("Future.somethingHappened", {"a": 1})


def test_models_construct_by_python_names_and_dump_wire_names() -> None:
    node = cdp.dom.BackendNode(
        node_type=1, node_name="DIV", backend_node_id=cdp.dom.BackendNodeId(7)
    )
    assert node.to_wire() == {"nodeType": 1, "nodeName": "DIV", "backendNodeId": 7}
    assert cdp.dom.BackendNode.model_validate(node.to_wire()) == node
