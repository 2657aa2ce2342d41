// element_state: the interaction state of ``this``.
function() {
  const tag = this.localName;
  const aria = (name) => this.getAttribute(name);
  const enabled = !(this.matches(':disabled') || aria('aria-disabled') === 'true');
  let checked = null;
  if (tag === 'input' && (this.type === 'checkbox' || this.type === 'radio')) checked = this.checked;
  else if (aria('aria-checked') !== null) checked = aria('aria-checked') === 'true';
  else if (aria('aria-pressed') !== null) checked = aria('aria-pressed') === 'true';
  let selected = null;
  if (tag === 'option') selected = this.selected;
  else if (aria('aria-selected') !== null) selected = aria('aria-selected') === 'true';
  const root = this.getRootNode();
  const focused = root.activeElement === this;
  let editable = false;
  if (this.isContentEditable) editable = true;
  else if (tag === 'textarea') editable = enabled && !this.readOnly;
  else if (tag === 'input') {
    const noText = ['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'hidden', 'range', 'color'];
    editable = enabled && !this.readOnly && !noText.includes(this.type);
  }
  return {tag, visible: H.visible(this), enabled, checked, focused, editable, selected};
}
