// outline: the page as a flat accessibility outline, computed in the page (an isolated
// world), with the role and state names Chrome's accessibility tree uses.
//
// Returns the JSON text of a list of entries, each an array
//   [depth, id, role, name, value, states, x, y, w, h, flags(, frameX, frameY)]
// in document order (the composed tree: open shadow roots, slotted content in slot order),
// depth counting the entries above; id is the node's stable number in this world's
// registry (globalThis.__cdpkitOutline: a WeakMap node -> id, so a node keeps its number
// while it lives, and id -> WeakRef node, for resolving an id back with element(id));
// value is null when there is none; states is a string ("checked disabled level=2") or "";
// the box is in CSS px of this document's viewport, x null when the node has no layout box;
// flags: 1 the node can take focus, 2 an iframe: its entry alone, followed by where its
// document's viewport starts (frameX null when the iframe has no box); each frame's
// document is walked in a world of its own (same-origin ones too, so that a node is always
// numbered by the same registry), and stitched in under its iframe by cdpkit.
// options: {boxes: false} leaves every box out (x null); {everyText: true} lists every shown
// text run, also one already in its parent entry's name (what text= locators match). root: walk only this element (or
// document) and what it holds, at depth 0.
//
// It runs in an isolated world: the page's scripts share the DOM but not this world's
// globals, so they can neither read the registry nor break the walk by replacing
// built-ins. Each element's computed style is read once per walk, and nothing is written
// to the page, so no layout is forced twice.
//
// The script is split by concern: outline/dom.js (styles, the composed tree), roles.js,
// names.js, content.js (the name from content), states.js (states and values), and this
// file: the registry, the walk and the entry point. cdpkit/tools/_scripts.py puts the
// parts' declarations at the start of this function's body when the script is first
// used, so the page runs one function, one closure; scripts/lint_js.py lints that whole.
function(options, root) {
  globalThis.__cdpkitOutline ??= {
    ids: new WeakMap(),
    refs: new Map(),  // id -> WeakRef of its node: any node a walk listed, while it lives
    next: 1,
    element(id) {
      const ref = this.refs.get(id);
      const node = ref?.deref();
      return node?.isConnected ? node : null;
    },
    idOf(node) { return this.ids.get(node) || 0; },
  };
  const registry = globalThis.__cdpkitOutline;
  const ids = registry.ids;
  const refs = registry.refs;
  const entries = [];
  const boxesWanted = !options || options.boxes !== false;
  const everyText = Boolean(options?.everyText);

  // Shown only when named or focusable (the outline's noise).
  const NOISE = new Set(['generic', 'none', 'presentation', 'LabelText', 'MenuListPopup', 'Unknown',
    'Section', 'Canvas', 'EmbeddedObject']);
  // Their inner text is their value or their options: no text entries inside.
  // (An image's content is listed: Chrome lists the text inside a role="img".)
  const LEAF = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'progressbar', 'meter',
    'separator']);
  const ARIA_RANGES = new Set(['progressbar', 'meter']);

  function idOf(node) {
    let id = ids.get(node);
    if (id === undefined) {
      id = registry.next++;
      ids.set(node, id);
      refs.set(id, new WeakRef(node));
    }
    return id;
  }

  // -- the walk ---------------------------------------------------------------------------

  function push(depth, node, role, name, value, states, rect, offset) {
    const entry = [depth, idOf(node), role, name, value, states, null, null, 0, 0,
      node.nodeType === 1 && focusable(node) ? 1 : 0];
    if (rect && (rect.width || rect.height || rect.x || rect.y)) {
      entry[6] = rect.x + offset[0];
      entry[7] = rect.y + offset[1];
      entry[8] = rect.width;
      entry[9] = rect.height;
    }
    entries.push(entry);
  }

  const ranges = new Map();  // document -> a range to measure its text nodes with

  function rangeIn(doc) {
    let range = ranges.get(doc);
    if (range === undefined) {
      range = doc.createRange();
      ranges.set(doc, range);
    }
    return range;
  }

  // Walk `node`'s children; `depth` for entries, `parentText` the text of the nearest entry
  // (text already in it is not repeated), `visible` whether the parent is not
  // visibility:hidden, `offset` the document's place in the top viewport.
  function walkChildren(node, depth, parentText, offset, leaf) {
    for (const child of childrenOf(node)) {
      if (child.nodeType === 3) {
        if (leaf) continue;
        const text = squash(transformed(child));
        if (!text || !everyText && parentText.includes(text)) continue;
        const parent = textParent(child);
        if (parent && style(parent)[1] !== 'visible') continue;
        let rect = null;
        if (boxesWanted) {
          const range = rangeIn(child.ownerDocument);
          range.selectNodeContents(child);
          rect = range.getBoundingClientRect();
          // Text that is not laid out (in a closed or clipped-away element) is not shown.
          if (!rect.width && !rect.height && !range.getClientRects().length) continue;
        }
        push(depth, child, 'StaticText', text, null, '', rect, offset);
      } else if (child.nodeType === 1) {
        walkElement(child, depth, parentText, offset, leaf);
      }
    }
  }

  function walkElement(element, depth, parentText, offset, leaf) {
    const tag = element.localName;
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript' ||
        tag === 'head' || tag === 'title' || tag === 'meta' || tag === 'link' ||
        tag === 'rt' || tag === 'rp') return;  // a ruby's annotation: its description
    if (element.namespaceURI === SVG && element.matches(SVG_UNRENDERED)) return;
    if (excluded(element)) return;
    // A slot is where its content goes, nothing of its own (unless given a role and
    // holding something).
    if (tag === 'slot' && (!explicitRole(element) || !childrenOf(element).length)) {
      walkChildren(element, depth, parentText, offset, leaf);
      return;
    }
    const [display, visibility] = style(element);
    const visible = visibility === 'visible';
    const role = roleOf(element);
    if (leaf && role !== 'option' && role !== 'group') return;
    let shown = false;
    let name = '';
    if (visible && role !== 'LineBreak') {
      name = nameOf(element, role);
      shown = (!NOISE.has(role) || name !== '' ||
        focusable(element) && !(role === 'none' && inheritedPresentation(element))) &&
        !((tag === 'p' || tag === 'address' && name === '') && emptyParagraph(element));
    }
    if (role === 'Iframe') {
      if (!visible) return;
      const rect = boxesWanted ? element.getBoundingClientRect() : null;
      push(depth, element, 'Iframe', name, null, '', rect, offset);
      // Its document is walked in a world of its own frame (cdpkit stitches it in here):
      // flagged, with where that document's viewport starts.
      const innerOffset = [offset[0], offset[1]];
      if (rect) {
        const frameStyle = getComputedStyle(element);
        innerOffset[0] += rect.x + parseFloat(frameStyle.borderLeftWidth) +
          parseFloat(frameStyle.paddingLeft);
        innerOffset[1] += rect.y + parseFloat(frameStyle.borderTopWidth) +
          parseFloat(frameStyle.paddingTop);
      }
      const entry = entries[entries.length - 1];
      entry[10] |= 2;
      entry.push(rect ? innerOffset[0] : null, innerOffset[1]);
      return;
    }
    let childDepth = depth;
    let text = parentText;
    if (shown) {
      const value = valueText(element, role);
      const rect = boxesWanted && display !== 'contents' ? element.getBoundingClientRect() : null;
      push(depth, element, role, name, value === name ? null : value, statesOf(element, role),
        rect, offset);
      childDepth = depth + 1;
      text = value ? name + ' ' + value : name;
    }
    // A label that only names its checkbox or radio: its text is the control's name.
    if (tag === 'label' && !shown && redundantLabel(element)) {
      // Its text is still text a person sees (text= locators find it).
      if (everyText) walkChildren(element, depth, text, offset, leaf);
      else if (element.contains(element.control)) {
        walkElement(element.control, depth, text, offset, leaf);
      }
      return;
    }
    if (tag === 'select' && role === 'combobox') {
      // The closed list's options: Chrome lists them under a popup, without boxes (none
      // for a hidden list).
      if (!visible) return;
      for (const option of element.options) {
        if (excluded(option)) continue;
        const optionName = nameOf(option, 'option');
        push(childDepth, option, 'option', optionName, null, statesOf(option, 'option'), null,
          offset);
      }
      return;
    }
    // An ARIA progressbar or meter shows its content (a native one, its own drawing).
    const isLeaf = leaf || LEAF.has(role) && !(ARIA_RANGES.has(role) && tag !== role &&
      tag !== 'progress') || tag === 'input' || tag === 'textarea';
    // A select given a text-field or range role: no options listed (as in Chrome's tree).
    if (isLeaf && tag === 'select') return;
    walkChildren(element, childDepth, text, offset, isLeaf);
  }

  function walkDocument(doc, depth, offset) {
    const view = doc.defaultView;
    const rootRect = view ? {x: 0, y: 0, width: view.innerWidth, height: view.innerHeight} : null;
    const title = squash(doc.title || '');
    push(depth, doc, 'RootWebArea', title, null,
      pageFocused && doc === document ? 'focused' : '', rootRect, offset);
    const body = doc.body || doc.documentElement;
    // Text already in the title is not repeated under it (as in Chrome's outline).
    if (body) walkElement(doc.documentElement, depth + 1, title, offset, false);
  }

  if (root && root.nodeType === 9) {
    walkDocument(root, 0, [0, 0]);
  } else if (root) {
    walkElement(root, 0, '', [0, 0], false);
  } else {
    walkDocument(document, 0, [0, 0]);
  }
  if (refs.size > 4 * entries.length + 10000) {
    for (const [id, ref] of refs) {
      if (!ref.deref()) refs.delete(id);
    }
  }
  // One string: Chrome serialises it far faster than thousands of arrays by value.
  return JSON.stringify(entries);
}
