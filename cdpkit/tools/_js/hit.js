// Hit testing for the pointer tools: what a click at a point reaches, and how an error
// names it.
// The element at (x, y) of ``root`` (a document), looking into open shadow roots.
H.deepHit = (root, x, y) => {
  let hit = root.elementFromPoint(x, y);
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
};
// Its start tag with the attributes that identify it, and the start of its text.
H.describeHit = (hit) => {
  let description = '<' + hit.localName;
  for (const name of ['id', 'class', 'role', 'aria-label', 'name']) {
    const value = (hit.getAttribute(name) || '').trim().replace(/\s+/g, ' ');
    if (value) description += ' ' + name + '="' + value.slice(0, 40) + '"';
  }
  description += '>';
  const text = (hit.innerText || hit.textContent || '').trim().replace(/\s+/g, ' ');
  if (text) {
    description += ' ' + JSON.stringify(text.length > 40 ? text.slice(0, 39) + '…' : text);
  }
  return description;
};
