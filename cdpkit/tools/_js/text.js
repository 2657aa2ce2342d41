// The text a user sees under ``start`` (default: the body), in reading order: a walk of
// the flat tree (open shadow roots, slots, same-origin iframes) that skips what is hidden,
// clipped away or off the page, with line breaks around blocks and tabs between table
// cells; cut to ``maxChars`` unless that is null. Needs helpers.js.
H.visibleText = (start, maxChars) => {
  // Pieces of text, and numbers: line breaks wanted between blocks (the most wins).
  const out = [];
  const cache = new Map();
  const shown = (el) => {
    if (cache.has(el)) return cache.get(el);
    let ok;
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    if (style.display === 'none' || style.opacity === '0' || style.contentVisibility === 'hidden') ok = false;
    else {
      const parent = H.parent(el);
      ok = !parent || parent.nodeType !== 1 || shown(parent);
      if (ok && style.display !== 'contents' && !el.checkVisibility()) ok = false;
      if (ok && (style.clip === 'rect(0px, 0px, 0px, 0px)' || /inset\(50%\)/.test(style.clipPath))) ok = false;
      if (ok && style.overflow !== 'visible' && style.display !== 'contents') {
        const r = el.getBoundingClientRect();
        if (r.width <= 1 || r.height <= 1) ok = false;
      }
    }
    cache.set(el, ok);
    return ok;
  };
  const offPage = (rect, win) => rect.right + win.scrollX <= 0 || rect.bottom + win.scrollY <= 0;
  const walk = (node) => {
    if (node.nodeType === 3) {
      const parent = H.parent(node);
      if (!parent || parent.nodeType !== 1 || !shown(parent)) return;
      const win = parent.ownerDocument.defaultView;
      const style = win.getComputedStyle(parent);
      if (style.visibility !== 'visible') return;
      const range = parent.ownerDocument.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if ((rect.width === 0 && rect.height === 0) || offPage(rect, win)) return;
      out.push(/^pre/.test(style.whiteSpace) ? node.data : node.data.replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType === 11) {
      for (const child of node.childNodes) walk(child);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.localName;
    if (['script', 'style', 'noscript', 'template', 'head'].includes(tag) || !shown(el)) return;
    if (tag === 'br') { out.push('\n'); return; }
    const win = el.ownerDocument.defaultView;
    const style = win.getComputedStyle(el);
    const display = style.display;
    const cell = /^table-cell/.test(display);
    const breaks = cell ? 0 : tag === 'p' ? 2 : /^(block|flex|grid|table|list-item|flow-root)/.test(display) ? 1 : 0;
    if (breaks) out.push(breaks);
    if (['input', 'textarea', 'select'].includes(tag)) {
      if (style.visibility === 'visible' && !offPage(el.getBoundingClientRect(), win)) {
        let value = '';
        if (tag === 'select') value = [...el.selectedOptions].map(o => o.label).join(', ');
        else if (tag === 'textarea') value = el.value;
        else if (['button', 'submit', 'reset'].includes(el.type)) value = el.value;
        else if (!['hidden', 'checkbox', 'radio', 'file', 'image', 'range', 'color', 'password'].includes(el.type)) value = el.value || el.placeholder;
        if (value) out.push(' ' + value + ' ');
      }
    } else if (tag === 'iframe') {
      let doc = null;
      try { doc = el.contentDocument; } catch { doc = null; }
      if (doc?.body) { out.push(1); walk(doc.body); out.push(1); }
    } else if (el.shadowRoot) {
      walk(el.shadowRoot);
    } else if (tag === 'slot') {
      const assigned = el.assignedNodes({flatten: true});
      for (const child of (assigned.length ? assigned : el.childNodes)) walk(child);
    } else {
      for (const child of el.childNodes) walk(child);
    }
    if (cell) out.push('\t');
    if (breaks) out.push(breaks);
  };
  walk(start || document.body || document.documentElement);
  let text = '';
  let pending = 0;
  for (const piece of out) {
    if (typeof piece === 'number') { pending = Math.max(pending, piece); continue; }
    if (pending) {
      if (!piece.trim() && piece !== '\n') continue;
      if (text) text = text.replace(/[ \t]+$/, '') + '\n'.repeat(pending);
      pending = 0;
      text += piece.replace(/^ +/, '');
    } else {
      text += piece;
    }
  }
  text = text
    .replace(/[ \u00a0]*\t[ \t\u00a0]*/g, '\t')
    .replace(/ {2,}/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\t+(?=\n|$)/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (maxChars !== null && text.length > maxChars) text = text.slice(0, maxChars);
  return text;
};
