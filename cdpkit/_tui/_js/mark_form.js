// The TUI's form submit: marks the document's form number ``index`` (the extraction lists
// the forms in document order) with ``data-cdpkit-tui=mark``, so that selectors reach it;
// whether there is such a form.
function(index, mark) {
  const form = document.forms[index];
  if (!form) return false;
  form.setAttribute('data-cdpkit-tui', mark);
  return true;
}
