// get_attributes: every attribute of ``this``, in source order.
function() {
  return Object.fromEntries([...this.attributes].map(a => [a.name, a.value]));
}
