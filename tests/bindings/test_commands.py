"""Command functions: what they send, and their signatures."""

from __future__ import annotations

import inspect

from cdpkit import cdp
from cdpkit._model import Command


def test_command_without_params_sends_empty_object() -> None:
    command = cdp.page.enable()
    assert isinstance(command, Command)
    assert (command.method, command.params, command.result_type) == ("Page.enable", {}, None)
    assert cdp.runtime.disable().params == {}


def test_optional_params_are_omitted_when_none() -> None:
    assert cdp.page.navigate("https://example.com").params == {"url": "https://example.com"}
    command = cdp.page.navigate(
        "https://example.com",
        referrer="https://a.test/",
        transition_type="link",
        frame_id=cdp.page.FrameId("F1"),
    )
    assert command.params == {
        "url": "https://example.com",
        "referrer": "https://a.test/",
        "transitionType": "link",
        "frameId": "F1",
    }
    assert command.result_type is cdp.page.NavigateResult


def test_wire_names_are_exact() -> None:
    command = cdp.runtime.evaluate("1+1", return_by_value=True, include_command_line_api=True)
    assert command.params == {
        "expression": "1+1",
        "returnByValue": True,
        "includeCommandLineAPI": True,
    }
    assert cdp.dom.get_outer_html(backend_node_id=cdp.dom.BackendNodeId(3)).params == {
        "backendNodeId": 3
    }
    assert cdp.network.set_blocked_urls().method == "Network.setBlockedURLs"


def test_enum_params_accept_members_and_strings() -> None:
    # An inline parameter enum is a Literal of its values (no class is generated for it).
    assert cdp.browser.set_download_behavior("allow").params == {"behavior": "allow"}
    by_member = cdp.page.navigate("u", transition_type=cdp.page.TransitionType.TYPED)
    assert by_member.params["transitionType"] == "typed"
    assert by_member.params["transitionType"] is cdp.page.TransitionType.TYPED


def test_model_params_are_passed_as_models() -> None:
    """Models are left as they are; the core serializes them with ``to_wire()``."""
    viewport = cdp.page.Viewport(x=0, y=0, width=10, height=10, scale=1)
    command = cdp.page.capture_screenshot(clip=viewport)
    assert command.params["clip"] is viewport
    assert viewport.to_wire() == {"x": 0, "y": 0, "width": 10, "height": 10, "scale": 1}


def test_required_positional_optional_keyword_only() -> None:
    parameters = inspect.signature(cdp.page.navigate).parameters
    assert list(parameters) == ["url", "referrer", "transition_type", "frame_id", "referrer_policy"]
    assert parameters["url"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert parameters["url"].default is inspect.Parameter.empty
    for name in ("referrer", "transition_type", "frame_id", "referrer_policy"):
        assert parameters[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters[name].default is None


def test_keywords_get_a_trailing_underscore_builtins_do_not() -> None:
    parameters = inspect.signature(cdp.input_.dispatch_key_event).parameters
    assert next(iter(parameters)) == "type"
    condition = cdp.service_worker.ServiceWorkerRouterCondition(or_=[])
    assert condition.to_wire() == {"or": []}
    fields = cdp.service_worker.ServiceWorkerRouterCondition.model_fields
    assert (fields["or_"].alias, fields["not_"].alias) == ("or", "not")


def test_commands_are_documented_with_a_link() -> None:
    doc = inspect.getdoc(cdp.page.navigate) or ""
    assert doc.startswith("Navigates current page to the given URL.")
    assert "https://chromedevtools.github.io/devtools-protocol/tot/Page/#method-navigate" in doc
    assert "Args:\n    url: URL to navigate the page to." in doc
    experimental = inspect.getdoc(cdp.page.get_app_id) or ""
    assert "**Experimental.**" in experimental
