// find_by_text: the innermost elements showing a text (or whose value, aria-label,
// placeholder, title or alt matches), visible ones first.
function(query, exact, limit) {
  const wanted = exact ? H.norm(query) : H.norm(query).toLowerCase();
  const matches = (text) => {
    const t = H.norm(text);
    return exact ? t === wanted : t.toLowerCase().includes(wanted);
  };
  const attrText = (el) => {
    const found = [];
    if (el.localName === 'input' && ['button', 'submit', 'reset'].includes(el.type)) found.push(el.value);
    for (const a of ['aria-label', 'placeholder', 'title', 'alt']) {
      const v = el.getAttribute(a);
      if (v) found.push(v);
    }
    return found;
  };
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);
  const fullText = (el) => el.shadowRoot ? el.shadowRoot.textContent + ' ' + el.textContent : el.textContent;
  const hits = [];
  // Depth-first; an element matches by its text only if none of its children does.
  const visit = (el) => {
    if (SKIP.has(el.localName)) return false;
    const children = [...el.children];
    if (el.shadowRoot) children.push(...el.shadowRoot.children);
    let childMatched = false;
    for (const child of children) if (visit(child)) childMatched = true;
    if (childMatched) return true;
    const text = H.norm(fullText(el));
    if (text && matches(text) && el !== document.documentElement && el !== document.body) {
      hits.push([el, text]);
      return true;
    }
    for (const value of attrText(el)) {
      if (matches(value)) { hits.push([el, H.norm(value)]); return true; }
    }
    return false;
  };
  if (document.documentElement) visit(document.documentElement);
  const all = hits.map(([el, text]) => ({el, text, visible: H.visible(el)}));
  all.sort((a, b) => (b.visible - a.visible));
  return all.slice(0, limit).map(({el, text, visible}) => ({
    selector: H.unique(el), tag: el.localName, text: H.cut(text, 200), visible,
  }));
}
