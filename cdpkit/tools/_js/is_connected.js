// Whether ``this`` is still in its document.
function() {
  return this.isConnected;
}
