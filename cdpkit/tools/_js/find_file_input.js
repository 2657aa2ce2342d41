// The file input ``this`` is, labels or holds.
function() {
  const isFile = (e) => e && e.localName === 'input' && e.type === 'file';
  if (isFile(this)) return this;
  if (this.localName === 'label' && isFile(this.control)) return this.control;
  return this.querySelector('input[type=file]');
}
