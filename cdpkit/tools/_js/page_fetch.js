// Makes the page fetch ``url`` with its cookies, as CORS (see files._page_request): null
// once the request settles, or the error's message.
function(url) {
  return fetch(url, {credentials: 'include', mode: 'cors', cache: 'no-store'})
    .then(() => null, (e) => String(e?.message || e));
}
