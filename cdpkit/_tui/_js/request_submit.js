// The TUI's form submit without a submit control: what Enter in one of its fields does.
function(selector) {
  document.querySelector(selector).requestSubmit();
}
