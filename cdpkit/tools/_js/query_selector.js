// The first element matching a selector (see find.js for the search order), or null.
function(selector) {
  return H.query(selector);
}
