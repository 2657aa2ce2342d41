// Helpers shared by the DOM tools (needs find.js): text, unique selectors, visibility.
H.norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
H.cut = (s, n) => s.length > n ? s.slice(0, n - 1) + '…' : s;
H.quote = (s) => '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ') + '"';
H.describe = (el) => {
  if (!el || el.nodeType !== 1) return 'nothing';
  let text = '<' + el.localName;
  if (el.id) text += ' id="' + el.id + '"';
  const cls = (el.getAttribute('class') || '').trim();
  if (cls) text += ' class="' + cls.split(/\s+/).slice(0, 3).join(' ') + '"';
  return text + '>';
};
H.parent = (node) => node.assignedSlot || node.parentNode || node.host || null;
H.unique = (el) => {
  const esc = CSS.escape;
  if (el.id) {
    const s = '#' + esc(el.id);
    if (H.count(s) === 1) return s;
  }
  for (const attr of ['data-testid', 'data-test', 'data-qa', 'name', 'aria-label']) {
    const v = el.getAttribute(attr);
    if (v) {
      const s = esc(el.localName) + '[' + attr + '=' + H.quote(v) + ']';
      if (H.count(s) === 1) return s;
    }
  }
  const parts = [];
  for (let cur = el; cur && cur.nodeType === 1; cur = cur.parentNode) {
    if (cur !== el && cur.id && H.count('#' + esc(cur.id)) === 1) {
      parts.unshift('#' + esc(cur.id));
      const s = parts.join(' > ');
      return H.count(s) === 1 ? s : null;
    }
    let part = esc(cur.localName);
    const siblings = cur.parentNode ? [...cur.parentNode.children] : [];
    const same = siblings.filter(c => c.localName === cur.localName);
    if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(cur) + 1) + ')';
    parts.unshift(part);
    const s = parts.join(' > ');
    if (H.count(s) === 1) return s;
  }
  return null;
};
H.contains = (el, node) => {
  for (let n = node; n; n = n.parentNode || n.host) if (n === el) return true;
  return false;
};
H.frameOffset = (el) => {
  let x = 0, y = 0;
  let win = el.ownerDocument.defaultView;
  try {
    while (win?.frameElement) {
      const frame = win.frameElement;
      const rect = frame.getBoundingClientRect();
      const style = getComputedStyle(frame);
      x += rect.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
      y += rect.top + parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop);
      win = win.parent;
    }
  } catch { /* a cross-origin parent: stop there */ }
  return [x, y];
};
H.visibility = (el) => {
  const doc = el.ownerDocument;
  const win = doc.defaultView;
  if (!el.isConnected) return {visible: false, inViewport: false, box: null, reason: 'not attached to the document'};
  const hidden = (reason) => ({visible: false, inViewport: false, box: null, reason});
  for (let cur = el; cur && cur.nodeType === 1; cur = H.parent(cur)) {
    const style = win.getComputedStyle(cur);
    const on = cur === el ? '' : ' on ' + H.describe(cur);
    if (style.display === 'none') return hidden('display: none' + on);
    if (style.opacity === '0') return hidden('opacity: 0' + on);
    if (style.contentVisibility === 'hidden' && cur !== el) return hidden('content-visibility: hidden' + on);
    if (cur.localName === 'details' && !cur.open && cur !== el && el.localName !== 'summary' &&
        !(cur.querySelector(':scope > summary') || {contains: () => false}).contains(el)) {
      return hidden('inside a closed ' + H.describe(cur));
    }
  }
  const style = win.getComputedStyle(el);
  if (style.visibility !== 'visible') return hidden('visibility: ' + style.visibility);
  const rect = el.getBoundingClientRect();
  const [ox, oy] = H.frameOffset(el);
  const box = {x: rect.x + ox, y: rect.y + oy, width: rect.width, height: rect.height};
  const result = (visible, reason, inViewport) => ({visible, inViewport, box, reason});
  if (rect.width === 0 || rect.height === 0) {
    return result(false, 'zero size (' + rect.width + 'x' + rect.height + ')', false);
  }
  const fixed = style.position === 'fixed';
  for (let cur = el; cur && cur.nodeType === 1; cur = H.parent(cur)) {
    const s = win.getComputedStyle(cur);
    const on = cur === el ? '' : ' on ' + H.describe(cur);
    if (s.clip === 'rect(0px, 0px, 0px, 0px)' || /inset\(50%\)/.test(s.clipPath)) {
      return result(false, 'clipped away (' + (s.clipPath !== 'none' ? 'clip-path' : 'clip') + on + ')', false);
    }
    if (cur !== el && s.overflow !== 'visible' && !fixed) {
      const r = cur.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return result(false, 'clipped to ' + r.width + 'x' + r.height + ' by overflow: ' + s.overflow + on, false);
      const outside = rect.right <= r.left || rect.left >= r.right || rect.bottom <= r.top || rect.top >= r.bottom;
      if (outside && /auto|scroll/.test(s.overflow)) {
        return result(true, 'scrolled out of view inside ' + H.describe(cur) + ': scroll it to see it', false);
      }
      if (outside) return result(false, 'clipped out of ' + H.describe(cur) + ' (overflow: ' + s.overflow + ')', false);
    }
  }
  if (!el.checkVisibility()) return hidden('not rendered (inside a hidden or collapsed container)');
  const scrollX = win.scrollX, scrollY = win.scrollY;
  if (rect.right + scrollX <= 0 || rect.bottom + scrollY <= 0) {
    return result(false, 'positioned outside the page (' + Math.round(rect.left + scrollX) + ', ' + Math.round(rect.top + scrollY) + ')', false);
  }
  const vw = doc.documentElement.clientWidth || win.innerWidth;
  const vh = doc.documentElement.clientHeight || win.innerHeight;
  const left = Math.max(rect.left, 0), right = Math.min(rect.right, vw);
  const top = Math.max(rect.top, 0), bottom = Math.min(rect.bottom, vh);
  const inViewport = right > left && bottom > top;
  if (!inViewport) return result(true, 'outside the viewport: scroll to see it', false);
  const root = el.getRootNode();
  const hit = (root.elementFromPoint ? root : doc).elementFromPoint((left + right) / 2, (top + bottom) / 2);
  if (hit && !H.contains(el, hit) && !(hit.localName === 'label' && hit.control === el)) {
    let labelled = false;
    for (let n = hit; n; n = n.parentNode) if (n.localName === 'label' && n.control === el) labelled = true;
    if (!labelled) return result(false, 'covered by ' + H.describe(hit), true);
  }
  return result(true, null, true);
};
H.visible = (el) => H.visibility(el).visible;
H.deepActive = (doc) => {
  let el = doc.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return el;
};
