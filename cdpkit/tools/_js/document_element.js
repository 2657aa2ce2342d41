// The root element of the document holding ``this`` (its frame's document).
function() {
  return (this.ownerDocument || this).documentElement;
}
