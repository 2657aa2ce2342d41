// wait_for's poll: whether an element matches ``selector`` (document or open shadow
// roots), or the page's text includes ``text``, or no longer includes ``textGone``.
function(selector, text, textGone) {
  if (selector !== null) return H.query(selector) !== null;
  const shown = document.body ? document.body.innerText : '';
  return text !== null ? shown.includes(text) : !shown.includes(textGone);
}
