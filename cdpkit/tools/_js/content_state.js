// The smart wait's measure, one call per check. The first call in a document installs a
// MutationObserver that notes when the page's content last changed: nodes with text or
// elements added or removed, text edited (scripts, styles, iframes and the like coming and
// going are not content). Returns [ms since that change (or since the observer was
// installed, or since the load event), document.readyState, the length of the page's text, or -1 while it is a
// loading placeholder or marked busy (aria-busy="true")].
function() {
  const key = Symbol.for('cdpkit.contentWatch');
  let watch = window[key];
  if (!watch) {
    watch = {changed: performance.now()};
    const inert = new Set(['SCRIPT', 'STYLE', 'LINK', 'META', 'NOSCRIPT', 'TEMPLATE', 'IFRAME', 'BASE']);
    const isContent = (node) => node.nodeType === Node.TEXT_NODE
      ? node.data.trim() !== ''
      : node.nodeType === Node.ELEMENT_NODE && !inert.has(node.nodeName);
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.type === 'characterData'
            || [...record.addedNodes].some(isContent) || [...record.removedNodes].some(isContent)) {
          watch.changed = performance.now();
          return;
        }
      }
    }).observe(document, {childList: true, subtree: true, characterData: true});
    window[key] = watch;
  }
  // The load event counts as a change: scripts often render on it.
  const navigation = performance.getEntriesByType('navigation')[0];
  const quiet = performance.now() - Math.max(watch.changed, navigation?.loadEventEnd || 0);
  // An XML or SVG document has no body: its root's text then.
  const root = document.body || document.documentElement;
  let length = 0;
  if (root) {
    const text = (root.innerText ?? root.textContent) || '';
    const placeholder = /^\s*(loading|please wait)\b[\s.\u2026!]*$/i.test(text);
    length = placeholder || document.querySelector('[aria-busy=true]') ? -1 : text.length;
  }
  return [quiet, document.readyState, length];
}
