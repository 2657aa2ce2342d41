// scrape's markdown source: a copy of the chosen root (the first match of ``selector``,
// or the body) with scripts, styles, page chrome and base64 images stripped, and every
// link and image made absolute; its HTML, or null when nothing matches. Open shadow
// roots are copied in their host's place, slots filled with what is assigned to them,
// so a web component's content is there as the user sees it.
function(selector, keepChrome, keepDataImages) {
  const source = selector ? H.query(selector) : document.body;
  if (!source) return null;
  // The flat tree: a host's shadow content instead of its light children.
  const flatCopy = (node) => {
    if (node.nodeType !== 1) return node.cloneNode(true);
    const copy = node.cloneNode(false);
    let children = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
    if (node.localName === 'slot' && node.getRootNode().host) {
      const assigned = node.assignedNodes({flatten: true});
      if (assigned.length) children = assigned;
    }
    for (const child of children) copy.appendChild(flatCopy(child));
    return copy;
  };
  const root = H.roots(source).length > 1 ? flatCopy(source) : source.cloneNode(true);
  const drop = ['script', 'style', 'noscript', 'template', 'iframe', 'svg', 'canvas', 'link', 'meta'];
  if (!keepChrome) drop.push('nav', 'footer', 'aside', 'header[role=banner]', '[role=navigation]', '[aria-hidden=true]');
  for (const el of root.querySelectorAll(drop.join(','))) el.remove();
  const absolute = (u) => { try { return new URL(u, document.baseURI).href; } catch { return u; } };
  for (const a of root.querySelectorAll('a[href]')) a.setAttribute('href', absolute(a.getAttribute('href')));
  for (const img of root.querySelectorAll('img')) {
    const src = img.getAttribute('src') || '';
    if (src.startsWith('data:') && !keepDataImages) { img.remove(); continue; }
    if (src) img.setAttribute('src', absolute(src));
  }
  return root.innerHTML;
}
