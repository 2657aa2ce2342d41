// check_visibility: whether a user can see ``this``, and why not.
function() {
  return H.visibility(this);
}
