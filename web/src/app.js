// attnjudge's web UI: a single-page app on hash routes.
//   #/problems  #/problem/<slug>  #/submissions  #/submission/<id>
//   #/leaderboard/<slug>  #/login  #/signup  #/instructor[/<view>]
// Each page is a function (main, params, ctx) that fills <main>; ctx.onLeave
// registers cleanup (pollers) run when the route changes.
import { h, replace } from './lib/dom.js';
import { loadSession, currentUser, isInstructor, onSessionChange, signOut } from './lib/session.js';
import { problemsPage } from './pages/problems.js';
import { problemPage } from './pages/problem.js';
import { submissionsPage, submissionPage } from './pages/submissions.js';
import { leaderboardPage } from './pages/leaderboard.js';
import { loginPage, signupPage } from './pages/auth.js';
import { instructorPage } from './pages/instructor.js';
import { accountPage } from './pages/account.js';
import { assignmentsPage } from './pages/assignments.js';
import { watchTableWraps } from './lib/layout.js';
import { vocabulary } from './lib/api.js';

const routes = [
  [/^\/problems$/, problemsPage],
  [/^\/problem\/([a-z0-9][a-z0-9-]{0,62})$/, problemPage],
  [/^\/submissions$/, submissionsPage],
  [/^\/submission\/(\d+)$/, submissionPage],
  [/^\/leaderboard\/([a-z0-9][a-z0-9-]{0,62})$/, leaderboardPage],
  [/^\/leaderboard$/, leaderboardPage],
  [/^\/login$/, loginPage],
  [/^\/signup$/, signupPage],
  [/^\/instructor(?:\/([a-z-]{1,32}))?$/, instructorPage],
  [/^\/account$/, accountPage],
  [/^\/assignments(?:\/([a-z0-9][a-z0-9-]{0,62}))?$/, assignmentsPage],
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
watchTableWraps(main);
let leave = [];
let generation = 0;

export function go(path) {
  if (location.hash === `#${path}`) route();
  else location.hash = `#${path}`;
}

function navLink(href, text) {
  const cur = location.hash.startsWith(href) || (href === '#/problems' && location.hash.startsWith('#/problem/'));
  return h('a', { href, 'aria-current': cur ? 'page' : null }, text);
}

function renderNav() {
  const me = currentUser();
  const items = [navLink('#/problems', 'Problems'), navLink('#/assignments', 'Assignments'), navLink('#/leaderboard', 'Leaderboards')];
  if (me) items.push(navLink('#/submissions', 'My submissions'));
  if (isInstructor()) items.push(navLink('#/instructor', 'Instructor'));
  if (me) items.push(navLink('#/account', 'Account'));
  const right = me
    ? [h('span', { class: 'whoami', 'data-user': me.username }, 'Signed in as ', h('strong', null, me.username),
        me.role === 'instructor' ? ' (instructor)' : ''),
       h('button', { type: 'button', class: 'linklike', id: 'signout', onclick: async () => {
         await signOut();
         go('/problems');
       } }, 'Sign out')]
    : [navLink('#/login', 'Sign in'), navLink('#/signup', 'Sign up')];
  replace(nav, h('ul', { class: 'nav-main' }, items.map((i) => h('li', null, i))),
    h('div', { class: 'nav-user' }, right));
}

async function route() {
  // Only "#/..." is a route; other fragments are in-page anchors.
  if (location.hash && !location.hash.startsWith('#/')) return;
  for (const fn of leave) { try { fn(); } catch { /* ignore */ } }
  leave = [];
  const gen = ++generation;
  let path = location.hash.replace(/^#/, '') || '/problems';
  if (path === '/' || path === '') path = '/problems';
  // A one-time password: nothing but the account page until it is changed
  // (the API refuses everything else, 403 password_change_required).
  const me = currentUser();
  if (me && me.must_change_password && path !== '/account') path = '/account';
  // A private course shows visitors the sign-in and sign-up pages only
  // (the API refuses them everything else, docs/operations.md "Privacy").
  if (!me && path !== '/login' && path !== '/signup') {
    const v = await vocabulary().catch(() => null);
    if (gen !== generation) return;
    if (v && v.course_visibility === 'private') path = '/login';
  }
  renderNav();
  let page = null, params = [];
  for (const [re, fn] of routes) {
    const m = re.exec(path);
    if (m) { page = fn; params = m.slice(1); break; }
  }
  const ctx = {
    go,
    onLeave: (fn) => leave.push(fn),
    alive: () => gen === generation,
    setTitle: (t) => { document.title = t ? `${t} · attnjudge` : 'attnjudge'; },
  };
  replace(main, h('p', { class: 'loading', role: 'status' }, 'Loading…'));
  main.setAttribute('aria-busy', 'true');
  delete main.dataset.route;
  try {
    if (!page) {
      ctx.setTitle('Not found');
      replace(main, h('h1', { tabindex: '-1' }, 'Not found'),
        h('p', null, 'There is no page here. ', h('a', { href: '#/problems' }, 'See the problems.')));
    } else {
      await page(main, params, ctx);
    }
  } catch (e) {
    if (gen !== generation) return;
    replace(main, h('h1', { tabindex: '-1' }, 'Something went wrong'),
      h('p', { class: 'error', role: 'alert' }, e && e.message ? e.message : String(e)));
  }
  if (gen !== generation) return;
  main.removeAttribute('aria-busy');
  main.dataset.route = path;      // "rendered": for tests and styles
  // Move the focus to the new page's heading, for keyboard and screen
  // reader users, unless the page put it somewhere on purpose.
  if (!main.contains(document.activeElement)) {
    const h1 = main.querySelector('h1');
    if (h1) { h1.setAttribute('tabindex', '-1'); h1.focus({ preventScroll: true }); }
  }
}

onSessionChange(renderNav);
document.querySelector('.skip-link').addEventListener('click', (ev) => {
  ev.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', route);

(async () => {
  try { await loadSession(); } catch { /* the pages show their own errors */ }
  route();
})();
