// count_elements: how many elements match, in the document and open shadow roots.
function(selector) {
  return H.queryAll(selector).length;
}
