// storage_read: the top-level document's origin and its localStorage and sessionStorage,
// as storage_state entries ({name, value} in storage order).
function() {
  const entries = (storage) => {
    const out = [];
    try {
      for (let i = 0; i < storage.length; i++) {
        const name = storage.key(i);
        out.push({ name, value: storage.getItem(name) });
      }
    } catch { /* storage denied (sandboxed or opaque origin): nothing to save */ }
    return out;
  };
  return {
    origin: location.origin,
    localStorage: entries(window.localStorage),
    sessionStorage: entries(window.sessionStorage),
  };
}
