  // outline, part content: the text of an element's content, as Chrome joins it into a
  // name: spacing between parts, CSS generated content (::before, ::after), white space
  // Chrome leaves out, text-transform. A part of outline.js's function (see dom.js).

  const contributions = new Map();  // element -> [its part of its ancestors' names, spaced?]

  // The text of `element`'s content, as Chrome joins its children's parts
  // (AXNodeObject::TextFromDescendants): a space goes between two parts when either
  // side starts a box of its own (a block, an inline-block, a replaced element, no box at
  // all with display: contents), is a control, or was named from an attribute, a label, a
  // title or a value rather than its content; inline text joins its neighbours as shown.
  // A plain inline element (a span, a b) is no part of its own: its children are joined
  // with its neighbours', as Chrome leaves it out of the tree.
  function contentText(element, context) {
    const joined = {text: '', previous: false, previousBreaks: false, lastSpaced: false,
      collapse: false, blockInside: false};
    joinChildren(element, context, joined);
    blockInsideLast = joined.blockInside;
    return joined.text;
  }

  // Whether the content contentText read last holds a block (a block inside an inline
  // element breaks the line after it: Chrome spaces what follows that element).
  let blockInsideLast = false;

  function joinChildren(element, context, joined) {
    // Content not rendered at all (a display: none target of aria-labelledby) has no
    // generated content, and no text straight inside a shadow root (as Chrome reads it).
    const unrendered = context.unrendered;
    const before = unrendered ? null : generatedContent(element, '::before', context);
    if (before) {
      join(joined, before[0], before[1], before[3], true);
      if (before[1]) joined.blockInside = true;
    }
    const owns = element.nodeType === 1 ? ownedBy(element) : [];
    // A text area's text is its value, not content.
    const children = element.localName === 'textarea' ? [] : childrenOf(element);
    for (const child of owns.length ? children.concat(owns) : children) {
      if (child.nodeType === 1 && ownedElsewhere(child) && !owns.includes(child)) continue;
      if (unrendered && child.nodeType === 3 && child.parentNode.nodeType === 11) continue;
      // Chrome stops a name past 100 nodes (kMaxDescendantsForTextAlternativeComputation):
      // the rest of a long cell or link is not in its name (and is listed as text).
      if (nodesSeen(context) > MAX_NAME_NODES) break;
      if (child.nodeType === 3) {
        // Text this name already read is not read again (but under a reference).
        if (!context.labelledby && context.visited.has(child)) continue;
        // The text of a visibility:hidden element is not shown, unless referenced; text
        // not rendered at all is not transformed by CSS (Chrome reads it from the DOM).
        const parent = textParent(child);
        if (!context.hidden && parent && style(parent)[1] !== 'visible') continue;
        let text = unrendered ? child.data : transformed(child);
        if (!NOT_SPACE.test(text)) {
          if (needlessSpace(child)) {
            // Left out, though laid out: the next text's leading white space collapses
            // into it.
            joined.collapse = true;
            continue;
          }
        } else if (joined.collapse) {
          text = text.replace(LEADING_SPACE, '');
        }
        join(joined, text, false, false, true);
        context.visited.add(child);
        continue;
      }
      if (child.nodeType !== 1) continue;
      const tag = child.localName;
      if (child === context.root || child === context.self) {
        // The element being named, met in its own label or in what its aria-labelledby
        // references: in a label, no part (a box still between its neighbours); under a
        // reference, itself as the reference reads it.
        const text = child === context.self ? selfText(child, context, false) : '';
        const box = style(child)[0] !== 'inline' || REPLACED.has(tag) ||
          CONTROLS.has(roleOf(child));
        join(joined, text, box, text !== '' && !namedFromContent, true);
        continue;
      }
      if (tag === 'script' || tag === 'style' || tag === 'noscript' || tag === 'template' ||
          tag === 'rt' || tag === 'rp' || tag === 'title' ||
          (child.namespaceURI === SVG && child.matches(SVG_UNRENDERED))) continue;
      const display = style(child)[0];
      if (!context.hidden && (display === 'none' || child.getAttribute('aria-hidden') === 'true')) {
        const shown = display !== 'none' && !context.labelledby ? shownUnderAriaHidden(child) : '';
        if (shown) join(joined, shown, true, false, true);
        continue;
      }
      if (tag === 'br') {
        join(joined, '\n', false, false, true);
        continue;
      }
      if (tag === 'wbr') {
        // Chrome names a word-break opportunity as the space it may become.
        join(joined, ' ', false, false, true);
        continue;
      }
      const role = roleOf(child);
      const control = CONTROLS.has(role) || FORM_CONTROLS.has(tag);
      // Hidden (visibility: hidden, its visible descendants still count) or a plain inline
      // element: no part of its own, its children join its neighbours'.
      const hidden = !context.hidden && style(child)[1] !== 'visible';
      // A slot is where its content goes: its attributes name nothing, and it has no box
      // (its content is spaced from its neighbours', as display: contents is).
      if (tag === 'slot' && !explicitRole(child) && !hidden) {
        const length = joined.text.length;
        if (joined.previous) joined.previousBreaks = true;
        joinChildren(child, context, joined);
        if (joined.text.length !== length) {
          joined.previous = true;
          joined.previousBreaks = true;
        }
        continue;
      }
      // (One with CSS content stays a level of its own, as in Chrome's tree: the content's
      // alternative text is spaced only within it.)
      if ((hidden || (display === 'inline' || display === 'ruby') && !control &&
           !REPLACED.has(tag) && (role === 'generic' && !keptInTree(child) || role === 'none') &&
           !named(child) &&
           !generatedContent(child, '::before', context) &&
           !generatedContent(child, '::after', context))) {
        // (Not when this name already read it, through a reference.)
        if (context.labelledby || !context.visited.has(child)) joinChildren(child, context, joined);
        continue;
      }
      // An empty inline element is not in Chrome's tree: its title names nothing (unless
      // it can take focus, or an aria-labelledby traversal reads it). CSS content is not
      // nothing.
      if (!context.labelledby && display === 'inline' && !child.firstChild && !control &&
          child.namespaceURI === HTML && !titled(child, role) &&
          !REPLACED.has(tag) && !child.hasAttribute('aria-label') &&
          !child.hasAttribute('aria-labelledby') && !focusable(child) &&
          !generatedContent(child, '::before', context) &&
          !generatedContent(child, '::after', context)) continue;
      // The part a descendant gives its ancestor's name is the same for every ancestor
      // named from its content: computed once (a cell inside a cell inside a cell...).
      // Reused only where it fits the ancestor's count of nodes whole, as computed.
      const before = nodesSeen(context);
      let part = context.own ? contributions.get(child) : undefined;
      if (part !== undefined && before + part[2] <= MAX_NAME_NODES) {
        context.visited.texts = (context.visited.texts || 0) + part[2];
      } else {
        const skips = context.visited.skips;
        const references = context.visited.references;
        const text = computeName(child, role, context, false);
        const after = nodesSeen(context);
        part = [text, text !== '' && !namedFromContent, after - before,
          text !== '' && namedFromContent && blockInsideLast];
        // A part that left out content this name had already read, or read content
        // through a reference (which later parts of this name then leave out), is its own.
        if (context.own && after <= MAX_NAME_NODES && context.visited.skips === skips &&
            context.visited.references === references) {
          contributions.set(child, part);
        }
      }
      // Its own box: not inline, or inline but laid out on its own (atomic).
      const box = display !== 'inline' && display !== 'ruby' || control ||
        (REPLACED.has(tag) && role !== 'none' && role !== 'presentation' &&
         (tag !== 'svg' || child.firstElementChild !== null || part[0] !== ''));
      // An empty inline-block or a decorative image is not in Chrome's tree: no neighbour.
      // (An inline-block holding only white space is.)
      const counted = part[0] !== '' || control || (box && (REPLACED.has(tag) ||
        !display.startsWith('inline') || child.firstChild !== null));
      if (box && !display.startsWith('inline') && display !== 'contents' ||
          part[0] !== '' && part[3]) joined.blockInside = true;
      // A block ::before opening an inline element starts a new line: the white space
      // ending the line before it is dropped, and nothing spaces the two (as Chrome joins
      // them; a block child of its own is spaced).
      if (!box && part[0] !== '' && generatedContent(child, '::before', context)?.[1]) {
        joined.text = joined.text.replace(TRAILING_SPACE, '');
      }
      // A box of its own lays its text out in lines of its own: white space at their ends
      // is not shown (so a container that starts with it does not start with a space).
      const text = box ? part[0].replace(LEADING_SPACE, '').replace(TRAILING_SPACE, '') :
        part[0];
      join(joined, text, box, part[1], counted, box || part[3]);
    }
    const after = unrendered ? null : generatedContent(element, '::after', context);
    if (after) {
      join(joined, after[0], after[1], after[3], true);
      if (after[1]) joined.blockInside = true;
    }
  }

  // Whether a title names `element` in Chrome's tree even when it is an empty inline
  // element (an <abbr>; not a plain container or a text-level element).
  function titled(element, role) {
    return role !== 'generic' && !NO_TOOLTIP.has(role) &&
      Boolean(element.getAttribute('title')?.trim());
  }

  // The value of an element given a text-field role: the text it shows (not what is
  // hidden in it), as Chrome reads it; all of it when it is not rendered at all.
  function ariaFieldText(element) {
    return element.innerText ?? element.textContent;
  }

  // What Chrome still reads of aria-hidden content into an ancestor's name from its
  // content: the options of a list box (not a drop-down) and an empty field's
  // placeholder, which its tree does not hang under the hidden element (so they are not
  // hidden); not into what an aria-labelledby reads, nor when the hidden element or the
  // control has CSS content.
  function shownUnderAriaHidden(element) {
    const controls = element.matches('select, input, textarea') ? [element] :
      element.querySelectorAll('select, input, textarea');
    if (!controls.length || cssContent(element)) return '';
    const parts = [];
    for (const control of controls) {
      if (!shownWithin(control, element) || control !== element && cssContent(control)) continue;
      if (control.localName === 'select') {
        if (roleOf(control) === 'combobox') continue;
        for (const option of control.options) parts.push(squash(option.label || option.textContent));
      } else if (takesPlaceholder(control) && !control.value) {
        parts.push(squash(control.getAttribute('placeholder') || ''));
      }
    }
    return parts.filter(Boolean).join(' ');
  }

  // Whether CSS gives `element` ::before or ::after content (even where it draws none).
  function cssContent(element) {
    return Boolean(element.namespaceURI === HTML && mayGenerate(element) &&
      (pseudoText(element, '::before') || pseudoText(element, '::after')));
  }

  // Whether `element` is laid out and visible, as far as `within` (an ancestor) goes.
  function shownWithin(element, within) {
    if (style(element)[1] !== 'visible') return false;
    for (let up = element; up && up !== within; up = parentOf(up)) {
      if (style(up)[0] === 'none') return false;
    }
    return style(within)[0] !== 'none';
  }

  // Whether Chrome keeps a plain container in its tree (then its content is joined within
  // it, a part of its own): an id (a link may target it), a language, an ARIA attribute,
  // a click handler, focus or the generic role given explicitly.
  function keptInTree(element) {
    return !!element.id || element.hasAttribute('lang') || element.hasAttribute('tabindex') ||
      element.hasAttribute('onclick') || explicitRole(element) === 'generic' ||
      hasAriaAttribute(element);
  }

  // Whether an element has any aria-* attribute (one that may make it matter to Chrome).
  function hasAriaAttribute(element) {
    for (const attribute of element.attributes) {
      if (attribute.name.startsWith('aria-')) return true;
    }
    return false;
  }

  // Elements that have no ::before / ::after boxes (replaced or with their own drawing; a
  // meter or progress bar is drawn by a shadow tree, and has them).
  const NO_GENERATED = new Set(['img', 'input', 'select', 'textarea', 'video', 'audio', 'iframe',
    'canvas', 'object', 'embed', 'svg', 'br', 'wbr', 'hr', 'option', 'optgroup']);
  const generated = new Map();  // element -> [[before text, block?] | null, [after...] | null]

  // The text CSS generated content (::before, ::after) adds to an element's content, with
  // whether it is a box of its own: [text, block], or null. Its alternative text
  // (content: "→" / "Next") stands for it, as in Chrome. Hidden content read under a
  // reference keeps its text, but not what hidden generated content shows: that counts
  // only by its alternative text (as Chrome reads it).
  function generatedContent(element, which, context) {
    const found = generatedBox(element, which);
    if (!found) return null;
    if (found[2] && !(context.hidden && ariaHiddenFrom(element))) return found;
    return context.hidden && found[3] ? found : null;
  }

  // [text, block, visible, alternative] of the ::before / ::after box of `element`,
  // shown or not, or null.
  function generatedBox(element, which) {
    if (element.nodeType !== 1 || NO_GENERATED.has(element.localName) ||
        element.namespaceURI !== HTML) return null;
    let cached = generated.get(element);
    if (cached === undefined) {
      cached = mayGenerate(element) ?
        [pseudoText(element, '::before'), pseudoText(element, '::after')] : NOTHING_GENERATED;
      generated.set(element, cached);
    }
    return cached[which === '::before' ? 0 : 1];
  }

  // Whether aria-hidden="true" is on `element` or an ancestor.
  function ariaHiddenFrom(element) {
    for (let up = element; up && up.nodeType === 1; up = parentOf(up)) {
      if (up.getAttribute('aria-hidden') === 'true') return true;
    }
    return false;
  }

  const NOTHING_GENERATED = [null, null];

  // Reading a pseudo-element's style costs about as much as the rest of a name: it is read
  // only for elements a ::before / ::after rule may reach. The style sheets of the
  // element's tree are scanned once per walk for such rules; their selectors, the pseudo-
  // element taken off, are matched against the element. A sheet that cannot be read (from
  // another origin), or rules reaching across trees (:host, ::slotted, ::part), mean every
  // element of that tree is checked. Quotes are the user agent's own generated content.
  const pseudoSelectors = new Map();  // tree root -> selector list | true (check all)

  function mayGenerate(element) {
    if (element.localName === 'q') return true;
    const selector = pseudoSelectorOf(element.getRootNode());
    if (selector === true || element.shadowRoot && pseudoSelectorOf(element.shadowRoot) === true) {
      return true;
    }
    return selector !== '' && element.matches(selector);
  }

  function pseudoSelectorOf(root) {
    let selector = pseudoSelectors.get(root);
    if (selector === undefined) {
      selector = scanSheets(root);
      pseudoSelectors.set(root, selector);
    }
    return selector;
  }

  const PSEUDO = /::?(before|after)\b/i;
  const PSEUDO_ALL = /::?(before|after)\b/gi;
  const ACROSS_TREES = /:host|::slotted|::part/i;

  function scanSheets(root) {
    const parts = [];
    const sheets = [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
    for (const sheet of sheets) {
      if (!scanRules(sheet, parts)) return true;
    }
    const list = parts.join(', ');
    if (list) {
      try {
        document.createElement('div').matches(list);
      } catch {
        return true;  // a selector this way of reading cannot take
      }
    }
    return list;
  }

  // Adds the base selectors of `container`'s ::before / ::after rules to `parts`; false
  // when they cannot be known.
  function scanRules(container, parts) {
    let rules;
    try {
      rules = container.cssRules;
    } catch {
      return false;
    }
    if (!rules) return true;
    for (const rule of rules) {
      const text = rule.selectorText;
      if (text !== undefined && PSEUDO.test(text)) {
        if (ACROSS_TREES.test(text)) return false;
        for (const one of splitSelectors(text)) {
          if (PSEUDO.test(one)) parts.push(one.replace(PSEUDO_ALL, '').trim() || '*');
        }
      }
      if (rule.styleSheet && !scanRules(rule.styleSheet, parts)) return false;  // @import
      if (rule.cssRules?.length && !scanRules(rule, parts)) return false;
    }
    return true;
  }

  // A selector list's selectors (commas inside parentheses kept).
  function splitSelectors(text) {
    const found = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (c === ',' && depth === 0) {
        found.push(text.slice(start, i));
        start = i + 1;
      }
    }
    found.push(text.slice(start));
    return found;
  }

  // [text, block, visible, alternative] of one pseudo-element, or null.
  function pseudoText(element, which) {
    const computed = getComputedStyle(element, which);
    const content = computed.content;
    if (!content || content === 'none' || content === 'normal') return null;
    const display = computed.display;
    if (display === 'none') return null;
    let text = '';
    let alternative = null;
    let slash = false;
    for (const match of content.matchAll(CONTENT_TOKENS)) {
      if (match[0] === '/') {
        slash = true;
        alternative = '';
        continue;
      }
      const part = match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') :
        match[2] !== undefined ? element.getAttribute(match[2].trim()) || '' :
        match[0] === 'open-quote' ? '\u201c' :
        match[0] === 'close-quote' && quoteOpen(element, which) ? '\u201d' : '';
      if (slash) alternative += part;
      else text += part;
    }
    if (alternative !== null) text = alternative;
    else text = transformText(text, computed.textTransform);
    if (text === '') return null;
    // An alternative text is spaced from its neighbours, as a name from an attribute is.
    return [text, display !== 'inline', computed.visibility === 'visible', alternative !== null];
  }
  // The parts of a computed `content`: strings, attr(), quotes (the default English
  // ones), the alternative text's slash.
  const CONTENT_TOKENS =
    /"((?:[^"\\]|\\.)*)"|attr\(([^)]*)\)|no-open-quote|no-close-quote|open-quote|close-quote|\//g;

  // Whether a close-quote has a quote to close: one opened by the element's ::before or an
  // ancestor's (at nesting depth 0 it shows nothing, CSS Generated Content 3), as when a
  // rule replaces a <q>'s opening quote.
  function quoteOpen(element, which) {
    for (let up = element; up && up.nodeType === 1; up = parentOf(up)) {
      if (up === element && which === '::before') continue;
      const content = getComputedStyle(up, '::before').content;
      if (/(^|[^-])open-quote/.test(content)) return true;
    }
    return false;
  }

  const MAX_NAME_NODES = 100;

  // The nodes a name's computation went through: elements named, text joined (cached
  // parts counted as text).
  function nodesSeen(context) {
    return context.visited.size + (context.visited.texts || 0);
  }

  // Space, tab, line feed, form feed, carriage return (not a no-break space).
  function htmlSpace(code) {
    return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
  }

  function join(joined, text, breaks, spaced, counted, breaksAfter = breaks) {
    if (text !== '') {
      if (joined.previous && joined.text !== '' &&
          (breaks || spaced || joined.previousBreaks || joined.lastSpaced) &&
          !htmlSpace(joined.text.charCodeAt(joined.text.length - 1)) &&
          !htmlSpace(text.charCodeAt(0))) joined.text += ' ';
      joined.text += text;
      joined.lastSpaced = spaced;
      joined.collapse = false;
    }
    if (counted) {
      joined.previous = true;
      joined.previousBreaks = breaksAfter;
    }
  }

  // Chrome leaves out of its tree the white space between two things read apart anyway
  // (AXObjectCacheImpl's CanIgnoreSpace): a blank text node next to a block, an
  // inline-block, a comment, hidden content, other white space, or at either end of the
  // document. So "<span>37/50</span> <!-- title --> Title" is named "37/50Title".
  const NOT_SPACE = /[^ \t\n\r\f]/;
  const LEADING_SPACE = /^[ \t\n\r\f]+/;
  const TRAILING_SPACE = /[ \t\n\r\f]+$/;

  function needlessSpace(text) {
    const before = adjacent(text, false);
    const after = adjacent(text, true);
    return !before || !after || needlessNextTo(before, false, 0) || needlessNextTo(after, true, 0);
  }

  // The node next to `node` in document order, its own descendants skipped.
  function adjacent(node, after) {
    for (let up = node; up; up = up.parentNode) {
      const sibling = after ? up.nextSibling : up.previousSibling;
      if (sibling) return sibling;
    }
    return null;
  }

  function needlessNextTo(node, after, depth) {
    if (depth > 3) return false;
    if (node.nodeType === 3) {
      if (node.data === '') return false;
      // Text after the blank: its own leading white space collapses into the blank's, so
      // what shows first is its first other character.
      if (after) return !NOT_SPACE.test(node.data);
      return !NOT_SPACE.test(node.data[node.data.length - 1]);
    }
    if (node.nodeType !== 1) return true;  // a comment: nothing laid out
    const display = style(node)[0];
    if (node.localName === 'img' && display !== 'none') return false;
    if (display !== 'inline' || REPLACED.has(node.localName)) return true;
    // An inline element: what its edge shows, or past it when it shows nothing.
    let child = after ? node.firstChild : node.lastChild;
    while (child && child.nodeType !== 3 && (child.nodeType !== 1 || style(child)[0] === 'none')) {
      child = after ? child.nextSibling : child.previousSibling;
    }
    if (child) return needlessNextTo(child, after, depth + 1);
    const next = adjacent(node, after);
    return next !== null && needlessNextTo(next, after, depth + 1);
  }

  function textTransformOf(element) {
    const cached = style(element);
    if (cached[2] === undefined) cached[2] = cached[3].textTransform;
    return cached[2];
  }

  // The element whose style a text node takes: its parent, or the host of the shadow
  // root it is straight inside.
  function textParent(node) {
    return node.parentElement ?? node.parentNode?.host ?? null;
  }

  // A text node's text as shown: with its CSS text-transform.
  function transformed(node) {
    const parent = textParent(node);
    if (!parent) return node.data;
    // An option's text is not laid out as text: no transform.
    if (parent.localName === 'option' || parent.localName === 'optgroup') return node.data;
    return transformText(node.data, textTransformOf(parent));
  }

  function transformText(text, transform) {
    if (transform === 'none') return text;
    if (transform === 'uppercase') return text.toUpperCase();
    if (transform === 'lowercase') return text.toLowerCase();
    if (transform === 'capitalize') return text.replace(/(^|\s)(\S)/g, (_match, a, b) => a + b.toUpperCase());
    return text;
  }

  function textOf(element, context) {
    return contentText(element, {visited: context.visited, labelledby: true, hidden: true,
      root: element});
  }
