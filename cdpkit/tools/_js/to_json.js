// evaluate's result conversion: ``this`` as JSON; DOM nodes and other non-JSON values
// become short descriptions.
function() {
  const MAX_DEPTH = 32, MAX_ITEMS = 10000;
  const path = new Set();
  const isWindow = (v) => Object.prototype.toString.call(v) === "[object Window]";
  function node(n) {
    if (n.nodeType === 1) {
      let tag = "<" + n.localName;
      for (const a of Array.from(n.attributes).slice(0, 8)) {
        tag += ` ${a.name}="${a.value.slice(0, 100)}"`;
      }
      return tag + ">";
    }
    if (n.nodeType === 3) return "#text " + JSON.stringify(n.data.slice(0, 200));
    return n.nodeName;
  }
  function conv(v, depth) {
    switch (typeof v) {
      case "undefined": return null;
      case "number": return Number.isFinite(v) ? v : String(v);
      case "bigint": return v.toString();
      case "string": case "boolean": return v;
      case "symbol": return v.toString();
      case "function": return "[Function " + (v.name || "anonymous") + "]";
    }
    if (v === null) return null;
    if (path.has(v)) return "[Circular]";
    if (depth > MAX_DEPTH) return "[Object]";
    if (isWindow(v)) {
      try { return "[Window " + v.location.href + "]"; } catch { return "[Window]"; }
    }
    if (typeof Node === "function" && v instanceof Node) return node(v);
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Error) return v.name + ": " + v.message;
    if (v instanceof Promise) return "[Promise]";
    path.add(v);
    try {
      if (typeof v.toJSON === "function") return conv(v.toJSON(), depth + 1);
      if (v instanceof Map) {
        const out = {};
        for (const [k, x] of Array.from(v).slice(0, MAX_ITEMS)) out[String(k)] = conv(x, depth + 1);
        return out;
      }
      if (Array.isArray(v) || ArrayBuffer.isView(v) || v instanceof Set
          || (typeof NodeList === "function" && v instanceof NodeList)
          || (typeof HTMLCollection === "function" && v instanceof HTMLCollection)) {
        return Array.from(v).slice(0, MAX_ITEMS).map((x) => conv(x, depth + 1));
      }
      const out = {};
      for (const k of Object.keys(v).slice(0, MAX_ITEMS)) {
        const x = v[k];
        const skip = x === undefined || typeof x === "function" || typeof x === "symbol";
        if (!skip) out[k] = conv(x, depth + 1);
      }
      return out;
    } finally {
      path.delete(v);
    }
  }
  return conv(this, 0);
}
