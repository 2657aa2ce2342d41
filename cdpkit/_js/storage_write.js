// storage_write: set storage_state entries into this document's storage, when it is of the
// given origin (a page elsewhere is left alone).
function(origin, local, session) {
  if (location.origin !== origin) return false;
  for (const { name, value } of local) window.localStorage.setItem(name, value);
  for (const { name, value } of session) window.sessionStorage.setItem(name, value);
  return true;
}
