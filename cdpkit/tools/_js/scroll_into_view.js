// Scrolls ``this`` (an iframe) to the centre of its document's view, instantly.
function() {
  this.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
}
