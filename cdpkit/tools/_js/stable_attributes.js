// stable_attributes: what may name `this` element in a CSS selector that survives a
// re-layout: its test ids, the name of a form field, its id (cdpkit decides whether the id
// looks hand-written), its tag; whether it takes typed text (a field, or contenteditable:
// its text is no locator); and whether it is in the page's own document (a selector
// reaches no frame).
function() {
  const tests = [];
  for (const attribute of ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy']) {
    const value = this.getAttribute(attribute);
    if (value?.trim()) tests.push([attribute, value]);
  }
  const tag = this.localName;
  const field = tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'button';
  return {
    tag,
    tests,
    name: field && this.getAttribute('name') ? this.getAttribute('name') : null,
    id: this.id || null,
    editable: this.isContentEditable || tag === 'input' || tag === 'select' || tag === 'textarea',
    top: window === window.top && this.ownerDocument === document,
  };
}
