// query_dom: each match (document, then open shadow roots) up to ``limit``: tag,
// id, classes, text and a unique selector.
function(selector, limit) {
  const found = H.queryAll(selector);
  return found.slice(0, limit).map(el => ({
    tag: el.localName,
    id: el.id || '',
    classes: [...el.classList],
    text: H.cut(H.norm(el.textContent), 200),
    selector: H.unique(el),
  }));
}
