  // outline, part dom: the DOM as the walk reads it: computed styles (read once per
  // element and walk), what is out of the tree, the composed tree (open shadow roots,
  // slotted content). cdpkit/tools/_scripts.py puts the parts inside outline.js's
  // function, before its own body: one closure, these names shared by every part.

  const styles = new Map();  // element -> [display, visibility, hidden subtree?]
  const SVG = 'http://www.w3.org/2000/svg';
  const HTML = 'http://www.w3.org/1999/xhtml';
  // SVG elements never drawn where they stand: definitions, metadata, paint servers.
  const SVG_UNRENDERED = 'defs, symbol, clipPath, mask, pattern, marker, linearGradient, ' +
    'radialGradient, filter, desc, metadata';

  function style(element) {
    let cached = styles.get(element);
    if (cached === undefined) {
      const computed = getComputedStyle(element);
      // [2], the text-transform, is read when a text child asks (textTransformOf).
      cached = [computed.display, computed.visibility, undefined, computed];
      styles.set(element, cached);
    }
    return cached;
  }

  // Is `element` (and so its subtree) out of the accessibility tree?
  function excluded(element) {
    const [display] = style(element);
    if (display === 'none') return true;
    if (element.getAttribute('aria-hidden') === 'true') return true;
    if (element.inert) return true;
    return false;
  }

  // A node's children as an array: walking a live NodeList with for-of costs some twenty
  // times as much as following nextSibling.
  function childList(parent) {
    const children = [];
    for (let child = parent.firstChild; child; child = child.nextSibling) children.push(child);
    return children;
  }

  // The composed-tree children of a node: its shadow root's, a slot's assigned nodes.
  function childrenOf(node) {
    if (node.nodeType === 1) {
      if (node.shadowRoot) return childList(node.shadowRoot);
      if (node.localName === 'slot' && node.getRootNode() instanceof ShadowRoot) {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
      if (node.localName === 'details' && !node.open) {
        const summary = [...node.children].find((child) => child.localName === 'summary');
        return summary ? [summary] : [];
      }
      if (node.localName === 'template') return [];
    }
    return childList(node);
  }

  function parentOf(node) {
    if (node.assignedSlot) return node.assignedSlot;
    const parent = node.parentNode;
    if (parent && parent.nodeType === 11 && parent.host) return parent.host;
    return parent;
  }
