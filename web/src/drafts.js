// The editor's draft of each problem, kept in localStorage across reloads
// (per problem, and per user when signed in, so two people sharing a
// browser do not see each other's code).
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
