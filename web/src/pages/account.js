// The account page: the signed-in user changes their password (POST
// /api/users/me/password, docs/api.md "Passwords"). After an instructor's
// reset, or a generated first password, the app shows only this page
// until the one-time password is replaced (app.js).
import { h, replace } from '../lib/dom.js';
import { post } from '../lib/api.js';
import { currentUser, passwordChanged } from '../lib/session.js';

function field(id, label, autocomplete, hint) {
  const input = h('input', { id, name: id, type: 'password', autocomplete, required: true,
                             'aria-describedby': hint ? `${id}-hint` : null });
  return { input, el: h('div', { class: 'field' }, h('label', { for: id }, label), input,
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null) };
}

export async function accountPage(main, params, ctx) {
  ctx.setTitle('Account');
  const me = currentUser();
  if (!me) {
    replace(main, h('h1', null, 'Account'), h('p', null, h('a', { href: '#/login' }, 'Sign in'), ' first.'));
    return;
  }
  const oldPw = field('old-password', me.must_change_password ? 'One-time password' : 'Current password', 'current-password');
  const newPw = field('new-password', 'New password', 'new-password', 'At least 8 characters, not the one above.');
  const again = field('new-password-again', 'New password again', 'new-password');
  const error = h('p', { class: 'error', role: 'alert', id: 'account-error' });
  const done = h('p', { class: 'success', role: 'status', id: 'account-status' });
  const btn = h('button', { type: 'submit', class: 'primary', id: 'change-password' }, 'Change password');
  const form = h('form', { class: 'auth-form', id: 'password-form', novalidate: true },
    oldPw.el, newPw.el, again.el, error, btn);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    done.textContent = '';
    if (newPw.input.value !== again.input.value) {
      error.textContent = 'The two new passwords differ.';
      again.input.focus();
      return;
    }
    btn.disabled = true;
    try {
      const r = await post('/api/users/me/password', { old_password: oldPw.input.value, new_password: newPw.input.value });
      const wasOneTime = me.must_change_password;
      passwordChanged();
      form.reset();
      done.textContent = `Password changed.${r.sessions_ended ? ` ${r.sessions_ended} other session${r.sessions_ended === 1 ? ' was' : 's were'} signed out.` : ''}`;
      if (wasOneTime) ctx.go('/problems');
    } catch (e) {
      error.textContent = e.code === 'bad_credentials' ? 'That is not your current password.' : e.message;
    } finally {
      btn.disabled = false;
    }
  });
  replace(main, h('h1', null, 'Account'),
    h('p', null, 'Signed in as ', h('strong', null, me.username), me.role === 'instructor' ? ' (instructor)' : '', '.'),
    me.must_change_password
      ? h('p', { class: 'notice', id: 'must-change' }, 'Your password is a one-time password from an instructor. Choose your own to continue.')
      : null,
    h('h2', null, 'Change your password'),
    h('p', { class: 'small muted' }, 'Changing it signs out your other sessions (other browsers and machines); this one stays signed in.'),
    form, done);
  oldPw.input.focus();
}
