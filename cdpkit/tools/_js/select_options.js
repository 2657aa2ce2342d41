// select_option: selects the options of ``this`` (a <select>, or its label) matching
// ``values`` by value or label; the values selected, or {error: ...}.
function(values) {
  let el = this;
  // A label stands for its control; any other element is not a select, even one that
  // holds a select somewhere inside (which of them would be meant?).
  if (el.localName === 'label' && el.control) el = el.control;
  if (el.localName !== 'select') return {error: 'not-select', tag: this.localName};
  if (el.disabled) return {error: 'disabled'};
  const options = [...el.options];
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const chosen = [];
  for (const value of values) {
    const option = options.find(o => o.value === value)
      || options.find(o => norm(o.label) === norm(value))
      || options.find(o => norm(o.label).toLowerCase() === norm(value).toLowerCase());
    if (!option) {
      return {error: 'missing', value, options: options.map(o => [o.value, norm(o.label)])};
    }
    if (option.disabled) return {error: 'option-disabled', value};
    if (!chosen.includes(option)) chosen.push(option);
  }
  if (!el.multiple && chosen.length > 1) return {error: 'single'};
  if (!el.multiple && chosen.length === 0) return {error: 'empty'};
  for (const option of options) option.selected = chosen.includes(option);
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: [...el.selectedOptions].map(o => o.value)};
}
