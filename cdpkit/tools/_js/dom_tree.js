// dom_tree: a simplified tree of ``this`` (or the body) as JSON-able objects.
function(maxDepth, maxNodes) {
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'head', 'base']);
  const KEEP = ['href', 'src', 'type', 'name', 'value', 'role', 'aria-label', 'placeholder',
                'alt', 'title', 'for', 'action', 'method', 'checked', 'disabled', 'selected'];
  let count = 0;
  let truncated = false;
  const node = (el, depth) => {
    count++;
    const out = {tag: el.localName};
    if (el.id) out.id = el.id;
    if (el.classList.length) out.classes = [...el.classList];
    const attrs = {};
    for (const name of KEEP) if (el.hasAttribute(name)) attrs[name] = H.cut(el.getAttribute(name), 200);
    if (Object.keys(attrs).length) out.attributes = attrs;
    let text = '';
    for (const child of el.childNodes) if (child.nodeType === 3) text += child.data;
    text = H.cut(H.norm(text), 200);
    if (text) out.text = text;
    if (!H.visible(el)) out.hidden = true;
    const kids = [...el.children].filter(c => !SKIP.has(c.localName));
    const shadow = el.shadowRoot ? [...el.shadowRoot.children].filter(c => !SKIP.has(c.localName)) : [];
    if (maxDepth !== null && depth >= maxDepth) {
      if (kids.length + shadow.length) out.children_omitted = kids.length + shadow.length;
      return out;
    }
    const children = [];
    for (const child of kids) {
      if (count >= maxNodes) { truncated = true; break; }
      children.push(node(child, depth + 1));
    }
    if (children.length) out.children = children;
    if (shadow.length) {
      const inShadow = [];
      for (const child of shadow) {
        if (count >= maxNodes) { truncated = true; break; }
        inShadow.push(node(child, depth + 1));
      }
      out.shadow_root = inShadow;
    }
    return out;
  };
  const start = this && this.nodeType === 1 ? this : (document.body || document.documentElement);
  const tree = node(start, 0);
  if (truncated) tree.truncated = true;
  return tree;
}
