"""What a document says about itself and how it was built: its title, metadata, forms,
and whether it looks like it needs JavaScript to show its content.

Pure functions over a parsed selectolax (Lexbor) tree; :mod:`._extract` calls them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ._block import resolve_url
from ._types import Form, FormField, Metadata

__all__ = [
    "JavaScriptSignals",
    "base_url",
    "find_forms",
    "javascript_signals",
    "read_metadata",
    "read_title",
]

_SPACES = re.compile(r"\s+")
_ASKS_FOR_JAVASCRIPT = re.compile(
    r"(enable|turn on|activate|allow|requires?|need|needs|must have|without)\b[^.]{0,60}\bjavascript"
    r"|javascript\b[^.]{0,40}\b(enabled|required|disabled|turned off|is off|must be)",
    re.IGNORECASE,
)
_APP_ROOTS = "#root, #app, #__next, #__nuxt, #svelte, [ng-app], [data-reactroot], app-root"


def _text(node: LexborNode | None) -> str:
    return _SPACES.sub(" ", node.text(separator=" ")).strip() if node is not None else ""


def meta_table(tree: LexborHTMLParser) -> dict[str, str]:
    """Every ``<meta>`` content by its lower-cased ``property``, ``name`` or ``itemprop``
    (the first non-empty one of each), read in one pass over the document."""
    table: dict[str, str] = {}
    for node in tree.css("meta[content]"):
        attrs = node.attributes
        value = _SPACES.sub(" ", attrs.get("content") or "").strip()
        if not value:
            continue
        for attribute in ("property", "name", "itemprop"):
            key = (attrs.get(attribute) or "").strip().lower()
            if key:
                table.setdefault(key, value)
    return table


def _meta(meta: Mapping[str, str], *names: str) -> str:
    """The first of ``names`` that ``meta`` has."""
    return next((meta[name] for name in names if meta.get(name)), "")


def base_url(tree: LexborHTMLParser, url: str) -> str:
    """The URL relative links resolve against: ``<base href>`` (itself resolved against
    ``url``), else ``url``."""
    base = tree.css_first("base[href]")
    href = base.attributes.get("href") if base is not None else None
    return resolve_url(url, href) if href and href.strip() else url


def read_title(tree: LexborHTMLParser, meta: Mapping[str, str]) -> str:
    """``<title>``, else ``og:title``, else the first ``<h1>``."""
    title = _text(tree.css_first("title"))
    return title or _meta(meta, "og:title", "twitter:title") or _text(tree.css_first("h1"))


def _json_ld(tree: LexborHTMLParser) -> Iterator[dict[str, Any]]:
    """Every JSON-LD object of the page (``@graph`` members included); bad JSON is skipped."""
    for script in tree.css('script[type="application/ld+json" i]'):
        try:
            data = json.loads(script.text(deep=True) or "null")
        except ValueError:
            continue
        pending = data if isinstance(data, list) else [data]
        while pending:
            item = pending.pop(0)
            if isinstance(item, dict):
                yield item
                graph = item.get("@graph")
                if isinstance(graph, list):
                    pending.extend(graph)


def _ld_name(value: object) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return _ld_name(value.get("name"))
    if isinstance(value, list):
        return ", ".join(name for name in map(_ld_name, value) if name)
    return ""


def _ld_names(value: object) -> list[str]:
    """Every name a JSON-LD ``author`` (a string, a person, a list of them) gives."""
    if isinstance(value, list):
        return [name for item in value for name in _ld_names(item)]
    name = _ld_name(value)
    return [name] if name else []


def _ld_fields(tree: LexborHTMLParser) -> dict[str, Any]:
    """The article's fields the page's JSON-LD gives, the first of each: ``headline``,
    ``authors``, ``published``, ``site_name``, ``language``."""
    found: dict[str, Any] = {}
    for item in _json_ld(tree):
        for key, value in (
            ("headline", _ld_name(item.get("headline"))),
            ("authors", _ld_names(item.get("author"))),
            ("published", _ld_name(item.get("datePublished"))),
            ("site_name", _ld_name(item.get("publisher"))),
            ("language", _ld_name(item.get("inLanguage"))),
        ):
            if value and key not in found:
                found[key] = value
    return found


def _authors(
    tree: LexborHTMLParser, meta: Mapping[str, str], ld: Mapping[str, Any]
) -> tuple[str, ...]:
    """The article's authors: JSON-LD, else ``<meta>`` (every ``author`` meta), else the
    links the page marks ``rel="author"`` (or ``itemprop="author"``), each name once."""
    names: list[str] = list(ld.get("authors", []))
    if not names:
        names = [
            _SPACES.sub(" ", node.attributes.get("content") or "").strip()
            for node in tree.css(
                'meta[name="author" i][content], meta[property="article:author"][content]'
            )
        ]
        names = [
            name for name in names if name and "://" not in name
        ]  # article:author is often a URL
    if not names:
        names = [_text(node) for node in tree.css('a[rel~="author"], [itemprop="author"]')]
    if not names:
        names = [_meta(meta, "dc.creator", "parsely-author")]
    return tuple(dict.fromkeys(name for name in names if name))


def read_metadata(tree: LexborHTMLParser, meta: Mapping[str, str], base: str) -> Metadata:
    """The article's title, authors, published date, language, site name, and the page's
    description and canonical URL, from JSON-LD, OpenGraph and ``<meta>``, ``<time
    datetime>`` in the article, ``rel="author"`` links, ``<html lang>`` and ``<link
    rel=canonical>``."""
    ld = _ld_fields(tree)
    authors = _authors(tree, meta, ld)
    published = _meta(
        meta, "article:published_time", "datepublished", "dc.date", "pubdate"
    ) or ld.get("published", "")
    if not published:
        time = tree.css_first("article time[datetime], main time[datetime], time[pubdate]")
        if time is not None:
            published = (time.attributes.get("datetime") or "").strip()
    html = tree.css_first("html")
    language = ((html.attributes.get("lang") or "") if html is not None else "").strip()
    canonical_node = tree.css_first('link[rel~="canonical" i][href]')
    canonical = (
        resolve_url(base, canonical_node.attributes.get("href") or "")
        if canonical_node is not None
        else ""
    )
    return Metadata(
        description=_meta(meta, "description", "og:description", "twitter:description"),
        author=", ".join(authors),
        published=published,
        language=ld.get("language")
        or language
        or _meta(meta, "og:locale", "language", "content-language"),
        canonical=canonical,
        site_name=_meta(meta, "og:site_name", "application-name") or ld.get("site_name", ""),
        title=ld.get("headline")
        or _meta(meta, "og:title", "twitter:title")
        or _text(tree.css_first("h1")),
        authors=authors,
    )


def og_image(meta: Mapping[str, str], base: str) -> str:
    """The page's ``og:image`` (absolute), or ``""``."""
    value = _meta(meta, "og:image", "og:image:url", "twitter:image")
    return resolve_url(base, value) if value else ""


