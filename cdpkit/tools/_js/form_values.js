// form_values: every form control (of the document, or in ``this`` when ``scoped``)
// and its current value as the user left it.
function(scoped) {
  const root = scoped ? this : document;
  let controls;
  if (scoped && ['input', 'select', 'textarea'].includes(this.localName)) controls = [this];
  else if (scoped && this.localName === 'form') controls = [...this.elements];
  else controls = [...root.querySelectorAll('input, select, textarea')];
  const seen = new Set();
  const fields = [];
  for (const el of controls) {
    if (seen.has(el) || !['input', 'select', 'textarea'].includes(el.localName)) continue;
    seen.add(el);
    if (el.localName === 'input' && ['button', 'submit', 'reset', 'image'].includes(el.type)) continue;
    let label = '';
    if (el.labels?.length) {
      label = [...el.labels].map(l => {
        const copy = l.cloneNode(true);
        for (const inner of copy.querySelectorAll('input, select, textarea')) inner.remove();
        return H.norm(copy.textContent);
      }).join(' ');
    }
    label = label || el.getAttribute('aria-label') || el.getAttribute('placeholder') || '';
    let value = el.value;
    let checked = null;
    if (el.localName === 'select' && el.multiple) value = [...el.selectedOptions].map(o => o.value);
    if (el.type === 'file') value = [...el.files].map(f => f.name);
    if (el.type === 'checkbox' || el.type === 'radio') checked = el.checked;
    const form = el.form ? (el.form.id || el.form.getAttribute('name') || '') : '';
    fields.push({
      selector: H.unique(el), tag: el.localName, type: el.type, name: el.name || '',
      label: H.norm(label), value, checked, disabled: el.matches(':disabled'),
      required: !!el.required, form,
    });
  }
  return fields;
}
