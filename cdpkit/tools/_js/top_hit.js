// The top document's side of a click into a frame: what its point reaches (described),
// null when that is a frame (whose own document then decides).
function(x, y) {
  const hit = H.deepHit(document, x, y);
  if (!hit || ['iframe', 'frame', 'object', 'embed'].includes(hit.localName)) return null;
  return H.describeHit(hit);
}
