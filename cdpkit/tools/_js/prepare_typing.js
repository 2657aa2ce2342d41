// Prepares ``this`` (an editable element) for typing; returns how to type into it:
// 'typed', 'end' (press End first) or 'set' (a date, colour... input: set its value).
// ``atEnd``: put the caret after the content (a field just clicked); otherwise typing
// goes where the caret or selection already is, as it would for a person.
function(clear, atEnd) {
  const root = this.getRootNode();
  const active = root.activeElement;
  const focused = active === this || (this.isContentEditable && this.contains(active));
  if (!focused) this.focus();
  const setTypes = ['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range'];
  if (this.localName === 'input' && setTypes.includes(this.type)) return 'set';
  if (this.localName === 'input' || this.localName === 'textarea') {
    if (clear) { this.select(); return 'typed'; }
    if (!atEnd) return 'typed';
    try {
      const end = this.value.length;
      this.setSelectionRange(end, end);
      return 'typed';
    } catch {
      return 'end';
    }
  }
  const selection = this.ownerDocument.getSelection();
  if (clear) {
    selection.selectAllChildren(this);
  } else if (atEnd || !selection.rangeCount || !this.contains(selection.anchorNode)) {
    const range = this.ownerDocument.createRange();
    range.selectNodeContents(this);
    range.collapse(false);
    selection.removeAllRanges();
    selection.addRange(range);
  }
  return 'typed';
}
