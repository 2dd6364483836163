// Who is signed in. The session itself is the HttpOnly cookie; this module
// only remembers the user record from GET /api/me and a hint in
// localStorage, so anonymous visitors are not sent to /api/me (and a 401)
// on every page load.
import { get, post, del, ApiError, setUnauthorizedHandler } from './api.js';

const HINT = 'attnjudge.signedIn';
let me = null;
const listeners = new Set();

export const currentUser = () => me;
export const isInstructor = () => !!me && me.role === 'instructor';
export const onSessionChange = (fn) => listeners.add(fn);

function set(user) {
  me = user;
  try {
    if (user) localStorage.setItem(HINT, '1'); else localStorage.removeItem(HINT);
  } catch { /* storage disabled: the cookie still works */ }
  for (const fn of listeners) fn(me);
}

// A 401 on any call means the session is gone: show the signed-out UI.
setUnauthorizedHandler(() => { if (me) set(null); });

// An LTI launch (docs/lti.md) signs the browser in by the cookie alone and
// opens the page with ?launched=1: ask who that is, and drop the query.
function launched() {
  if (!new URLSearchParams(location.search).has('launched')) return false;
  try { history.replaceState(null, '', location.pathname + location.hash); } catch { /* keep it */ }
  return true;
}

export async function loadSession() {
  let hint = null;
  try { hint = localStorage.getItem(HINT); } catch { hint = '1'; }
  if (launched()) hint = '1';
  if (!hint) { set(null); return null; }
  try {
    set(await get('/api/me'));
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) set(null);
    else throw e;
  }
  return me;
}

export async function signIn(username, password) {
  const r = await post('/api/sessions', { username, password, cookie: true });
  set(r.user);
  return r.user;
}

export async function signUp(username, password, classCode) {
  const body = { username, password };
  if (classCode) body.class_code = classCode;
  await post('/api/users', body);
  return signIn(username, password);
}

// The one-time password was replaced: the app opens up again.
export function passwordChanged() {
  if (me) set({ ...me, must_change_password: false });
}

export async function signOut() {
  try { await del('/api/sessions'); } catch (e) { if (!(e instanceof ApiError) || e.status !== 401) throw e; }
  set(null);
}
