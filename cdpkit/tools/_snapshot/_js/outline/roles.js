  // outline, part roles: an element's role as Chrome's accessibility tree gives it:
  // explicit (ARIA) and implicit (HTML, SVG, tables), presentational rules, required
  // contexts. A part of outline.js's function (see dom.js).

  const ROLES = new Set((
    'alert alertdialog application article banner blockquote button caption cell checkbox code ' +
    'columnheader combobox comment complementary contentinfo definition deletion dialog directory ' +
    'document emphasis feed figure form generic grid gridcell group heading img image insertion ' +
    'link list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox ' +
    'menuitemradio meter navigation none note option paragraph presentation progressbar radio ' +
    'radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider ' +
    'spinbutton status strong subscript superscript switch tab table tablist tabpanel term ' +
    'textbox time timer toolbar tooltip tree treegrid treeitem').split(' '));
  const TEXT_INPUTS = new Set(['text', 'email', 'tel', 'url', 'password', '']);
  const INPUT_TYPES = new Set(['button', 'checkbox', 'color', 'date', 'datetime-local', 'email',
    'file', 'hidden', 'image', 'month', 'number', 'password', 'radio', 'range', 'reset', 'search',
    'submit', 'tel', 'text', 'time', 'url', 'week']);
  const BUTTON_INPUTS = new Set(['button', 'submit', 'reset', 'image']);
  const SVG_SHAPES = new Set(['circle', 'ellipse', 'line', 'path', 'polygon', 'polyline', 'rect']);

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
