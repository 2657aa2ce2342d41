// download's source: the URL of the resource of ``this`` (img, video, audio, source,
// a, object, embed, iframe, or a CSS background image), absolute, or null.
function() {
  const el = this, tag = el.tagName.toLowerCase();
  const abs = (u) => { try { return u ? new URL(u, document.baseURI).href : null; } catch { return null; } };
  if (tag === 'img') return el.currentSrc || abs(el.getAttribute('src'));
  if (tag === 'video' || tag === 'audio') {
    if (el.currentSrc) return el.currentSrc;
    const source = el.getAttribute('src') || el.querySelector('source[src]')?.getAttribute('src');
    return abs(source);
  }
  if (tag === 'source') return abs(el.getAttribute('src'));
  if (tag === 'a' || tag === 'area' || tag === 'link') return el.href || null;
  if (tag === 'object') return abs(el.getAttribute('data'));
  if (tag === 'embed' || tag === 'iframe') return abs(el.getAttribute('src'));
  const background = getComputedStyle(el).backgroundImage;
  const match = background && background.match(/url\(["']?(.*?)["']?\)/);
  return match ? abs(match[1]) : null;
}