def find_forms(
    tree: LexborHTMLParser, roots: Sequence[LexborNode] | None, base: str, page_url: str
) -> list[Form]:
    """Every ``<form>`` in ``roots`` (the whole document when ``None``), with its absolute
    action (the page itself when it has none, as a browser submits it), method and fields;
    radio buttons of one name are one field with options."""
    forms: list[Form] = []
    seen: set[int] = set()
    candidates: list[LexborNode] = []
    if roots is None:
        candidates = list(tree.css("form"))
    else:
        for root in roots:
            candidates.extend([root] if root.tag == "form" else root.css("form"))
    labels: dict[str, LexborNode] = {}  # <label for=id> by id, the first of each
    if candidates:
        for label in tree.css("label[for]"):
            labels.setdefault((label.attributes.get("for") or "").strip(), label)
    for form in candidates:
        if form.mem_id in seen:
            continue
        seen.add(form.mem_id)
        attrs = form.attributes
        action_attr = (attrs.get("action") or "").strip()
        action = resolve_url(base, action_attr) if action_attr else page_url
        forms.append(
            Form(
                action=action,
                method=(attrs.get("method") or "get").strip().upper() or "GET",
                fields=tuple(_form_fields(labels, form)),
                name=(
                    attrs.get("name") or attrs.get("id") or attrs.get("aria-label") or ""
                ).strip(),
            )
        )
    return forms


def _form_fields(labels: Mapping[str, LexborNode], form: LexborNode) -> list[FormField]:
    fields: list[FormField] = []
    radios: dict[str, int] = {}
    for control in form.css("input, select, textarea, button[name]"):
        attrs = control.attributes
        tag = control.tag or ""
        kind = (attrs.get("type") or "text").strip().lower() if tag == "input" else tag
        if tag == "button":
            kind = "button"
        name = (attrs.get("name") or attrs.get("id") or "").strip()
        label = _label(labels, control)
        required = "required" in attrs or attrs.get("aria-required") == "true"
        value = (attrs.get("value") or "").strip()
        options: tuple[str, ...] = ()
        if tag == "select":
            choices = control.css("option")
            options = tuple((o.attributes.get("value") or _text(o)) for o in choices)
            selected = next(
                (o for o in choices if "selected" in o.attributes), choices[0] if choices else None
            )
            value = (
                (selected.attributes.get("value") or _text(selected))
                if selected is not None
                else ""
            )
        elif tag == "textarea":
            value = control.text(deep=True)
        elif kind in ("checkbox", "radio"):
            checked = "checked" in attrs
            option = value or "on"
            value = option if checked else ""
            if kind == "radio" and name:
                if name in radios:
                    previous = fields[radios[name]]
                    fields[radios[name]] = FormField(
                        name=name,
                        type="radio",
                        value=previous.value or value,
                        label=previous.label,
                        required=previous.required or required,
                        options=(*previous.options, option),
                    )
                    continue
                radios[name] = len(fields)
                options = (option,)
        fields.append(
            FormField(
                name=name, type=kind, value=value, label=label, required=required, options=options
            )
        )
    return fields


