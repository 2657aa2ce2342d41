  // outline, part states: states (focused, checked, disabled, expanded...) and values.
  // A part of outline.js's function (see dom.js).

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
