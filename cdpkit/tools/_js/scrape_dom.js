// scrape's markdown source: the live DOM (after the page's scripts ran) as HTML, for the
// browse extraction to read: the whole document, or the first match of ``selector`` alone;
// null when nothing matches. Open shadow roots are copied in their host's place, slots
// filled with what is assigned to them, so a web component's content is there as the user
// sees it (a plain outerHTML leaves it out). Form controls' typed values, iframes and
// canvases need nothing: the extraction leaves them out.
function(selector) {
  const source = selector ? H.query(selector) : document.documentElement;
  if (!source) return null;
  // The flat tree: a host's shadow content instead of its light children, and a slot
  // replaced by what is assigned to it (or its fallback content).
  const flatCopy = (node) => {
    if (node.nodeType !== 1) return node.cloneNode(true);
    let copy = node.cloneNode(false);
    let children = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
    if (node.localName === 'slot' && node.getRootNode().host) {
      const assigned = node.assignedNodes({flatten: true});
      if (assigned.length) children = assigned;
      copy = document.createDocumentFragment();
    }
    for (const child of children) copy.appendChild(flatCopy(child));
    return copy;
  };
  const html = H.roots(source).length > 1 ? flatCopy(source).outerHTML : source.outerHTML;
  return {html, url: location.href, base: document.baseURI};
}
