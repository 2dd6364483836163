// The editor's draft of each problem, kept in localStorage across reloads
// (per problem, and per user when signed in, so two people sharing a
// browser do not see each other's code).
import { api, get, ApiError } from './api.js';

const key = (slug, user) => `attnjudge.draft.${user || '-'}.${slug}`;

// A signed-in user without a draft of their own picks up the one written
// before signing in.
export function loadDraft(slug, user) {
  try {
    const own = localStorage.getItem(key(slug, user));
    return own !== null || !user ? own : localStorage.getItem(key(slug, null));
  } catch { return null; }
}

export function saveDraft(slug, user, text) {
  try { localStorage.setItem(key(slug, user), text); return true; } catch { return false; }
}

export function dropDraft(slug, user) {
  try { localStorage.removeItem(key(slug, user)); } catch { /* ignore */ }
}

// ---- drafts on the server (docs/api.md, "Drafts") ----
// Signed-in users' drafts are also saved to their account, so that they
// follow them from machine to machine. localStorage stays the offline copy.

const stampKey = (slug, user) => `attnjudge.draftAt.${user || '-'}.${slug}`;
function localStamp(slug, user) {
  try { return Number(localStorage.getItem(stampKey(slug, user))) || 0; } catch { return 0; }
}
function setLocalStamp(slug, user, ms) {
  try { localStorage.setItem(stampKey(slug, user), String(ms)); } catch { /* ignore */ }
}

// The draft to open: { text, note } — the server's, or this browser's when
// it is newer or the server cannot be reached; text null: the starter.
export async function openDraft(slug, user) {
  const local = loadDraft(slug, user);
  if (!user) return { text: local, note: local !== null ? 'Restored your draft from this browser.' : null, revision: 0 };
  try {
    const d = await get(`/api/drafts/${slug}`);
    const serverAt = Date.parse(d.updated_at);
    if (local !== null && local !== d.source && localStamp(slug, user) > serverAt)
      return { text: local, note: 'Restored the newer draft from this browser (your account had an older one).', revision: d.revision };
    saveDraft(slug, user, d.source);
    setLocalStamp(slug, user, serverAt);
    return { text: d.source, note: `Restored your draft, saved to your account ${new Date(serverAt).toLocaleString()}.`, revision: d.revision };
  } catch (e) {
    if (e instanceof ApiError && e.status === 404)
      return { text: local, note: local !== null ? 'Restored your draft from this browser.' : null, revision: 0 };
    return { text: local, note: 'Offline: your draft is kept in this browser.', revision: 0, offline: true };
  }
}

// A debounced saver for one problem: save(text) after each change, flush()
// on leaving; status(text) reports. onConflict(draft) is called with the
// draft another machine saved since (draft_conflict).
export function draftSaver(slug, user, revision, { status, onConflict }) {
  let timer = null, pending = null, rev = revision, busy = false;
  const send = async (force) => {
    if (pending === null || busy) return;
    const text = pending;
    pending = null;
    busy = true;
    status('Saving…');
    try {
      const body = force || !rev ? { source: text } : { source: text, revision: rev };
      const r = await api('PUT', `/api/drafts/${slug}`, body);
      rev = r.revision;
      setLocalStamp(slug, user, Date.parse(r.updated_at));
      status(`Saved to your account ${new Date(r.updated_at).toLocaleTimeString()}.`);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'draft_conflict' && e.body && e.body.draft) {
        rev = e.body.draft.revision;
        onConflict(e.body.draft, text);
      } else {
        status(e instanceof ApiError && e.status === 0 ? 'Offline: kept in this browser.' : `Not saved to your account: ${e.message}`);
        if (pending === null) pending = text;
      }
    } finally { busy = false; }
  };
  return {
    save(text) {
      saveDraft(slug, user, text);
      setLocalStamp(slug, user, Date.now());
      if (!user) { status('Draft saved in this browser.'); return; }
      pending = text;
      clearTimeout(timer);
      status('Editing…');
      timer = setTimeout(() => send(false), 1500);
    },
    keepMine(text) { pending = text; send(true); },
    accept(draft) { rev = draft.revision; },
    flush() { clearTimeout(timer); if (user && pending !== null) send(false); },
  };
}

// "Edit this source" of a past submission: replaces the draft, after
// asking when the current draft differs. Returns false if declined.
export async function replaceDraft(slug, user, text) {
  let current = loadDraft(slug, user);
  if (user) {
    try { current = (await get(`/api/drafts/${slug}`)).source; } catch { /* none, or offline */ }
  }
  if (current !== null && current !== text &&
      !window.confirm(`Replace your current draft of ${slug} with this submission's source? Your draft is overwritten.`))
    return false;
  saveDraft(slug, user, text);
  setLocalStamp(slug, user, Date.now());
  if (user) {
    try { await api('PUT', `/api/drafts/${slug}`, { source: text }); } catch { /* kept locally */ }
  }
  return true;
}
