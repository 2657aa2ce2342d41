// page_metadata: what the document says about itself in its <head>.
function() {
  const meta = (key) => {
    for (const m of document.querySelectorAll('meta')) {
      const name = m.getAttribute('name') || m.getAttribute('property') || '';
      if (name.toLowerCase() === key) return (m.getAttribute('content') || '').trim();
    }
    return '';
  };
  const link = (rel) => {
    for (const l of document.querySelectorAll('link[rel]')) {
      if (l.rel.toLowerCase().split(/\s+/).includes(rel) && l.getAttribute('href')) return l.href;
    }
    return '';
  };
  const prefixed = (prefix) => {
    const found = {};
    for (const m of document.querySelectorAll('meta')) {
      const name = (m.getAttribute('property') || m.getAttribute('name') || '').trim();
      if (name.toLowerCase().startsWith(prefix) && !(name in found)) {
        found[name] = (m.getAttribute('content') || '').trim();
      }
    }
    return found;
  };
  return {
    url: document.URL,
    title: document.title,
    description: meta('description'),
    canonical: link('canonical'),
    lang: document.documentElement?.lang || '',
    charset: document.characterSet,
    keywords: meta('keywords'),
    robots: meta('robots'),
    viewport: meta('viewport'),
    favicon: link('icon') || link('shortcut') || link('apple-touch-icon'),
    open_graph: prefixed('og:'),
    twitter: prefixed('twitter:'),
  };
}
