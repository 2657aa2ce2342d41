// The popup: shows the worker's state and asks it to connect or disconnect. It holds no
// state of its own: each answer and each broadcast {type: "state"} redraws it.
const WORDS = {
  disconnected: "Disconnected",
  connecting: "Connecting\u2026",
  connected: "Connected",
};

const dot = document.getElementById("dot");
const stateWord = document.getElementById("state");
const clients = document.getElementById("clients");
const error = document.getElementById("error");
const toggle = document.getElementById("toggle");
let current = "disconnected";

function draw(status) {
  if (!status || typeof status.state !== "string") {
    return;
  }
  current = status.state in WORDS ? status.state : "disconnected";
  dot.className = `dot ${current}`;
  stateWord.textContent = WORDS[current];
  const count = Number(status.clients) || 0;
  clients.textContent = `${count} ${count === 1 ? "client" : "clients"}`;
  error.textContent = status.error || "";
  error.hidden = !status.error;
  // Connecting can be cancelled: the button disconnects then.
  toggle.textContent = current === "disconnected" ? "Connect" : "Disconnect";
  toggle.disabled = false;
}

async function ask(type) {
  try {
    draw(await chrome.runtime.sendMessage({ type }));
  } catch (exc) {
    draw({ state: "disconnected", clients: 0, error: `The extension did not answer: ${exc.message}` });
  }
}

toggle.addEventListener("click", () => {
  toggle.disabled = true;
  ask(current === "disconnected" ? "connect" : "disconnect");
});

chrome.runtime.onMessage.addListener((message) => {
  if (message && message.type === "state") {
    draw(message);
  }
});

ask("status");
