// computed_styles: the computed values of ``properties`` on ``this`` (kebab-case
// names), and the names the browser does not know.
function(properties) {
  const style = this.ownerDocument.defaultView.getComputedStyle(this);
  const kebab = (p) => p.startsWith('--') ? p : p.replace(/[A-Z]/g, c => '-' + c.toLowerCase());
  const values = {};
  const unknown = [];
  for (const property of properties) {
    const name = kebab(property.trim());
    if (!name.startsWith('--') && !(name in style) && !CSS.supports(name, 'initial')) {
      unknown.push(property);
      continue;
    }
    values[name] = style.getPropertyValue(name).trim();
  }
  return {values, unknown};
}
