// What to type into: ``this`` itself, or (``wrapped``) the editable field it labels
// or wraps; null when nothing editable is there.
function(wrapped) {
  const start = this.nodeType === 1 ? this : this.parentElement;  // a text line: its element
  if (!start) return null;
  const editable = (el) => {
    if (!el || el.nodeType !== 1) return false;
    if (el.isContentEditable) return true;
    if (el.localName === 'textarea') return !el.disabled && !el.readOnly;
    if (el.localName === 'input') {
      const noText = ['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'hidden'];
      return !noText.includes(el.type) && !el.disabled && !el.readOnly;
    }
    return false;
  };
  if (editable(start)) return start;
  if (!wrapped) return null;
  if (start.localName === 'label' && editable(start.control)) return start.control;
  const inside = [...start.querySelectorAll('input, textarea, [contenteditable]')].filter(editable);
  if (inside.length) return inside[0];
  const root = start.shadowRoot;
  if (root) {
    const shadow = [...root.querySelectorAll('input, textarea, [contenteditable]')].filter(editable);
    if (shadow.length) return shadow[0];
  }
  return null;
}
