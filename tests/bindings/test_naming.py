"""Python names for protocol names: acronym-aware, keywords escaped, nothing else renamed."""

from __future__ import annotations

import pytest

from cdpkit.codegen.naming import enum_member_name, module_name, pascal_case, snake_case


@pytest.mark.parametrize(
    ("wire", "python"),
    [
        ("url", "url"),
        ("frameId", "frame_id"),
        ("backendDOMNodeId", "backend_dom_node_id"),
        ("getOuterHTML", "get_outer_html"),
        ("setBlockedURLs", "set_blocked_urls"),
        ("base64Encoded", "base64_encoded"),
        ("ctap2Version", "ctap2_version"),
        ("IPAddress", "ip_address"),
        ("getDOMCountersForLeakDetection", "get_dom_counters_for_leak_detection"),
        ("from", "from_"),
        ("not", "not_"),
        ("or", "or_"),
        ("type", "type"),
        ("id", "id"),
    ],
)
def test_snake_case(wire: str, python: str) -> None:
    assert snake_case(wire) == python


@pytest.mark.parametrize(
    ("domain", "module"),
    [
        ("Page", "page"),
        ("DOMSnapshot", "dom_snapshot"),
        ("IndexedDB", "indexed_db"),
        ("CSS", "css"),
        ("WebMCP", "web_mcp"),
        ("PWA", "pwa"),
        ("IO", "io"),
        ("FedCm", "fed_cm"),
        ("Input", "input_"),
    ],
)
def test_module_name(domain: str, module: str) -> None:
    assert module_name(domain) == module


@pytest.mark.parametrize(
    ("name", "pascal"),
    [
        ("loadEventFired", "LoadEventFired"),
        ("consoleAPICalled", "ConsoleAPICalled"),
        ("getDOMCounters", "GetDOMCounters"),
    ],
)
def test_pascal_case(name: str, pascal: str) -> None:
    assert pascal_case(name) == pascal


@pytest.mark.parametrize(
    ("value", "member"),
    [
        ("same-origin", "SAME_ORIGIN"),
        ("CSPViolation", "CSP_VIOLATION"),
        ("XHR", "XHR"),
        ("RenderFrameHostReused_CrossSite", "RENDER_FRAME_HOST_REUSED_CROSS_SITE"),
        ("ctap2_0", "CTAP2_0"),
        ("noReferrerWhenDowngrade", "NO_REFERRER_WHEN_DOWNGRADE"),
    ],
)
def test_enum_member_name(value: str, member: str) -> None:
    assert enum_member_name(value) == member
