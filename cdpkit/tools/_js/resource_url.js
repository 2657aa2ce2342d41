// download's source: the URL of the resource of ``this`` (img, video, audio, source,
// a, object, embed, iframe, or a CSS background image), absolute, or null.
function() {
  const tag = this.tagName.toLowerCase();
  const abs = (u) => { try { return u ? new URL(u, document.baseURI).href : null; } catch { return null; } };
  if (tag === 'img') return this.currentSrc || abs(this.getAttribute('src'));
  if (tag === 'video' || tag === 'audio') {
    if (this.currentSrc) return this.currentSrc;
    const source = this.getAttribute('src') || this.querySelector('source[src]')?.getAttribute('src');
    return abs(source);
  }
  if (tag === 'source') return abs(this.getAttribute('src'));
  if (tag === 'a' || tag === 'area' || tag === 'link') return this.href || null;
  if (tag === 'object') return abs(this.getAttribute('data'));
  if (tag === 'embed' || tag === 'iframe') return abs(this.getAttribute('src'));
  const background = getComputedStyle(this).backgroundImage;
  const match = background?.match(/url\(["']?(.*?)["']?\)/);
  return match ? abs(match[1]) : null;
}
