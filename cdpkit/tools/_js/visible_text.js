// visible_text: the text a user sees on the page, or in ``this`` when it is an element.
function(maxChars) {
  return H.visibleText(this && this.nodeType === 1 ? this : null, maxChars);
}
