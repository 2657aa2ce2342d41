// Sets the value of ``this``, an input that takes no typing (date, color, range...),
// like a user would: input and change events follow.
function(value) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  setter.call(this, value);
  if (this.value !== value && value !== '') {
    throw new Error('Invalid value ' + JSON.stringify(value) + ' for <input type=' + this.type + '>');
  }
  this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
}
