// The browser's User-Agent, as the page's requests send it.
function() {
  return navigator.userAgent;
}