def _label(labels: Mapping[str, LexborNode], control: LexborNode) -> str:
    """A control's label: ``<label for=id>``, the label wrapping it, ``aria-label``,
    ``placeholder``, ``title``."""
    attrs = control.attributes
    control_id = (attrs.get("id") or "").strip()
    if control_id and control_id in labels:
        return _label_text(labels[control_id])
    parent = control.parent
    while parent is not None and parent.tag not in ("form", "body"):
        if parent.tag == "label":
            return _label_text(parent)
        parent = parent.parent
    for name in ("aria-label", "placeholder", "title"):
        value = (attrs.get(name) or "").strip()
        if value:
            return value
    return ""


def _label_text(label: LexborNode) -> str:
    """A label's words, without the options or text of the controls inside it."""
    if label.css_first("select, textarea, option") is None:
        return _text(label)
    copy = label.clone()
    copy.strip_tags(["select", "textarea", "option", "datalist"])
    return _text(copy)


# Bot-check interstitials that a real browser passes by running their script.
_CHALLENGE_TITLES = {
    "just a moment...": "a Cloudflare challenge page",
    "attention required! | cloudflare": "a Cloudflare challenge page",
    "please wait... | cloudflare": "a Cloudflare challenge page",
    "ddos-guard": "a DDoS-Guard challenge page",
}
_CHALLENGE_TEXT = re.compile(
    r"checking (?:if the site connection is secure|your browser before accessing)"
    r"|enable javascript and cookies to continue"
    r"|please enable js and disable any ad blocker",
    re.IGNORECASE,
)


def _challenge(tree: LexborHTMLParser) -> str:
    """What bot-check page ``tree`` is (``""`` when none): Cloudflare's, DDoS-Guard's, or
    one saying it checks the browser."""
    title = _text(tree.css_first("title")).lower()
    if title in _CHALLENGE_TITLES:
        return _CHALLENGE_TITLES[title]
    for script in tree.css("script[src]"):
        if "/cdn-cgi/challenge-platform/" in (script.attributes.get("src") or ""):
            return "a Cloudflare challenge page"
    body = tree.body
    if body is not None and len(body.html or "") < 50_000 and _CHALLENGE_TEXT.search(_text(body)):
        return "a bot-check page (it checks the browser before showing the site)"
    return ""


class JavaScriptSignals:
    """What a document's raw HTML tells about its need for JavaScript, read before the
    scripts are stripped: :meth:`reason` decides once the visible text is counted."""

    def __init__(self, tree: LexborHTMLParser, html_length: int) -> None:
        self.html_length = html_length
        self.script_chars = 0
        self.has_script = False
        self.framework_data = ""
        for script in tree.css("script"):
            self.has_script = True
            body = script.text(deep=True) or ""
            self.script_chars += len(body)
            script_id = script.attributes.get("id") or ""
            if script_id == "__NEXT_DATA__":
                self.framework_data = "__NEXT_DATA__"
            elif not self.framework_data and "__NUXT__" in body[:200]:
                self.framework_data = "__NUXT__"
        self.noscript_asks = ""
        for noscript in tree.css("noscript"):
            text = _text(noscript)
            if not text:
                # Lexbor keeps a <noscript> in the head as raw text in its first child.
                text = _SPACES.sub(" ", re.sub(r"<[^>]+>", " ", noscript.html or "")).strip()
            if _ASKS_FOR_JAVASCRIPT.search(text):
                self.noscript_asks = text[:120]
                break
        self.challenge = _challenge(tree)
        self.empty_root = ""
        for root in tree.css(_APP_ROOTS):
            if not _text(root):
                attrs = root.attributes
                self.empty_root = (
                    f"<{root.tag} id={attrs['id']}>" if attrs.get("id") else f"<{root.tag}>"
                )
                if "ng-app" in attrs:
                    self.empty_root = f"<{root.tag} ng-app>"
                break

    def reason(self, text_chars: int) -> str | None:
        """Why the page looks like it needs JavaScript given ``text_chars`` of visible text,
        or ``None``. Thresholds keep static articles out: each signal needs thin text too."""
        if self.challenge and text_chars < 2000:
            return f"{self.challenge}: a browser running its script gets past it"
        if self.empty_root and text_chars < 500:
            return f"empty app root {self.empty_root}: the content is rendered by JavaScript"
        if self.framework_data and text_chars < 500:
            return f"{self.framework_data} present without rendered text ({text_chars} characters)"
        if self.noscript_asks and text_chars < 500:
            return f"the page asks for JavaScript: <noscript> says {self.noscript_asks!r}"
        if (
            self.html_length > 5000
            and text_chars < 200
            and self.script_chars * 2 > self.html_length
        ):
            return (
                f"only {text_chars} characters of text in {self.html_length // 1024} KB of HTML,"
                f" mostly scripts ({self.script_chars * 100 // self.html_length}%)"
            )
        if text_chars == 0 and self.has_script:
            return "no visible text, only scripts: the content is rendered by JavaScript"
        return None


def javascript_signals(tree: LexborHTMLParser, html_length: int) -> JavaScriptSignals:
    """Read the signals of ``tree`` (call before stripping its scripts)."""
    return JavaScriptSignals(tree, html_length)
