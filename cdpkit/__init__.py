"""cdpkit: drive Chromium over the Chrome DevTools Protocol from Python."""
