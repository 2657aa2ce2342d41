  // outline, part names: accessible names (accname 1.2, the parts Chrome follows):
  // aria-labelledby, aria-label, native names (labels, alt, title, placeholder), values.
  // The name from content is in content.js. A part of outline.js's function (see dom.js).

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
  // Roles a title attribute does not name (naming prohibited, as Chrome has it; a term
  // and a definition too, though an aria-label names them).
  const NO_TOOLTIP = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic',
    'insertion', 'mark', 'paragraph', 'presentation', 'none', 'strong', 'subscript',
    'superscript', 'term', 'time']);
  // Replaced elements: a box of their own, spaced from their neighbours' text in names.
  const REPLACED = new Set(['img', 'input', 'select', 'textarea', 'button', 'svg', 'video',
    'audio', 'iframe', 'canvas', 'object', 'embed']);
  // Controls (Chrome's IsControl): spaced from their neighbours' text in names.
  const CONTROLS = new Set(('button checkbox ColorWell combobox Date DisclosureTriangle InputTime ' +
    'listbox menu menubar menuitem menuitemcheckbox menuitemradio PopUpButton radio scrollbar ' +
    'searchbox slider spinbutton switch tab textbox ToggleButton tree').split(' '));
  const FORM_CONTROLS = new Set(['button', 'fieldset', 'input', 'output', 'select', 'textarea']);

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
