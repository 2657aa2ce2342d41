// scrape's links: every http(s) link under the first match of ``selector`` (or the
// document), open shadow roots included, deduplicated without fragments, with its text;
// null when nothing matches.
function(selector) {
  const root = selector ? H.query(selector) : document;
  if (!root) return null;
  const seen = new Map();
  for (const a of H.queryAll('a[href]', root)) {
    if (!/^https?:/.test(a.href)) continue;
    const url = a.href.split('#')[0];
    const text = (a.innerText || a.title || '').trim().replace(/\s+/g, ' ');
    if (!seen.has(url) || (!seen.get(url) && text)) seen.set(url, text);
  }
  return [...seen].map(([url, text]) => ({url, text}));
}
