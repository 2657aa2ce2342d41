// upload_file's check: whether ``this`` is (or labels or holds) a file input that
// takes ``count`` files; {ok: true} or {error: ...}.
function(count) {
  let el = this;
  const isFile = (e) => e && e.localName === 'input' && e.type === 'file';
  if (!isFile(el)) {
    const inner = el.localName === 'label' ? el.control : null;
    const found = isFile(inner) ? inner : el.querySelector('input[type=file]');
    if (!isFile(found)) return {error: 'not-file', tag: el.localName};
    el = found;
  }
  if (el.disabled) return {error: 'disabled'};
  if (count > 1 && !el.multiple) return {error: 'single'};
  return {ok: true};
}
