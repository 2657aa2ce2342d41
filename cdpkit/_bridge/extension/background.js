// cdpkit bridge: relays the Chrome DevTools Protocol between this browser's tabs
// (chrome.debugger) and the cdpkit bridge on this computer (a loopback WebSocket whose
// address and token the native messaging host "com.cdpkit.bridge" gives). The bridge makes
// the tabs look like a browser to each cdpkit client; this worker only attaches, relays and
// reports tabs, downloads and detaches.
"use strict";

const HOST = "com.cdpkit.bridge";
const RETRY_MS = 2000; // a lost bridge is asked for again this soon
const PING_MS = 20000; // activity on the socket keeps this MV3 worker from being stopped
const HIDDEN = /^(chrome|chrome-extension|chrome-untrusted|devtools|edge|about:devtools):/;

let nativePort = null;
let socket = null;
let state = "disconnected";
let clients = 0;
let lastError = null;
let paused = false;
let retryTimer = null;
let browserPid = null; // as the native host saw it: the bridge watches it
let creating = 0; // tabs being opened for a client: their onCreated waits for the answer
let heldCreated = [];
const attached = new Set();

// -- state shown by the popup ------------------------------------------------------------

function status() {
  return { state, clients, error: lastError };
}

function setState(next, error) {
  state = next;
  if (error !== undefined) lastError = error;
  chrome.runtime.sendMessage({ type: "state", ...status() }).catch(() => {});
  const text = state === "connected" ? String(clients || "") : state === "connecting" ? "…" : "";
  chrome.action.setBadgeText({ text }).catch(() => {});
}

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  if (sender.id !== chrome.runtime.id) return false;
  if (message && message.type === "connect") {
    paused = false;
    chrome.storage.local.set({ paused }).then(() => {
      start();
      reply(status());
    });
    return true;
  }
  if (message && message.type === "disconnect") {
    paused = true;
    chrome.storage.local.set({ paused }).then(() => {
      stop("disconnected");
      reply(status());
    });
    return true;
  }
  if (message && message.type === "status") reply(status());
  return false;
});

// -- finding the bridge (native host) and connecting to it -------------------------------

function scheduleRetry() {
  if (paused || retryTimer !== null) return;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    start();
  }, RETRY_MS);
}

function start() {
  if (paused || socket !== null) return;
  setState("connecting");
  if (nativePort === null) {
    try {
      nativePort = chrome.runtime.connectNative(HOST);
    } catch (error) {
      nativePort = null;
      setState("disconnected", String(error));
      scheduleRetry();
      return;
    }
    const port = nativePort;
    port.onMessage.addListener((message) => onHostMessage(message));
    port.onDisconnect.addListener(() => {
      const error = chrome.runtime.lastError;
      if (nativePort === port) nativePort = null;
      if (socket === null) {
        setState("disconnected", error ? error.message : "the native host exited");
        scheduleRetry();
      }
    });
  }
  nativePort.postMessage({ type: "hello" });
}

function onHostMessage(message) {
  if (!message || socket !== null || paused) return;
  if (message.type === "bridge") {
    browserPid = message.browserPid ?? null;
    openSocket(message.port, message.token);
  } else if (message.type === "error") {
    setState("disconnected", message.message);
    scheduleRetry();
  }
}

function stop(next) {
  if (socket !== null) {
    const open = socket;
    socket = null;
    open.close();
  }
  detachAll();
  setState(next);
}

function openSocket(port, token) {
  const url = `ws://127.0.0.1:${Number(port)}/extension?token=${encodeURIComponent(token)}`;
  const ws = new WebSocket(url);
  socket = ws;
  let pinger = null;
  ws.onopen = () => {
    if (socket !== ws) return;
    lastError = null;
    send({ type: "hello", userAgent: navigator.userAgent, browserPid, version: chrome.runtime.getManifest().version });
    pinger = setInterval(() => send({ type: "ping" }), PING_MS);
    setState("connected");
  };
  ws.onmessage = (event) => {
    if (socket === ws) onBridgeMessage(JSON.parse(event.data));
  };
  ws.onclose = () => {
    if (pinger !== null) clearInterval(pinger);
    if (socket !== ws) return;
    socket = null;
    clients = 0;
    detachAll(); // the bridge is gone, and with it every client: the bar goes away
    setState("connecting", "the bridge closed the connection");
    scheduleRetry();
  };
}

function send(message) {
  sendText(JSON.stringify(message));
}

// -- what the bridge asks --------------------------------------------------------------

async function onBridgeMessage(message) {
  if (message.op === "clients") {
    clients = message.count;
    setState(state);
    return;
  }
  if (message.op === "pong") return;
  if (message.op === "command") {
    relay(message);
    return;
  }
  let reply;
  try {
    reply = { id: message.id, result: await perform(message) };
  } catch (error) {
    reply = { id: message.id, error: String(error && error.message ? error.message : error) };
  }
  send(reply);
}

// A client's command to a tab. Its answer goes back as text the bridge passes on without
// parsing it: "R|id|<result JSON>", or "X|id|<error>".
function relay(message) {
  const target = message.sessionId ? { tabId: message.tabId, sessionId: message.sessionId } : { tabId: message.tabId };
  chrome.debugger.sendCommand(target, message.method, message.params || {}).then(
    (result) => sendText(`R|${message.id}|${JSON.stringify(result || {})}`),
    (error) => sendText(`X|${message.id}|${String(error && error.message ? error.message : error)}`),
  );
}

