// How an error names ``this``: its start tag with its id (a text node: its element).
function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return 'a ' + this.nodeName + ' node';
  let text = '<' + el.localName;
  if (el.id) text += ' id="' + el.id + '"';
  return text + '>';
}
