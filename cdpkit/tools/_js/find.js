// The one element finder of every tool that takes a CSS selector.
// Search order: the document first, then each open shadow root, in the document order of
// its host (a root nested in a shadow tree comes right after the root holding its host).
// Closed shadow roots and iframes are not searched. An invalid selector throws
// 'cdpkit:invalid-selector' (the Python side turns it into ValueError).
H.INVALID = 'cdpkit:invalid-selector';
// The roots to search under ``scope`` (default: the document), in search order. The
// document's list is kept for the rest of the call (H.unique counts matches many times).
H.roots = (scope) => {
  if (!scope && H.documentRoots) return H.documentRoots;
  const roots = [];
  const visit = (root) => {
    roots.push(root);
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
  };
  if (scope && scope.nodeType === 1) {
    // An element scope: its subtree, then the shadow roots inside it (its own first).
    roots.push(scope);
    if (scope.shadowRoot) visit(scope.shadowRoot);
    for (const el of scope.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
  } else {
    visit(scope || document);
  }
  if (!scope) H.documentRoots = roots;
  return roots;
};
H.check = (selector) => {
  try { document.createDocumentFragment().querySelector(selector); }
  catch { throw new SyntaxError(H.INVALID + ': ' + selector); }
};
// Every match under ``scope``, in search order (an element scope counts itself).
H.queryAll = (selector, scope) => {
  H.check(selector);
  const found = [];
  if (scope && scope.nodeType === 1 && scope.matches(selector)) found.push(scope);
  for (const root of H.roots(scope)) found.push(...root.querySelectorAll(selector));
  return found;
};
// The first match, as H.queryAll(selector)[0] but stopping at it.
H.query = (selector) => {
  H.check(selector);
  const first = document.querySelector(selector);
  if (first) return first;
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (!el.shadowRoot) continue;
      const found = el.shadowRoot.querySelector(selector) || visit(el.shadowRoot);
      if (found) return found;
    }
    return null;
  };
  return visit(document);
};
H.count = (selector) => {
  let n = 0;
  for (const root of H.roots()) n += root.querySelectorAll(selector).length;
  return n;
};