function sendText(text) {
  if (socket !== null && socket.readyState === WebSocket.OPEN) socket.send(text);
}

async function perform(message) {
  switch (message.op) {
    case "attach":
      await attach(message.tabId);
      return {};
    case "detach":
      attached.delete(message.tabId);
      await chrome.debugger.detach({ tabId: message.tabId }).catch(() => {});
      return {};
    case "targets":
      return await targets();
    case "create":
      return await create(message);
    case "close":
      await chrome.tabs.remove(message.tabId);
      return {};
    case "activate": {
      const tab = await chrome.tabs.update(message.tabId, { active: true });
      await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
      return {};
    }
    case "cancelDownload":
      await chrome.downloads.cancel(message.downloadId).catch(() => {});
      return {};
    default:
      throw new Error(`unknown operation ${message.op}`);
  }
}

async function attach(tabId) {
  try {
    await chrome.debugger.attach({ tabId }, "1.3");
  } catch (error) {
    // Attached already (this worker was restarted): keep going on that attachment.
    if (!String(error.message || error).includes("already attached")) throw error;
  }
  attached.add(tabId);
}

function detachAll() {
  for (const tabId of attached) chrome.debugger.detach({ tabId }).catch(() => {});
  attached.clear();
}

function describe(target, tab) {
  return {
    targetId: target.id,
    tabId: target.tabId,
    type: "page",
    title: target.title,
    url: target.url,
    openerTabId: tab ? tab.openerTabId ?? null : null,
  };
}

async function targets() {
  const [all, tabs] = await Promise.all([chrome.debugger.getTargets(), chrome.tabs.query({})]);
  const byId = new Map(tabs.map((tab) => [tab.id, tab]));
  // A tab being opened for a client is reported once its answer is out (see create):
  // listed before that, the bridge would take it for the person's.
  return all
    .filter((t) => t.type === "page" && t.tabId !== undefined && !HIDDEN.test(t.url) && byId.has(t.tabId))
    .filter((t) => !isHeld(t.tabId))
    .map((t) => describe(t, byId.get(t.tabId)));
}

async function targetOf(tabId) {
  for (let tries = 0; tries < 50; tries++) {
    const found = (await chrome.debugger.getTargets()).find((t) => t.tabId === tabId && t.type === "page");
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the tab ${tabId} has no target`);
}

async function create(message) {
  if (HIDDEN.test(message.url || "")) {
    throw new Error("chrome:// pages and extensions' pages cannot be driven through the cdpkit extension");
  }
  creating += 1;
  try {
    const tab = await chrome.tabs.create({ url: message.url || "about:blank", active: !message.background });
    const target = await targetOf(tab.id);
    return describe(target, tab);
  } finally {
    creating -= 1;
    if (creating === 0) {
      // Sent after the answer: the bridge knows whose tab it is when it hears of it.
      const held = heldCreated;
      heldCreated = [];
      setTimeout(() => held.forEach(reportCreated), 0);
    }
  }
}

// -- what happens in the browser -------------------------------------------------------

// A tab's event, as text the bridge routes without parsing it:
// "E|tab|child session|method|<params JSON>".
chrome.debugger.onEvent.addListener((source, method, params) => {
  if (source.tabId === undefined) return;
  sendText(`E|${source.tabId}|${source.sessionId || ""}|${method}|${JSON.stringify(params || {})}`);
});

chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId === undefined) return;
  attached.delete(source.tabId);
  send({ type: "detached", tabId: source.tabId, reason });
});

async function reportCreated(tab) {
  if (tab.id === undefined) return;
  try {
    const target = await targetOf(tab.id);
    if (!HIDDEN.test(target.url)) send({ type: "tabCreated", target: describe(target, tab) });
  } catch (error) {
    // A tab that closed at once, or one without a page (e.g. a prerender): nothing to show.
  }
}

chrome.tabs.onCreated.addListener((tab) => {
  if (creating > 0) heldCreated.push(tab);
  else reportCreated(tab);
});

function isHeld(tabId) {
  return heldCreated.some((tab) => tab.id === tabId);
}

chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (change.url === undefined && change.title === undefined) return;
  if (isHeld(tabId)) return; // its report, after the answer, says where it is
  send({ type: "tabUpdated", tabId, url: tab.url, title: tab.title, hidden: HIDDEN.test(tab.url || "") });
});

chrome.tabs.onRemoved.addListener((tabId) => {
  attached.delete(tabId);
  send({ type: "tabRemoved", tabId });
});

chrome.downloads.onCreated.addListener((item) => {
  send({ type: "downloadCreated", downloadId: item.id, url: item.url, finalUrl: item.finalUrl });
});

chrome.downloads.onChanged.addListener((delta) => {
  if (!delta.state && !delta.filename) return;
  chrome.downloads.search({ id: delta.id }).then(([item]) => {
    if (!item) return;
    send({
      type: "downloadChanged",
      downloadId: item.id,
      state: item.state,
      filename: item.filename,
      url: item.url,
      finalUrl: item.finalUrl,
      bytesReceived: item.bytesReceived,
      totalBytes: item.totalBytes,
      error: item.error || null,
    });
  });
});

// -- staying connected -----------------------------------------------------------------

chrome.alarms.create("cdpkit-wake", { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener(() => {
  if (socket === null) start();
});
chrome.runtime.onStartup.addListener(() => start());

chrome.storage.local.get("paused").then((stored) => {
  paused = Boolean(stored.paused);
  if (!paused) start();
});
