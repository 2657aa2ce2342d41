// The smart wait's measure: the length of the page's text, or -1 while it is a loading
// placeholder or marked busy.
function() {
  const body = document.body;
  if (!body) return 0;
  const text = body.innerText || '';
  if (/^\s*(loading|please wait)\b[\s.\u2026!]*$/i.test(text)) return -1;
  if (document.querySelector('[aria-busy=true]')) return -1;
  return text.length;
}
