// Where a click on ``this`` lands. ``this`` is the target: an element, or a text node (a
// StaticText line of a snapshot), whose parent element then owns it for the hit test.
// Scrolls it into view instantly (whatever the page's scroll-behavior), waits until its
// first client rect is the same on three consecutive animation frames, and returns the
// centre of the visible part of that rect in its frame's viewport, and what a click
// there would reach instead of the target (``covering``, null when it reaches the
// target); or {error: 'hidden' | 'outside'}.
async function(checkHit, forceScroll, stableTimeoutMs) {
  const owner = this.nodeType === 1 ? this : this.parentElement;
  if (!this.isConnected || !owner) return {error: 'hidden'};
  const doc = this.ownerDocument;
  const win = doc.defaultView;
  // An element with display: contents has no box of its own: its content's boxes count.
  const ownBoxes = this.nodeType === 1 && win.getComputedStyle(this).display !== 'contents';
  const scroller = ownBoxes || this.nodeType !== 1 ? owner : this.firstElementChild || owner;
  const firstRect = () => {
    let rects;
    if (ownBoxes) {
      rects = this.getClientRects();
    } else {
      const range = doc.createRange();
      range.selectNodeContents(this);
      rects = range.getClientRects();
    }
    for (const rect of rects) if (rect.width * rect.height >= 1) return rect;
    return null;
  };
  const viewport = () => {
    const vv = win.visualViewport;
    return vv ? {width: vv.width, height: vv.height}
              : {width: win.innerWidth, height: win.innerHeight};
  };
  // rAF does not run in hidden pages: a timer stands in for a frame there.
  const nextFrame = () => new Promise((resolve) => {
    const timer = setTimeout(resolve, 50);
    win.requestAnimationFrame(() => { clearTimeout(timer); resolve(); });
  });
  if (!firstRect() || win.getComputedStyle(owner).visibility !== 'visible') {
    return {error: 'hidden'};
  }
  const inView = (r) => {
    const view = viewport();
    return r.left >= 0 && r.top >= 0 && r.right <= view.width && r.bottom <= view.height;
  };
  const same = (a, b) => a && b && a.x === b.x && a.y === b.y && a.width === b.width
    && a.height === b.height;
  const deadline = performance.now() + stableTimeoutMs;
  let rect = null;
  // A page scrolling by itself may carry the element away again: measure, scroll if
  // needed, wait until still, and look again.
  for (let round = 0; round < 3; round++) {
    rect = firstRect();
    if (!rect) return {error: 'hidden'};
    if (round === 0 ? forceScroll || !inView(rect) : !inView(rect)) {
      scroller.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    } else if (round === 0) {
      // In the viewport, maybe not in a scrolled box around it: 'nearest' scrolls only
      // the boxes that hide it, and nothing at all when it is already visible.
      scroller.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
    } else {
      break;
    }
    // Still over two frames in a row, not one: on a busy machine a smooth scroll can
    // leave its offset unchanged between two frames and move on after.
    let still = 0;
    rect = firstRect();
    while (still < 2 && performance.now() < deadline) {
      await nextFrame();
      const previous = rect;
      rect = firstRect();
      still = same(previous, rect) ? still + 1 : 0;
    }
    if (!rect || inView(rect)) break;
  }
  if (!rect) return {error: 'hidden'};
  const view = viewport();
  const left = Math.max(rect.left, 0), right = Math.min(rect.right, view.width);
  const top = Math.max(rect.top, 0), bottom = Math.min(rect.bottom, view.height);
  if (right - left < 1 || bottom - top < 1) return {error: 'outside'};
  const x = (left + right) / 2, y = (top + bottom) / 2;
  const result = {x, y, top: win === win.top, covering: null};
  if (!checkHit) return result;
  const hit = H.deepHit(doc, x, y);
  if (!hit) return result;
  const up = (n) => n.parentNode || n.host || null;
  const reaches = (from, to) => {
    for (let n = from; n; n = up(n)) if (n === to) return true;
    return false;
  };
  // The hit counts when it is the target or inside it; a label of the target or the
  // target label's control; a closed shadow root's host holding the target.
  if (reaches(hit, owner)) return result;
  for (let root = owner.getRootNode(); root.host; root = root.host.getRootNode()) {
    if (root.host === hit) return result;
  }
  for (let n = hit; n; n = up(n)) {
    if (n.localName === 'label' && n.control === owner) return result;
  }
  if (owner.localName === 'label' && owner.control && reaches(hit, owner.control)) return result;
  result.covering = H.describeHit(hit);
  return result;
}
