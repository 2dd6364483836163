// The instructor page's "Reset a password" card: POST
// /api/users/{name}/password gives the account a one-time password, shown
// here once, and signs out its sessions (docs/api.md, "Passwords").
import { h, replace } from '../lib/dom.js';
import { post } from '../lib/api.js';

export function passwordReset() {
  const name = h('input', { id: 'reset-user', type: 'text', autocomplete: 'off', required: true, maxlength: 32 });
  const out = h('div', { id: 'reset-result', role: 'status' });
  const btn = h('button', { type: 'submit', id: 'reset-btn' }, 'Reset password');
  const form = h('form', { class: 'inline-form', id: 'reset-form' },
    h('label', { for: 'reset-user' }, 'Username '), name, ' ', btn);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const user = name.value.trim();
    if (!user) return;
    if (!window.confirm(`Give ${user} a new one-time password? Their current password stops working and they are signed out everywhere.`)) return;
    btn.disabled = true;
    replace(out);
    try {
      const r = await post(`/api/users/${encodeURIComponent(user)}/password`, {});
      const code = h('code', { id: 'temporary-password', class: 'secret' }, r.temporary_password);
      const copy = h('button', { type: 'button', class: 'linklike', onclick: async () => {
        try { await navigator.clipboard.writeText(r.temporary_password); copy.textContent = 'Copied'; } catch { copy.textContent = 'Copy failed: select it'; }
      } }, 'Copy');
      replace(out, h('p', { class: 'success' }, `New one-time password for ${r.username}: `, code, ' ', copy),
        h('p', { class: 'small' }, 'It is shown only now. Give it to the student in person; they must choose their own at the next sign-in. ',
          `${r.sessions_ended} session${r.sessions_ended === 1 ? '' : 's'} signed out.`));
      name.value = '';
    } catch (e) {
      replace(out, h('p', { class: 'error', role: 'alert' }, e.message));
    } finally {
      btn.disabled = false;
    }
  });
  return h('div', null,
    h('p', { class: 'small' }, 'For a student who forgot their password (the server’s operator can also run ',
      h('code', null, 'attnjudge user passwd NAME'), ').'), form, out);
}
