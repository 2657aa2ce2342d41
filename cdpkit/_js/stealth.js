// cdpkit's stealth evasions (BrowserSettings(stealth=True)), run in every frame before the
// page's own scripts. Each evasion makes one headless or automation tell look like a
// regular desktop Chrome; the user agent and its client-hint brands are set over CDP
// (Emulation.setUserAgentOverride) and --disable-blink-features=AutomationControlled.
// Called with {languages: [...]}: the languages the settings give (empty: Chrome's own).
function (config) {
  const nativeToString = Function.prototype.toString;
  const disguised = new WeakMap();
  // Replaced functions print as native code, as the originals do.
  const disguise = (fn, name) => { disguised.set(fn, `function ${name}() { [native code] }`); return fn; };
  // biome-ignore lint/suspicious/noShadowRestrictedNames: named as the original it replaces
  const toString = function toString() {
    return disguised.has(this) ? disguised.get(this) : nativeToString.call(this);
  };
  disguise(toString, 'toString');
  Function.prototype.toString = toString;

  const getter = (proto, name, get) => {
    Object.defineProperty(proto, name, {
      get: disguise(get, `get ${name}`), configurable: true, enumerable: true,
    });
  };

  // navigator.webdriver: false, as in a browser nobody automates.
  getter(Navigator.prototype, 'webdriver', () => false);

  // navigator.languages: what the settings say (Accept-Language says the same).
  if (config.languages?.length) {
    const languages = Object.freeze([...config.languages]);
    getter(Navigator.prototype, 'languages', () => languages);
    getter(Navigator.prototype, 'language', () => languages[0]);
  }

  // navigator.plugins and mimeTypes: the PDF viewer every desktop Chrome lists.
  if (!navigator.plugins || navigator.plugins.length === 0) {
    const mime = { type: 'application/pdf', suffixes: 'pdf', description: 'Portable Document Format' };
    const names = ['PDF Viewer', 'Chrome PDF Viewer', 'Chromium PDF Viewer',
                   'Microsoft Edge PDF Viewer', 'WebKit built-in PDF'];
    const plugins = names.map((name) => {
      const plugin = { name, filename: 'internal-pdf-viewer', description: 'Portable Document Format',
                       length: 1, 0: mime, item: (i) => (i === 0 ? mime : null),
                       namedItem: (n) => (n === mime.type ? mime : null) };
      Object.setPrototypeOf(plugin, Plugin.prototype);
      return plugin;
    });
    const list = (items, proto, key) => {
      const result = { length: items.length, item: (i) => items[i] || null,
                       namedItem: (n) => items.find((x) => x[key] === n) || null };
      items.forEach((x, i) => { result[i] = x; });
      Object.setPrototypeOf(result, proto);
      return result;
    };
    const pluginArray = list(plugins, PluginArray.prototype, 'name');
    const mimeArray = list([mime], MimeTypeArray.prototype, 'type');
    getter(Navigator.prototype, 'plugins', () => pluginArray);
    getter(Navigator.prototype, 'mimeTypes', () => mimeArray);
  }

  // window.chrome with its runtime, as pages of a desktop Chrome see it.
  if (!window.chrome) {
    Object.defineProperty(window, 'chrome', { value: {}, writable: true, configurable: true });
  }
  if (!window.chrome.runtime) {
    window.chrome.runtime = {
      OnInstalledReason: { CHROME_UPDATE: 'chrome_update', INSTALL: 'install',
                           SHARED_MODULE_UPDATE: 'shared_module_update', UPDATE: 'update' },
      PlatformOs: { ANDROID: 'android', CROS: 'cros', LINUX: 'linux', MAC: 'mac', WIN: 'win' },
      connect: disguise(function connect() { return undefined; }, 'connect'),
      sendMessage: disguise(function sendMessage() { return undefined; }, 'sendMessage'),
    };
  }
  if (!window.chrome.app) {
    window.chrome.app = { isInstalled: false,
                          InstallState: { DISABLED: 'disabled', INSTALLED: 'installed', NOT_INSTALLED: 'not_installed' },
                          RunningState: { CANNOT_RUN: 'cannot_run', READY_TO_RUN: 'ready_to_run', RUNNING: 'running' } };
  }

  // Permissions: headless answers "prompt" for notifications while Notification.permission
  // says "denied"; a real browser gives the same answer both ways.
  if (window.Permissions && Permissions.prototype.query && window.Notification) {
    const originalQuery = Permissions.prototype.query;
    Permissions.prototype.query = disguise(function query(parameters) {
      if (parameters && parameters.name === 'notifications') {
        const state = Notification.permission === 'default' ? 'prompt' : Notification.permission;
        return Promise.resolve(Object.setPrototypeOf({ state, name: 'notifications', onchange: null },
                                                     PermissionStatus.prototype));
      }
      return originalQuery.call(this, parameters);
    }, 'query');
  }

  // WebGL: a common GPU's vendor and renderer instead of SwiftShader's.
  const UNMASKED_VENDOR = 0x9245, UNMASKED_RENDERER = 0x9246;
  for (const name of ['WebGLRenderingContext', 'WebGL2RenderingContext']) {
    const proto = window[name]?.prototype;
    if (!proto) continue;
    const originalGetParameter = proto.getParameter;
    proto.getParameter = disguise(function getParameter(parameter) {
      if (parameter === UNMASKED_VENDOR) return 'Intel Inc.';
      if (parameter === UNMASKED_RENDERER) return 'Intel Iris OpenGL Engine';
      return originalGetParameter.call(this, parameter);
    }, 'getParameter');
  }
}
