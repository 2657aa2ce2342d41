// The element at a viewport point of the top document, or null.
function(x, y) {
  return document.elementFromPoint(x, y);
}
