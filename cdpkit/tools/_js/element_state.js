// element_state: the interaction state of ``this``.
function() {
  const el = this;
  const tag = el.localName;
  const aria = (name) => el.getAttribute(name);
  const enabled = !(el.matches(':disabled') || aria('aria-disabled') === 'true');
  let checked = null;
  if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) checked = el.checked;
  else if (aria('aria-checked') !== null) checked = aria('aria-checked') === 'true';
  else if (aria('aria-pressed') !== null) checked = aria('aria-pressed') === 'true';
  let selected = null;
  if (tag === 'option') selected = el.selected;
  else if (aria('aria-selected') !== null) selected = aria('aria-selected') === 'true';
  const root = el.getRootNode();
  const focused = root.activeElement === el;
  let editable = false;
  if (el.isContentEditable) editable = true;
  else if (tag === 'textarea') editable = enabled && !el.readOnly;
  else if (tag === 'input') {
    const noText = ['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'hidden', 'range', 'color'];
    editable = enabled && !el.readOnly && !noText.includes(el.type);
  }
  return {tag, visible: H.visible(el), enabled, checked, focused, editable, selected};
}
