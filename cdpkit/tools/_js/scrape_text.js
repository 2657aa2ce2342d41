// scrape's text: what a user sees (as visible_text) in the first match of ``selector`` or
// the whole page, open shadow roots included; null when nothing matches.
function(selector) {
  if (!selector) return H.visibleText(null, null);
  const el = H.query(selector);
  return el ? H.visibleText(el, null) : null;
}
