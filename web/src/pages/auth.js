// Sign in and sign up. The session is an HttpOnly cookie.
import { h, replace } from '../lib/dom.js';
import { vocabulary } from '../lib/api.js';
import { signIn, signUp } from '../lib/session.js';

function field(id, label, attrs, hint) {
  const input = h('input', { id, name: id, ...attrs, 'aria-describedby': hint ? `${id}-hint` : null });
  return { input, el: h('div', { class: 'field' }, h('label', { for: id }, label), input,
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null) };
}

function form(main, ctx, { title, button, fields, run, footer }) {
  const error = h('p', { class: 'error', role: 'alert', id: 'form-error' });
  const btn = h('button', { type: 'submit', class: 'primary' }, button);
  const f = h('form', { class: 'auth-form', novalidate: true }, fields.map((x) => x.el), error, btn);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    btn.disabled = true;
    try {
      await run();
      ctx.go('/problems');
    } catch (e) {
      error.textContent = e.message;
      btn.disabled = false;
    }
  });
  replace(main, h('h1', null, title), f, footer);
  fields[0].input.focus();
}

export async function loginPage(main, params, ctx) {
  ctx.setTitle('Sign in');
  const u = field('username', 'Username', { autocomplete: 'username', required: true });
  const p = field('password', 'Password', { type: 'password', autocomplete: 'current-password', required: true });
  form(main, ctx, { title: 'Sign in', button: 'Sign in', fields: [u, p],
    run: () => signIn(u.input.value.trim(), p.input.value),
    footer: h('p', null, 'No account yet? ', h('a', { href: '#/signup' }, 'Sign up')) });
}

// What the sign-up form asks for under the server's registration mode
// (GET /api/vocabulary, docs/api.md): "code" needs the class code, "open"
// does not, "closed" takes no sign-ups. An unknown mode (an older server,
// the vocabulary not loaded) offers the code as optional.
export function classCodeField(registration) {
  if (registration === 'code') return 'required';
  if (registration === 'open') return 'none';
  if (registration === 'closed') return 'closed';
  return 'optional';
}

export async function signupPage(main, params, ctx) {
  ctx.setTitle('Sign up');
  const vocab = await vocabulary().catch(() => null);
  if (!ctx.alive()) return;
  const code = classCodeField(vocab && vocab.registration);
  const footer = h('p', null, 'Have an account? ', h('a', { href: '#/login' }, 'Sign in'));
  if (code === 'closed') {
    replace(main, h('h1', null, 'Sign up'),
      h('p', { class: 'notice', id: 'registration-closed' },
        'Registration is closed on this server: ask an instructor for an account.'), footer);
    return;
  }
  const u = field('username', 'Username', { autocomplete: 'username', required: true, maxlength: 32 },
    '1 to 32 letters, digits, “_”, “.” or “-”, starting with a letter or digit.');
  const p = field('password', 'Password', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 },
    'At least 8 characters.');
  const c = code === 'required'
    ? field('class_code', 'Class code', { autocomplete: 'off', required: true }, 'The code your course gave you.')
    : code === 'optional' ? field('class_code', 'Class code (if your course gave you one)', { autocomplete: 'off' }) : null;
  form(main, ctx, { title: 'Sign up', button: 'Create account', fields: c ? [u, p, c] : [u, p],
    run: () => signUp(u.input.value.trim(), p.input.value, c ? c.input.value.trim() : ''),
    footer });
}
