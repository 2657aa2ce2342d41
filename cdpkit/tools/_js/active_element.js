// The element with the keyboard focus, looking into open shadow roots; null if none.
function() {
  let el = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return el;
}
