/**
 * Side channels between the Fetch handler and the Node adapter: the JSON text of our own responses (written
 * directly, without reading a stream back) and the 404s for paths outside the base path, which an
 * Express-style adapter hands to `next()` instead.
 */
export const responseText = new WeakMap<Response, string>();
export const notMine = new WeakSet<Response>();
