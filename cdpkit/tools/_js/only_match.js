// only_match: whether `this` element is the one and only match of a selector in the page's
// document and its open shadow roots (the finder every selector= tool uses).
function(selector) {
  const found = H.queryAll(selector);
  return found.length === 1 && found[0] === this;
}
