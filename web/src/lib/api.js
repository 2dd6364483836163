// The JSON API of attnjudge serve (docs/api.md). The session is the
// HttpOnly cookie set by POST /api/sessions {cookie: true}: page scripts
// never hold the token.

export class ApiError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

// Called when a request that carried the session cookie is refused with
// 401 (the session expired or was ended elsewhere).
let onUnauthorized = null;
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

export async function api(method, path, body) {
  const opts = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  // Every write is declared JSON, even without a body (DELETE): the server
  // accepts a cookie-authenticated write only with this site's Origin or a
  // JSON Content-Type, and browsers differ in when they send Origin.
  if (method !== 'GET' && method !== 'HEAD') opts.headers['Content-Type'] = 'application/json';
  if (body !== undefined) opts.body = JSON.stringify(body);
  let r;
  try {
    r = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, 'network', 'the server cannot be reached; check your connection');
  }
  if (r.status === 204) return null;
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!r.ok) {
    const e = data && data.error ? data.error : {};
    if (r.status === 401 && e.code === 'unauthorized' && onUnauthorized) onUnauthorized();
    const err = new ApiError(r.status, e.code || `http_${r.status}`, e.message || `HTTP ${r.status}`,
                             r.headers.get('Retry-After'));
    err.body = data; // e.g. the per-line "errors" of a class-list import
    throw err;
  }
  return data;
}

export const get = (path) => api('GET', path);

// The judge's vocabulary (GET /api/vocabulary, docs/api.md): the verdicts,
// test kinds, compile flags and progress stages. The UI keeps no copy of
// them; fetched once per page load (again after a failure).
let vocab = null;
export function vocabulary() {
  if (!vocab) vocab = get('/api/vocabulary').catch((e) => { vocab = null; throw e; });
  return vocab;
}
export const post = (path, body) => api('POST', path, body);
export const put = (path, body) => api('PUT', path, body);
export const del = (path) => api('DELETE', path);
