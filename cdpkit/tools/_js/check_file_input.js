// upload_file's check: whether ``this`` is (or labels or holds) a file input that
// takes ``count`` files; {ok: true} or {error: ...}.
function(count) {
  let el = this;
  const isFile = (e) => e && e.localName === 'input' && e.type === 'file';
  if (!isFile(el)) {
    const inner = el.localName === 'label' ? el.control : null;
    const found = isFile(inner) ? inner : el.querySelector('input[type=file]');
    if (!isFile(found)) {
      // Clicking it to open a file chooser must not submit a form or follow a link.
      const submits = !!el.form && ['submit', 'image'].includes(el.type) &&
          ['button', 'input'].includes(el.localName);
      const navigates = !!el.closest('a[href]');
      const field = ['textarea', 'select'].includes(el.localName) ||
          (el.localName === 'input' && el.type !== 'button');
      return {error: 'not-file', tag: el.localName, clickable: !submits && !navigates && !field};
    }
    el = found;
  }
  if (el.disabled) return {error: 'disabled'};
  if (count > 1 && !el.multiple) return {error: 'single'};
  return {ok: true};
}
