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
  const styles = new Map();  // element -> [display, visibility, hidden subtree?]
  const boxesWanted = !options || options.boxes !== false;
  const everyText = Boolean(options?.everyText);

  const ROLES = new Set((
    'alert alertdialog application article banner blockquote button caption cell checkbox code ' +
    'columnheader combobox comment complementary contentinfo definition deletion dialog directory ' +
    'document emphasis feed figure form generic grid gridcell group heading img image insertion ' +
    'link list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox ' +
    'menuitemradio meter navigation none note option paragraph presentation progressbar radio ' +
    'radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider ' +
    'spinbutton status strong subscript superscript switch tab table tablist tabpanel term ' +
    'textbox time timer toolbar tooltip tree treegrid treeitem').split(' '));
  // Roles whose name comes from their content (accname 1.2, step 2F).
  const FROM_CONTENT = new Set((
    'button cell checkbox columnheader gridcell heading link menuitem menuitemcheckbox ' +
    'menuitemradio option radio rowheader switch tab tooltip treeitem DisclosureTriangle ' +
    'LayoutTableCell term').split(' '));
  // Roles named from their content only when they have the focus (Chrome's repair for a
  // focused element its author left unnamed); they give their content to an ancestor's.
  const FROM_CONTENT_IF_FOCUSABLE = new Set((
    'Abbr Canvas caption code deletion insertion definition emphasis Figcaption ' +
    'sectionfooter sectionheader group LayoutTable LayoutTableRow Legend ' +
    'listitem mark paragraph Section strong subscript superscript time list ' +
    'DescriptionList row generic region LabelText Ruby').split(' '));
  // Containers whose content is not part of an ancestor's name (Chrome).
  const NO_CONTRIBUTION = new Set(('alert alertdialog application article Audio banner row ' +
    'comment complementary rowgroup scrollbar sectionfooter sectionheader tabpanel ' +
    'contentinfo dialog document EmbeddedObject figure form graphics-symbol grid Iframe image ' +
    'listbox log main marquee menu menubar navigation note PluginObject radiogroup region ' +
    'search status table tablist timer toolbar tree treegrid Video').split(' '));
  // Shown only when named or focusable (the outline's noise).
  const NOISE = new Set(['generic', 'none', 'presentation', 'LabelText', 'MenuListPopup', 'Unknown',
    'Section', 'Canvas', 'EmbeddedObject']);
  // Roles a title attribute does not name (naming prohibited, as Chrome has it; a term
  // and a definition too, though an aria-label names them).
  const NO_TOOLTIP = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic',
    'insertion', 'mark', 'paragraph', 'presentation', 'none', 'strong', 'subscript',
    'superscript', 'term', 'time']);
  // Their inner text is their value or their options: no text entries inside.
  // (An image's content is listed: Chrome lists the text inside a role="img".)
  const LEAF = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'progressbar', 'meter',
    'separator']);
  const ARIA_RANGES = new Set(['progressbar', 'meter']);
  const TEXT_INPUTS = new Set(['text', 'email', 'tel', 'url', 'password', '']);
  const INPUT_TYPES = new Set(['button', 'checkbox', 'color', 'date', 'datetime-local', 'email',
    'file', 'hidden', 'image', 'month', 'number', 'password', 'radio', 'range', 'reset', 'search',
    'submit', 'tel', 'text', 'time', 'url', 'week']);
  const BUTTON_INPUTS = new Set(['button', 'submit', 'reset', 'image']);
  // Replaced elements: a box of their own, spaced from their neighbours' text in names.
  const REPLACED = new Set(['img', 'input', 'select', 'textarea', 'button', 'svg', 'video',
    'audio', 'iframe', 'canvas', 'object', 'embed']);
  // Controls (Chrome's IsControl): spaced from their neighbours' text in names.
  const CONTROLS = new Set(('button checkbox ColorWell combobox Date DisclosureTriangle InputTime ' +
    'listbox menu menubar menuitem menuitemcheckbox menuitemradio PopUpButton radio scrollbar ' +
    'searchbox slider spinbutton switch tab textbox ToggleButton tree').split(' '));
  const FORM_CONTROLS = new Set(['button', 'fieldset', 'input', 'output', 'select', 'textarea']);
  const SVG = 'http://www.w3.org/2000/svg';
  const HTML = 'http://www.w3.org/1999/xhtml';
  const SVG_SHAPES = new Set(['circle', 'ellipse', 'line', 'path', 'polygon', 'polyline', 'rect']);
  // SVG elements never drawn where they stand: definitions, metadata, paint servers.
  const SVG_UNRENDERED = 'defs, symbol, clipPath, mask, pattern, marker, linearGradient, ' +
    'radialGradient, filter, desc, metadata';

  function style(element) {
    let cached = styles.get(element);
    if (cached === undefined) {
      const computed = getComputedStyle(element);
      // [2], the text-transform, is read when a text child asks (textTransformOf).
      cached = [computed.display, computed.visibility, undefined, computed];
      styles.set(element, cached);
    }
    return cached;
  }

  function idOf(node) {
    let id = ids.get(node);
    if (id === undefined) {
      id = registry.next++;
      ids.set(node, id);
      refs.set(id, new WeakRef(node));
    }
    return id;
  }

  // Is `element` (and so its subtree) out of the accessibility tree?
  function excluded(element) {
    const [display] = style(element);
    if (display === 'none') return true;
    if (element.getAttribute('aria-hidden') === 'true') return true;
    if (element.inert) return true;
    return false;
  }

  // A node's children as an array: walking a live NodeList with for-of costs some twenty
  // times as much as following nextSibling.
  function childList(parent) {
    const children = [];
    for (let child = parent.firstChild; child; child = child.nextSibling) children.push(child);
    return children;
  }

  // The composed-tree children of a node: its shadow root's, a slot's assigned nodes.
  function childrenOf(node) {
    if (node.nodeType === 1) {
      if (node.shadowRoot) return childList(node.shadowRoot);
      if (node.localName === 'slot' && node.getRootNode() instanceof ShadowRoot) {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
      if (node.localName === 'details' && !node.open) {
        const summary = [...node.children].find((child) => child.localName === 'summary');
        return summary ? [summary] : [];
      }
      if (node.localName === 'template') return [];
    }
    return childList(node);
  }

  function explicitRole(element) {
    const attribute = element.getAttribute('role');
    if (!attribute) return null;
    for (const token of attribute.trim().toLowerCase().split(/\s+/)) {
      if (ROLES.has(token)) return token;
    }
    return null;
  }

  function focusable(element) {
    if (element.disabled) return false;
    // An anchor without href reports tabIndex 0 but takes no focus.
    const can = element.hasAttribute('tabindex') ||
      (element.localName === 'a' || element.localName === 'area' ?
        element.hasAttribute('href') : element.tabIndex >= 0);
    // An element with display: contents has no box to take the focus (as Chrome has it).
    return can && style(element)[0] !== 'contents';
  }

  function hasGlobalAria(element) {
    for (const name of ['aria-label', 'aria-labelledby', 'aria-describedby', 'aria-live',
      'aria-controls', 'aria-owns', 'aria-details', 'aria-keyshortcuts', 'aria-roledescription']) {
      if (element.hasAttribute(name)) return true;
    }
    return false;
  }

  // Whether `element` is inside sectioning content (article, aside, nav, section; and main
  // when `main` is true), which scopes header, footer and aside to it.
  function inSectioning(element, main) {
    for (let up = parentOf(element); up && up.nodeType === 1; up = parentOf(up)) {
      const tag = up.localName;
      if (tag === 'article' || tag === 'aside' || tag === 'nav' || tag === 'section' ||
          (main && tag === 'main')) return true;
      const role = up.getAttribute('role');
      if (role === 'article' || role === 'complementary' || role === 'navigation' ||
          role === 'region' || (main && role === 'main')) return true;
    }
    return false;
  }

  function parentOf(node) {
    if (node.assignedSlot) return node.assignedSlot;
    const parent = node.parentNode;
    if (parent && parent.nodeType === 11 && parent.host) return parent.host;
    return parent;
  }

  function inputRole(element) {
    const type = (element.getAttribute('type') || '').toLowerCase();
    if (BUTTON_INPUTS.has(type)) return 'button';
    switch (type) {
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'search': return element.hasAttribute('list') ? 'combobox' : 'searchbox';
      case 'hidden': return null;
      case 'color': return 'ColorWell';
      case 'file': return 'button';
      case 'date': case 'datetime-local': case 'month': case 'week': return 'Date';
      case 'time': return 'InputTime';
    }
    return element.hasAttribute('list') ? 'combobox' : 'textbox';
  }

  function implicitRole(element) {
    const tag = element.localName;
    if (element.namespaceURI === SVG && tag !== 'svg' && tag !== 'a') return svgRole(element);
    switch (tag) {
      case 'a': case 'area':
        return element.hasAttribute('href') || element.hasAttribute('onclick') ? 'link' : 'generic';
      case 'address': return 'group';
      case 'article': return 'article';
      case 'aside': return inSectioning(element, false) && !named(element) ? 'generic' : 'complementary';
      case 'blockquote': return 'blockquote';
      case 'button': return 'button';
      case 'caption': return 'caption';
      case 'code': return 'code';
      case 'datalist': return 'listbox';
      case 'dd': return 'definition';
      case 'del': case 's': return 'deletion';
      case 'details': return 'group';
      case 'dfn': case 'dt': return 'term';
      case 'dialog': return 'dialog';
      case 'dl': return 'DescriptionList';
      case 'em': return 'emphasis';
      case 'fieldset': return 'group';
      case 'figure': return 'figure';
      case 'figcaption': return 'Figcaption';
      case 'footer': return inSectioning(element, true) ? 'sectionfooter' : 'contentinfo';
      case 'form': return 'form';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'header': return inSectioning(element, true) ? 'sectionheader' : 'banner';
      case 'hgroup': return 'group';
      case 'hr': return 'separator';
      case 'iframe': case 'frame': return 'Iframe';
      case 'img':
        // Any aria-* attribute (aria-hidden="false", a state) keeps an empty-alt image.
        if (element.getAttribute('alt') === '' && !element.hasAttribute('title') &&
            !hasAriaAttribute(element) && !focusable(element)) return 'presentation';
        return 'image';
      case 'input': return inputRole(element);
      case 'ins': return 'insertion';
      case 'label': return 'LabelText';
      case 'legend': return 'Legend';
      case 'li': {
        // An item of a list element given another role is presentational (ARIA's
        // inherited presentation, as Chrome applies it: even named or focusable, it is no
        // node of its own; see inheritedPresentation).
        return inheritedPresentation(element) ? 'none' : 'listitem';
      }
      case 'main': return 'main';
      case 'mark': return 'mark';
      case 'math': return 'math';
      case 'menu': case 'ol': case 'ul': return 'list';
      case 'meter': return 'meter';
      case 'nav': return 'navigation';
      case 'optgroup': return 'group';
      case 'option': return 'option';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'progress': return 'progressbar';
      case 'search': return 'search';
      // An unnamed section that takes focus is a plain container (as Chrome has it).
      case 'section': return named(element) ? 'region' : focusable(element) ? 'generic' : 'Section';
      case 'select':
        // A size of one makes even a multiple select a drop-down (as Chrome has it).
        return element.size > 1 || element.multiple && element.size === 0 ? 'listbox' : 'combobox';
      case 'strong': case 'b': return tag === 'strong' ? 'strong' : 'generic';
      case 'sub': return 'subscript';
      case 'sup': return 'superscript';
      case 'summary': return summaryOfDetails(element) ? 'DisclosureTriangle' : 'generic';
      case 'svg':
        // An SVG with text, links or named parts inside is a document of its own; one
        // with shapes only, one picture; an empty one, nothing.
        if (svgHasContent(element)) return 'SvgRoot';
        return element.firstElementChild || named(element) ? 'image' : 'none';
      case 'table': return dataTable(element) ? 'table' : 'LayoutTable';
      // A data table's head and foot are listed; its body only when named.
      // A table's parts are parts only of a table (or grid): of a table given another role,
      // plain containers. A data table's head and foot are listed; its body only when named.
      case 'tbody': case 'thead': case 'tfoot':
        return (tableKind(element) === 'data' || tableKind(element) === 'grid') &&
          (tag !== 'tbody' || named(element) || focusable(element)) ? 'rowgroup' : 'generic';
      case 'td': {
        const kind = tableKind(element);
        return kind === 'data' ? 'cell' : kind === 'grid' ? 'gridcell' :
          kind === 'layout' ? 'LayoutTableCell' : 'generic';
      }
      case 'th': {
        const kind = tableKind(element);
        return kind === 'data' || kind === 'grid' ? thRole(element) :
          kind === 'layout' ? 'LayoutTableCell' : 'generic';
      }
      case 'textarea': return 'textbox';
      case 'time': return 'time';
      case 'tr': {
        const kind = tableKind(element);
        return kind === 'layout' ? 'LayoutTableRow' : kind === null ? 'generic' : 'row';
      }
      case 'abbr': return 'Abbr';
      case 'ruby': return 'Ruby';
      case 'video': return 'Video';
      case 'audio': return 'Audio';
      case 'canvas': return 'Canvas';
      case 'embed': return 'EmbeddedObject';
      case 'object': return 'PluginObject';
      case 'br': return 'LineBreak';
      case 'html': case 'body': return 'generic';
    }
    return 'generic';
  }

  // Whether an <li> (without a role of its own) is an item of a list element given another
  // role than a list's. Chrome reads the list's role attribute as written: any value but
  // "list" or "directory" (even " list " or "LIST", which still make the list a list)
  // takes the items' role away.
  function inheritedPresentation(element) {
    if (element.localName !== 'li' || element.hasAttribute('role')) return false;
    const parent = parentOf(element);
    if (!parent || parent.nodeType !== 1 || (parent.localName !== 'ul' &&
        parent.localName !== 'ol' && parent.localName !== 'menu')) return false;
    const written = parent.getAttribute('role');
    if (written === null || written.trim() === '') return false;
    return written !== 'list' && written !== 'directory';
  }

  // -- SVG: named parts of a drawing are listed (Chrome's graphics roles) -----------------

  // A part of a drawing: a named shape is a symbol, a named group (or a use of a named
  // symbol) a group; unnamed ones are plain containers.
  function svgRole(element) {
    const tag = element.localName;
    if (SVG_SHAPES.has(tag)) return svgNamed(element) ? 'graphics-symbol' : 'generic';
    if (tag === 'g' || tag === 'symbol' || tag === 'switch') {
      return svgNamed(element) ? 'group' : 'generic';
    }
    if (tag === 'use') {
      const target = useTarget(element);
      return target && svgNamed(target) ? 'group' : 'generic';
    }
    if (tag === 'image') return svgNamed(element) ? 'image' : 'generic';
    return 'generic';
  }

  function svgNamed(element) {
    return named(element) && !element.hasAttribute('title') || svgTitle(element) !== '';
  }

  // The text of an SVG element's own <title> child.
  function svgTitle(element) {
    for (const child of element.children) {
      if (child.localName === 'title') return child.textContent;
    }
    return '';
  }

  // The element a <use> draws (its copy lives in a closed shadow tree out of reach).
  function useTarget(use) {
    const href = use.getAttribute('href') || use.getAttribute('xlink:href') || '';
    if (!href.startsWith('#')) return null;
    const root = use.getRootNode();
    return root.getElementById ? root.getElementById(href.slice(1)) : null;
  }

  // Whether an <svg> holds text, links or named parts (through <use> too): Chrome lists it
  // as a document of its own (SvgRoot) with those inside, else as one image.
  function svgHasContent(svg) {
    for (const part of svg.querySelectorAll(
      'text, a, foreignObject, title, use, [aria-label], [aria-labelledby], [role]')) {
      if (part.closest(SVG_UNRENDERED)) continue;
      const tag = part.localName;
      if (tag === 'title') {
        if (part.parentNode !== svg && part.textContent.trim()) return true;
      } else if (tag === 'use') {
        const target = useTarget(part);
        if (target && svgNamed(target)) return true;
      } else if (tag === 'text' || tag === 'a' || tag === 'foreignObject' || named(part) ||
                 (explicitRole(part) && explicitRole(part) !== 'none' &&
                  explicitRole(part) !== 'presentation')) {
        return true;
      }
    }
    return false;
  }

  const tables = new Map();  // table -> whether it holds data (not layout)

  // What the table an element is part of is: 'data', 'grid' (a grid or treegrid),
  // 'layout', or null (no table, or a table given a role that is none of these).
  function tableKind(element) {
    const table = tableOf(element);
    if (!table) return 'data';
    const role = roleOf(table);
    if (role === 'table') return 'data';
    if (role === 'grid' || role === 'treegrid') return 'grid';
    if (role === 'LayoutTable') return 'layout';
    return null;
  }

  function tableOf(element) {
    let up = element.parentElement;
    while (up && up.localName !== 'table') up = up.parentElement;
    return up;
  }

  // Whether a table holds data, as Chrome guesses it (a layout table's parts have
  // Chrome's Layout* roles).
  function dataTable(table) {
    if (!table) return true;
    let data = tables.get(table);
    if (data === undefined) {
      data = guessDataTable(table);
      tables.set(table, data);
    }
    return data;
  }

  // Chrome's guess (AXNodeObject::IsDataTable): headers, captions, many rows, bordered
  // or zebra-striped cells make a data table.
  function guessDataTable(table) {
    if (explicitRole(table) || table.isContentEditable) return true;
    // Without a box of its own (display: contents) there is no layout to guess from.
    if (style(table)[0] === 'contents') return true;
    if (table.caption || table.tHead || table.tFoot || table.hasAttribute('summary') ||
        table.hasAttribute('rules')) return true;
    if (table.querySelector(':scope > colgroup, :scope > col')) return true;
    const rows = table.rows;
    if (rows.length >= 20) return true;
    if (!rows.length || (rows.length === 1 && rows[0].cells.length === 1)) return false;
    const tableStyle = style(table)[3];
    const tableBackground = tableStyle.backgroundColor;
    const spacing = tableStyle.borderSpacing !== '0px 0px' && tableStyle.borderSpacing !== '0px';
    let cells = 0, bordered = 0, top = 0, bottom = 0, left = 0, right = 0, backgrounds = 0;
    const rowColors = [];
    for (let r = 0; r < rows.length; r++) {
      for (const cell of rows[r].cells) {
        if (cell.localName === 'th' || cell.hasAttribute('headers') || cell.hasAttribute('abbr') ||
            cell.hasAttribute('axis') || cell.hasAttribute('scope')) return true;
        const cellStyle = style(cell)[3];
        if (style(cell)[0] === 'none') continue;
        cells++;
        const t = parseFloat(cellStyle.borderTopWidth) > 0;
        const b = parseFloat(cellStyle.borderBottomWidth) > 0;
        const l = parseFloat(cellStyle.borderLeftWidth) > 0;
        const ri = parseFloat(cellStyle.borderRightWidth) > 0;
        if ((t && b) || (l && ri)) bordered++;
        top += t; bottom += b; left += l; right += ri;
        const background = cellStyle.backgroundColor;
        if (spacing && background !== tableBackground && background !== 'rgba(0, 0, 0, 0)') {
          backgrounds++;
        }
        if (bordered >= 10 || backgrounds >= 10) return true;
        if (r < 5 && r === rowColors.length) rowColors.push(style(rows[r])[3].backgroundColor);
      }
    }
    if (cells <= 1) return false;
    const needed = Math.floor(cells / 2);
    if (bordered >= needed || top >= needed || bottom >= needed || left >= needed ||
        right >= needed || backgrounds >= needed) return true;
    if (rowColors.length > 2) {
      for (let k = 1; k < rowColors.length; k++) {
        if (k % 2 === 1 && rowColors[k] === rowColors[0]) return false;
        if (k % 2 === 0 && rowColors[k] !== rowColors[0]) return false;
      }
      return true;
    }
    return false;
  }

  // A th's role when its scope does not say (Chrome's DecideRoleFromSiblings): a header
  // next to a non-empty data cell, or in a row that starts or ends with one, heads its
  // row; otherwise its column.
  function thRole(element) {
    const scope = (element.getAttribute('scope') || '').toLowerCase();
    if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
    if (scope === 'col' || scope === 'colgroup') return 'columnheader';
    const next = element.nextSibling;
    const previous = element.previousSibling;
    if (!next && !previous) return 'columnheader';
    if (isHeaderCell(next) && isHeaderCell(previous)) return 'columnheader';
    if (nonEmptyDataCell(next) || nonEmptyDataCell(previous)) return 'rowheader';
    const row = element.parentNode;
    if (!row || row.localName !== 'tr') return 'columnheader';
    const first = row.firstElementChild;
    const last = row.lastElementChild;
    if (nonEmptyDataCell(first) || nonEmptyDataCell(last)) return 'rowheader';
    if (nonEmptyDataCell(first?.nextElementSibling) ||
        nonEmptyDataCell(last?.previousElementSibling)) return 'rowheader';
    return 'columnheader';
  }

  function isHeaderCell(node) {
    return !!node && node.localName === 'th';
  }

  function nonEmptyDataCell(node) {
    return !!node && node.localName === 'td' && node.hasChildNodes();
  }

  // A summary is its details' disclosure triangle (through a slot too); elsewhere, a
  // plain container.
  function summaryOfDetails(element) {
    let parent = element.assignedSlot || element.parentNode;
    if (parent && parent.localName === 'slot') parent = parent.assignedSlot || parentOf(parent);
    return !!parent && parent.localName === 'details';
  }

  // Whether an element is named by an attribute: an aria-label, a title, or an
  // aria-labelledby that references an element (one whose ids all miss names nothing, as
  // Chrome has it).
  function named(element) {
    return Boolean(ariaLabel(element)?.trim()) ||
      element.hasAttribute('aria-labelledby') && byIds(element, 'aria-labelledby').length > 0 ||
      element.hasAttribute('title');
  }

  // An element's aria-label; a slot's names nothing (Chrome reads a slot as the content
  // assigned to it).
  function ariaLabel(element) {
    return element.localName === 'slot' ? null : element.getAttribute('aria-label');
  }

  const roles = new Map();

  function roleOf(element) {
    let role = roles.get(element);
    if (role === undefined) {
      role = computeRole(element);
      roles.set(element, role);
    }
    return role;
  }

  function computeRole(element) {
    const role = explicitRole(element);
    if (role === 'none' || role === 'presentation') {
      // Presentation is ignored on what can take focus or carries global ARIA.
      if (!focusable(element) && !hasGlobalAria(element)) return 'none';
    } else if (role === 'img') {
      return 'image';
    } else if (role === 'directory') {
      return 'list';  // deprecated in ARIA 1.2; Chrome maps it to a list
    } else if (role) {
      // Chrome drops a region without a name, and an item outside the container its role
      // needs: the element keeps its own role.
      if (role === 'region' && !named(element)) return implicitRole(element);
      const context = REQUIRED_CONTEXT[role];
      if (context && !inContext(element, context)) return implicitRole(element);
      return role;
    }
    return implicitRole(element);
  }

  const REQUIRED_CONTEXT = {
    listitem: ['list', 'directory'],
    option: ['listbox', 'group'],
    treeitem: ['tree', 'group'],
  };

  // Whether the nearest ancestor that is more than a plain container has one of `roles`.
  // (A group is a context only inside the container it groups for: a listbox's options,
  // a tree's items.)
  function inContext(element, roles) {
    for (let up = parentOf(element); up && up.nodeType === 1; up = parentOf(up)) {
      const role = roleOf(up);
      if (role === 'generic' || role === 'none' || role === 'presentation') continue;
      if (role === 'group' && roles.includes('group')) return inContext(up, roles);
      return roles.includes(role) || (up.localName === 'select' || up.localName === 'datalist') &&
        roles.includes('listbox');
    }
    return false;
  }

  // -- accessible names (accname 1.2, the parts Chrome follows) -------------------------------

  function squash(text) {
    // Python whitespace: a zero-width no-break space (U+FEFF) is text in Chrome's names.
    let squashed = text.replace(/[^\S\ufeff]+/g, ' ');
    if (squashed.charCodeAt(0) === 32) squashed = squashed.slice(1);
    if (squashed.charCodeAt(squashed.length - 1) === 32) squashed = squashed.slice(0, -1);
    return squashed;
  }

  // Whether an aria-labelledby target is hidden (itself, or inside something hidden):
  // then its hidden content counts too (accname 2A, as Chrome applies it). 0: shown; 1:
  // hidden but laid out (visibility, aria-hidden); 2: not rendered (display: none).
  function hiddenTarget(target) {
    let hidden = style(target)[1] !== 'visible' ? 1 : 0;
    for (let up = target; up && up.nodeType === 1; up = parentOf(up)) {
      if (style(up)[0] === 'none') return 2;
      if (up.getAttribute('aria-hidden') === 'true') hidden = 1;
    }
    return hidden;
  }

  function hiddenForName(element) {
    const [display, visibility] = style(element);
    return display === 'none' || visibility === 'hidden' || visibility === 'collapse' ||
      element.getAttribute('aria-hidden') === 'true';
  }

  function byIds(element, attribute) {
    const value = element.getAttribute(attribute);
    if (!value) return [];
    const root = element.getRootNode();
    const found = [];
    for (const id of value.trim().split(/\s+/)) {
      const target = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      if (target) found.push(target);
    }
    return found;
  }

  const SELECTED = '[aria-selected="true"]';

  // The elements `element`'s aria-owns takes in (not its own ancestors).
  function ownedBy(element) {
    if (!element.hasAttribute('aria-owns')) return [];
    return byIds(element, 'aria-owns').filter((owned) => !owned.contains(element));
  }

  let ownedElements = null;  // every element some aria-owns takes in

  // Whether an element is taken into another's content by an aria-owns: then it is part of
  // that one's name, not of its parent's (Chrome moves it in its tree).
  function ownedElsewhere(element) {
    if (ownedElements === null) {
      ownedElements = new Set();
      for (const owner of document.querySelectorAll('[aria-owns]')) {
        for (const owned of ownedBy(owner)) ownedElements.add(owned);
      }
    }
    return ownedElements.size !== 0 && ownedElements.has(element);
  }

  // A native field one types text into (whatever role it is given).
  function nativeTextField(element) {
    if (element.localName === 'textarea') return true;
    if (element.localName !== 'input') return false;
    const type = (element.getAttribute('type') || '').toLowerCase();
    return TEXT_INPUTS.has(type) || type === 'search' || !INPUT_TYPES.has(type);
  }

  function controlValue(element, role) {
    // A native text field gives its text whatever its role (as in Chrome); another input
    // given a text role, none.
    if (nativeTextField(element)) {
      return element.type === 'password' ? '•'.repeat(element.value.length) : element.value;
    }
    if (role === 'textbox' || role === 'searchbox') {
      return element.localName === 'input' ? '' : ariaFieldText(element);
    }
    if (role === 'combobox' || role === 'listbox') {
      if (element.localName === 'select') {
        // A list that takes several: every selected option, in order.
        const chosen = element.multiple ? [...element.selectedOptions] :
          element.selectedOptions.length ? [element.selectedOptions[0]] : [];
        // A drop-down that takes several shows Chrome's (English) words when none is chosen.
        if (!chosen.length && element.multiple && role === 'combobox') return '0 selected';
        return chosen.map((option) => squash(option.label || option.textContent)).join(' ');
      }
      if (element.localName === 'input') return element.value;
      // An ARIA one: its selected option (in what it owns too); a combobox with none, the
      // text it shows if it can take focus (as Chrome reads it).
      let selected = element.querySelector(SELECTED);
      for (const owned of selected ? [] : ownedBy(element)) {
        selected = owned.matches(SELECTED) ? owned : owned.querySelector(SELECTED);
        if (selected) break;
      }
      if (selected) return textOf(selected, {visited: new Set(), labelledby: false});
      if (role !== 'combobox' || !focusable(element)) return '';
      return contentText(element, {visited: new Set([element]), labelledby: false, root: element});
    }
    if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter') {
      const text = element.getAttribute('aria-valuetext');
      if (text) return text;
      const now = element.getAttribute('aria-valuenow');
      if (now) return now;
      if (element.value !== undefined) return String(element.value);
      // An ARIA spin button or slider without a value has ARIA's default one.
      return role === 'spinbutton' ? '0' : role === 'slider' ? '50' : '';
    }
    return null;
  }

  // The accessible name of `element` with role `role`.
  function nameOf(element, role) {
    const context = {visited: new Set(), labelledby: false, root: element, own: true};
    return squash(computeName(element, role, context, true));
  }

  // A <video> or <audio> with no source, or one that failed to load. Its controls (play,
  // mute, the time scrubber) live in a closed user-agent shadow root: Chrome lists them,
  // but no node of theirs is within reach to number or measure, so the outline lists the
  // element itself, acted on as a whole.
  function unplayable(element) {
    if (element.localName !== 'video' && element.localName !== 'audio') return false;
    return element.error !== null || element.networkState === HTMLMediaElement.NETWORK_EMPTY ||
      element.networkState === HTMLMediaElement.NETWORK_NO_SOURCE;
  }
  const MEDIA_ERROR = 'Unable to play media.';

  // Whether the name computeName returned last came from the element's content (else from
  // an attribute, a label, a title, a value: Chrome spaces those from their neighbours).
  let namedFromContent = false;

  function fromElsewhere(name) {
    namedFromContent = false;
    blockInsideLast = false;
    return name;
  }

  function computeName(element, role, context, isRoot) {
    // A node is read once, except under an aria-labelledby reference (Chrome checks
    // nothing there: a target is read each time it is named); a control read before gives
    // no value again.
    const seen = context.visited.has(element);
    if (seen && !context.labelledby) {
      context.visited.skips = (context.visited.skips || 0) + 1;
      return '';
    }
    context.visited.add(element);
    // Hidden content is no part of a name, unless an aria-labelledby traversal reached it
    // through a hidden target (the target itself always counts).
    if (!context.hidden && !isRoot && element !== context.target && hiddenForName(element)) {
      return '';
    }
    // Media that cannot play says so in place of any name (Chrome's AXMediaElement).
    if (unplayable(element)) return fromElsewhere(MEDIA_ERROR);
    // An inherited presentational item has no name of its own: it gives its content.
    if (role === 'none' && inheritedPresentation(element)) {
      if (isRoot) return fromElsewhere('');
      const text = contentText(element, context);
      namedFromContent = true;
      return text;
    }
    // A control inside the label or content of another: its value, before its own
    // aria-labelledby (as Chrome does). A file field says what its name says, then which
    // files are chosen (Chrome's words, from its user-agent shadow tree).
    if (!isRoot && element.localName === 'input' && element.type === 'file') {
      const own = element.getAttribute('aria-label');
      const label = labelledbyText(element, context) ||
        (own?.trim() ? own : labelsText(element, context) || fileButtonText(element));
      return fromElsewhere(label + ': ' + chosenFiles(element));
    }
    // A list or combobox read before (its selected option or shown text read already)
    // gives nothing again, nor does a control an earlier reference named itself; a field,
    // range or bar met in referenced content gives its value each time (as Chrome reads
    // them under a reference).
    if (seen && !isRoot && ((role === 'combobox' || role === 'listbox') &&
        element.localName !== 'input' || element !== context.target &&
        context.visited.targets?.has(element) && controlValue(element, role) !== null)) {
      return fromElsewhere('');
    }
    // (A progress bar that is not rendered has no value, as Chrome reads it.)
    // (Nor does a hidden list box: it shows no choice, as Chrome reads it.)
    if (!isRoot && !(context.unrendered && element.localName === 'progress')) {
      const value = role === 'listbox' && element.localName === 'select' && context.hidden &&
        (context.unrendered || hiddenForName(element)) ? '' : controlValue(element, role);
      // An empty one gives way to the rest (its label, its placeholder), as in Chrome;
      // but an ARIA combobox is its value, even none, and so is any other element given
      // a text-field role (Chrome's step 2E: a text field's value, its aria-label, alt or
      // title not read).
      if (value || value === '' && (role === 'combobox' && element.localName !== 'select' &&
          element.localName !== 'input' || (role === 'textbox' || role === 'searchbox') &&
          !nativeTextField(element))) return fromElsewhere(value);
    }
    const labelled = labelledbyText(element, context);
    if (labelled) return fromElsewhere(labelled);
    const label = ariaLabel(element);
    if (label?.trim()) return fromElsewhere(label);
    // A control with labels not yet read in this name is named by them alone, even when
    // they are empty or hidden: no content, title or placeholder (as Chrome has it). Not
    // as part of another name: there, labels that give nothing give way to the rest.
    const withLabels = isRoot && LABELABLE.has(element.localName) && element.labels?.length > 0 &&
      [...element.labels].some((label) => !context.visited.has(label));
    // An element given a text-field role has none of its native names (an image's alt, a
    // table's caption, a fieldset's legend), as Chrome reads it, but its labels and an
    // input's own words (see textRoleNativeName).
    const native = (role === 'textbox' || role === 'searchbox') && !nativeTextField(element) ?
      textRoleNativeName(element, context) : nativeName(element, context);
    if (native || withLabels) return fromElsewhere(native);
    // An explicitly empty value or alt: no name, not even a title (as Chrome has it; an
    // input's title still counts as part of another name).
    if (explicitlyEmpty(element) && (isRoot || element.localName !== 'input')) {
      return fromElsewhere('');
    }
    // Landmarks, tables, live regions... give an ancestor their name, not their content.
    // (A group or blockquote, only its title; details and address are Chrome's own roles.)
    const contributes = !NO_CONTRIBUTION.has(role) && !(role === 'group' &&
      element.localName !== 'details' && element.localName !== 'address' ||
      role === 'blockquote') || context.labelledby;
    // (A select is its value, never its options' text.)
    if (element.localName === 'select') return fromElsewhere(tooltip(element, role, isRoot || !context.labelledby));
    if (!isRoot && contributes || FROM_CONTENT.has(role) || context.labelledby ||
        (role === 'row' && tableKind(element) === 'grid') ||
        (FROM_CONTENT_IF_FOCUSABLE.has(role) && element === focusedElement && pageFocused &&
         element !== element.ownerDocument.body)) {
      const text = contentText(element, context);
      if (squash(text)) {
        namedFromContent = true;
        return text;
      }
    }
    const tip = tooltip(element, role, isRoot || !context.labelledby);
    // A title that only repeats the text the element shows names nothing (Chrome).
    if (isRoot && tip !== '' && tip === element.getAttribute('title') &&
        squash(tip) === squash(element.innerText || '')) return fromElsewhere('');
    return fromElsewhere(tip);
  }

  // The name aria-labelledby gives (not followed inside another such traversal).
  function labelledbyText(element, context) {
    if (context.labelledby) return '';
    const labelledby = byIds(element, 'aria-labelledby');
    if (!labelledby.length) return '';
    // Each reference is named on its own (one may hold another); an element may name
    // itself: by its aria-label, else its content.
    // The references share what they went through with each other and with the name being
    // computed: content read for one is not read again for the next, nor later in the
    // content of the element being named (as in Chrome), though a target named twice is
    // read twice.
    const visited = context.visited;
    visited.add(element);
    visited.references = (visited.references || 0) + 1;
    visited.targets ??= new Set();
    const text = labelledby.map((target) => {
      visited.targets.add(target);
      const hidden = hiddenTarget(target);
      const inner = {visited, labelledby: true, root: context.root, self: element,
        target, hidden: hidden !== 0, unrendered: hidden === 2};
      return squash(target === element ? selfText(element, inner, true) :
        computeName(target, roleOf(target), inner, false));
    }).join(' ');
    return squash(text) ? text : '';
  }

  // What an element gives its own aria-labelledby when a reference reaches it (`direct`:
  // it references itself; else it is inside a referenced element), as Chrome reads it:
  // its aria-label, else its native name or its content. A control is not named by its
  // own value, except a text field referencing itself.
  function selfText(element, context, direct) {
    const own = ariaLabel(element);
    if (own?.trim()) return fromElsewhere(own);
    const tag = element.localName;
    if (tag === 'input' && element.type === 'file') {
      return fromElsewhere(fileButtonText(element) + ': ' + chosenFiles(element));
    }
    if (nativeTextField(element)) {
      // Its value when it references itself; else (or empty) what it shows in its place.
      const value = direct ? controlValue(element, 'textbox') : '';
      return fromElsewhere(value || element.getAttribute('placeholder') ||
        element.getAttribute('title') || '');
    }
    // Nothing else to give, its title stands in (as Chrome reads it).
    const title = element.getAttribute('title')?.trim() ? element.getAttribute('title') : '';
    if (tag === 'select' || tag === 'progress' || tag === 'meter' || tag === 'input' ||
        !direct && VALUE_ROLES.has(roleOf(element))) {
      const native = nativeName(element, context, false);
      // A meter reads its CSS content (its own children are not rendered), as Chrome does.
      if (!native && tag === 'meter') {
        const before = generatedContent(element, '::before', context);
        const after = generatedContent(element, '::after', context);
        return fromElsewhere([before?.[0], after?.[0]].filter(Boolean).join(' ') || title);
      }
      return fromElsewhere(native || title);
    }
    const native = nativeName(element, context, false);
    if (native) return fromElsewhere(native);
    const text = contentText(element, context);
    if (!squash(text) && title) return fromElsewhere(title);
    namedFromContent = true;
    return text;
  }

  // Roles whose value is what they show.
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'slider',
    'spinbutton', 'progressbar', 'meter']);

  function tooltip(element, role, strict) {
    // A title names what can take focus, a custom element, and, in an aria-labelledby
    // traversal, any element it is on; not a plain container or text-level element
    // otherwise (`strict`).
    const title = element.getAttribute('title');
    if (title?.trim()) {
      if (!strict || !NO_TOOLTIP.has(role) || focusable(element) ||
          role === 'generic' && element.localName.includes('-')) return title;
      return '';
    }
    if (takesPlaceholder(element) && !hasLabels(element)) {
      const placeholder = element.getAttribute('placeholder');
      if (placeholder) return placeholder;
    }
    return '';
  }

  // A field that shows a placeholder: a textarea, a text-like input.
  function takesPlaceholder(element) {
    if (element.localName === 'textarea') return true;
    if (element.localName !== 'input') return false;
    const type = (element.getAttribute('type') || '').toLowerCase();
    return TEXT_INPUTS.has(type) || type === 'search' || type === 'number' ||
      !INPUT_TYPES.has(type);
  }

  function nativeName(element, context, withLabels = true) {
    const tag = element.localName;
    if (tag === 'input') {
      const type = (element.getAttribute('type') || '').toLowerCase();
      if (type === 'button' || type === 'submit' || type === 'reset') {
        // A label, even an empty one, names it before its value (as Chrome does; as part
        // of another name, an empty one gives way).
        if (withLabels && hasLabels(element)) {
          const labelled = labelsText(element, context);
          if (labelled || context.root === element) return labelled;
        }
        if (element.hasAttribute('value')) return element.getAttribute('value');
        // The default word is laid-out text: it takes the CSS text-transform.
        return transformText(type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '',
          textTransformOf(element));
      }
      if (type === 'image') {
        if (withLabels && hasLabels(element)) {
          const labelled = labelsText(element, context);
          if (labelled || context.root === element) return labelled;
        }
        // An explicit value, even an empty one, then its title, before the default word.
        if (element.getAttribute('alt')) return element.getAttribute('alt');
        if (element.hasAttribute('value')) return element.getAttribute('value');
        const title = element.getAttribute('title');
        return title?.trim() ? title : 'Submit';
      }
      const labelled = withLabels ? labelsText(element, context) : '';
      if (labelled) return labelled;
      if (type === 'file') return fileButtonText(element);
      // (Labels that gave nothing to another name do not keep its placeholder away.)
      if (takesPlaceholder(element) && !element.hasAttribute('title') &&
          !(hasLabels(element) && context.root === element) &&
          element.getAttribute('placeholder')) return element.getAttribute('placeholder');
      return '';
    }
    if (tag === 'textarea' || tag === 'select' || tag === 'button' || tag === 'meter' ||
        tag === 'progress' || tag === 'output') {
      const labelled = withLabels ? labelsText(element, context) : '';
      if (labelled) return labelled;
      if (tag === 'textarea' && !element.hasAttribute('title') && !hasLabels(element) &&
          element.getAttribute('placeholder')) return element.getAttribute('placeholder');
      return '';
    }
    if (tag === 'img' || tag === 'area') return element.getAttribute('alt') || '';
    if (tag === 'fieldset') return childText(element, 'legend', context);
    if (tag === 'optgroup') return element.getAttribute('label') || '';
    if (tag === 'table') return childText(element, 'caption', context);
    if (element.namespaceURI === SVG) {
      if (tag === 'use') {
        const target = useTarget(element);
        return target ? svgTitle(target) : '';
      }
      return svgTitle(element);
    }
    return '';
  }

  // Labelable elements (HTML's list, a hidden input aside): <label> names them.
  const LABELABLE = new Set(['button', 'input', 'meter', 'output', 'progress', 'select',
    'textarea']);

  // The native name of a labelable element given a text-field role, as Chrome reads it
  // (AXNodeObject::NativeTextAlternative): its labels; an input's value, alt, title or
  // "Submit" (an image button), its button's words (a file field); but a submit or reset
  // button's default word comes from its laid-out text, which a text field does not read.
  function textRoleNativeName(element, context) {
    const tag = element.localName;
    if (!LABELABLE.has(tag)) return '';
    if (tag === 'input' && !element.hasAttribute('value') && !hasLabels(element)) {
      const type = (element.getAttribute('type') || '').toLowerCase();
      if (type === 'submit' || type === 'reset') return '';
    }
    return nativeName(element, context);
  }

  // A file field's button, as Chrome's user-agent shadow tree words it (in English).
  function fileButtonText(element) {
    return element.multiple ? 'Choose Files' : 'Choose File';
  }

  function chosenFiles(element) {
    const files = element.files;
    if (!files || !files.length) return element.multiple ? 'No file chosen' : 'No file chosen';
    return files.length === 1 ? files[0].name : files.length + ' files';
  }

  function explicitlyEmpty(element) {
    const tag = element.localName;
    if (tag === 'img') return element.getAttribute('alt') === '';
    if (tag !== 'input' || element.getAttribute('value') !== '') return false;
    const type = (element.getAttribute('type') || '').toLowerCase();
    return type === 'submit' || type === 'reset' || type === 'button' ||
      type === 'image' && !element.getAttribute('alt');
  }

  // A field with a label, even an empty one, is not named by its placeholder (as Chrome).
  function hasLabels(element) {
    return Boolean(element.labels?.length);
  }

  function childText(element, tag, context) {
    const child = [...element.children].find((c) => c.localName === tag);
    return child ? contentText(child, context) : '';
  }

  function labelsText(element, context) {
    if (!element.labels?.length) return '';
    // A label already read in this name (the one being named, or met through a reference)
    // is not read again.
    const labels = [...element.labels].filter((label) => !context.visited.has(label));
    for (const label of labels) context.visited.add(label);
    // A label is read as content of its own, even under a reference (Chrome reads it with
    // no reference root): what this name went through, the control among it, is not read
    // again, and a hidden label (display: none, visibility: hidden, aria-hidden, itself or
    // an ancestor) gives nothing.
    const inner = {visited: context.visited, labelledby: false, root: context.root};
    return labels.map((label) => hiddenTarget(label) ? '' : squash(labelText(label, inner)))
      .filter((text) => text !== '').join(' ');
  }

  // What a label gives the control it names: its own text alternative (its
  // aria-labelledby, its aria-label, its content, its title), as Chrome reads it.
  function labelText(label, context) {
    const labelled = labelledbyText(label, context);
    if (labelled) return labelled;
    const own = label.getAttribute('aria-label');
    if (own?.trim()) return own;
    const text = contentText(label, context);
    if (squash(text)) return text;
    return label.getAttribute('title') || '';
  }

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

  // -- states and values --------------------------------------------------------------------

  let focusedElement = document.activeElement;
  while (focusedElement?.shadowRoot?.activeElement) {
    focusedElement = focusedElement.shadowRoot.activeElement;
  }
  const pageFocused = document.hasFocus();

  function ariaTrue(element, attribute) {
    return element.getAttribute(attribute) === 'true';
  }

  const ariaDisabled = new Map();  // element -> it or an ancestor has aria-disabled=true

  function disabledByAria(element) {
    let answer = ariaDisabled.get(element);
    if (answer === undefined) {
      const up = parentOf(element);
      answer = ariaTrue(element, 'aria-disabled') ||
        (!!up && up.nodeType === 1 && disabledByAria(up));
      ariaDisabled.set(element, answer);
    }
    return answer;
  }

  function disabled(element) {
    return element.matches(':disabled') || disabledByAria(element);
  }

  const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  const SELECTABLE = new Set(['option', 'tab', 'gridcell', 'row', 'treeitem', 'cell', 'columnheader',
    'rowheader']);

  function statesOf(element, role) {
    const states = [];
    const tag = element.localName;
    const native = tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'button';
    if (CHECKABLE.has(role)) {
      const aria = element.getAttribute('aria-checked');
      if (tag === 'input' && (element.type === 'checkbox' || element.type === 'radio')) {
        if (element.indeterminate && element.type === 'checkbox') states.push('mixed');
        else if (element.checked) states.push('checked');
      } else if (aria === 'true') {
        states.push('checked');
      } else if (aria === 'mixed') {
        states.push('mixed');
      }
    }
    if (role === 'ToggleButton' || role === 'button') {
      const pressed = element.getAttribute('aria-pressed');
      if (pressed === 'true') states.push('pressed');
      else if (pressed === 'mixed') states.push('mixed');
    }
    if (disabled(element) || unplayable(element)) states.push('disabled');
    const expanded = element.getAttribute('aria-expanded');
    if (expanded === 'true') states.push('expanded');
    else if (expanded === 'false') states.push('collapsed');
    else if (role === 'DisclosureTriangle' && element.parentElement &&
             element.parentElement.localName === 'details') {
      states.push(element.parentElement.open ? 'expanded' : 'collapsed');
    } else if (role === 'combobox' && tag === 'select') {
      states.push('collapsed');
    }
    if (role === 'option' && tag === 'option') {
      if (element.selected) states.push('selected');
    } else if (SELECTABLE.has(role) && ariaTrue(element, 'aria-selected')) {
      states.push('selected');
    }
    if ((native && element.required) || ariaTrue(element, 'aria-required')) states.push('required');
    if ((native && element.readOnly) || ariaTrue(element, 'aria-readonly')) states.push('readonly');
    if (element === focusedElement && pageFocused) states.push('focused');
    if (role === 'heading') {
      const level = parseInt(element.getAttribute('aria-level'), 10) ||
        (/^h[1-6]$/.test(tag) ? Number(tag[1]) : 2);
      states.push('level=' + level);
    } else if (role === 'treeitem' || role === 'row') {
      const level = parseInt(element.getAttribute('aria-level'), 10);
      if (level) states.push('level=' + level);
    }
    const invalid = element.getAttribute('aria-invalid');
    if (invalid && invalid !== 'false') states.push('invalid');
    if (role === 'dialog' && (element.getAttribute('aria-modal') === 'true' ||
        (tag === 'dialog' && element.matches(':modal')))) states.push('modal');
    return states.join(' ');
  }

  function valueText(element, role) {
    const tag = element.localName;
    if (role === 'textbox' || role === 'searchbox' || role === 'combobox' && tag === 'input') {
      if (tag === 'input' || tag === 'textarea') {
        const value = element.value;
        if (!value) return null;
        return element.type === 'password' ? '•'.repeat(value.length) : value;
      }
      return null;
    }
    if (role === 'combobox' && tag === 'select') {
      const option = element.selectedOptions[0];
      return option ? squash(option.label || option.textContent) : null;
    }
    if (role === 'combobox' && tag !== 'input') {
      // An ARIA one: its selected option, or the text it shows.
      return squash(controlValue(element, role) || '') || null;
    }
    if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter') {
      const value = controlValue(element, role);
      return value === '' ? null : value;
    }
    if (role === 'ColorWell' || role === 'Date' || role === 'InputTime') return element.value || null;
    return null;
  }

  // A label of plain text for a checkbox or radio it names (around it or not): Chrome
  // leaves it out (AXNodeObject::IsRedundantLabel), its text is the control's name.
  function redundantLabel(label) {
    const control = label.control;
    if (!control || control.localName !== 'input') return false;
    const first = label.firstElementChild;
    if (first && (first !== control || first.nextElementSibling)) return false;
    if (control.type !== 'checkbox' && control.type !== 'radio') return false;
    if (control.hasAttribute('aria-label') || control.hasAttribute('aria-labelledby')) return false;
    // (A control that is not rendered, itself or through an ancestor, leaves it listed.)
    return style(control)[1] === 'visible' && hiddenTarget(control) !== 2;
  }

  // A <p> (or an unnamed <address>) that does not hold a line of inline content: Chrome
  // leaves it out unless an id, a title, an ARIA attribute or focus may make it matter. It
  // is kept only when its box is a block container (not display: contents, flex, grid)
  // whose children are all inline-level (a block child, ::before or ::after puts the
  // lines in anonymous blocks of their own) and something is laid out in it at all.
  function emptyParagraph(element) {
    if (element.id || element.hasAttribute('title') || focusable(element) ||
        hasAriaAttribute(element)) return false;
    if (!BLOCK_CONTAINERS.has(style(element)[0])) return true;
    let content = paragraphContent(element);
    if (content === 2) return true;
    for (const which of ['::before', '::after']) {
      const generated = generatedBox(element, which);
      if (generated) {
        if (generated[1]) return true;
        content = 1;
      }
    }
    return content === 0;
  }

  const BLOCK_CONTAINERS = new Set(['block', 'inline-block', 'list-item', 'flow-root',
    'table-cell', 'table-caption']);

  // What a block's children put in it: 0 nothing laid out, 1 inline content only, 2 a
  // block-level child (through display: contents too; floated and positioned ones are
  // out of the flow).
  function paragraphContent(node) {
    let found = 0;
    for (const child of childrenOf(node)) {
      if (child.nodeType === 3) {
        if (NOT_SPACE.test(child.data)) found = 1;
        continue;
      }
      if (child.nodeType !== 1) continue;
      const cached = style(child);
      const display = cached[0];
      if (display === 'none') continue;
      if (display === 'contents') {
        const inner = paragraphContent(child);
        if (inner === 2) return 2;
        if (inner) found = 1;
        continue;
      }
      if (!display.startsWith('inline') && !display.startsWith('ruby') &&
          cached[3].float === 'none' && cached[3].position !== 'absolute' &&
          cached[3].position !== 'fixed') return 2;
      found = 1;
    }
    return found;
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
