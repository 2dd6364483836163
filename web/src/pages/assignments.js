// Assignments (docs/api.md, "Assignments"): the students' page with each
// assignment's problems, the time left and their own status. The
// instructor's cards are components/assignments-admin.js.
import { h, replace, fmtScore } from '../lib/dom.js';
import { get } from '../lib/api.js';
import { currentUser } from '../lib/session.js';
import { timeLine, policyText } from '../lib/assignment-time.js';

function statusCell(c) {
  if (!c || !c.counted) return h('span', { class: 'muted' }, 'not started');
  const text = c.accepted ? `accepted, ${fmtScore(c.score)}` : `best ${fmtScore(c.score)}`;
  return h('span', null, h('a', { href: `#/submission/${c.submission}` }, text), c.late ? h('span', { class: 'state-badge state-draft' }, ' late') : '');
}

export async function assignmentsPage(main, params, ctx) {
  ctx.setTitle('Assignments');
  const list = (await get('/api/assignments')).assignments;
  const me = currentUser();
  const details = me && me.role !== 'instructor'
    ? await Promise.all(list.map((a) => get(`/api/assignments/${a.slug}`).catch(() => a)))
    : list;
  if (!ctx.alive()) return;
  const skew = list.length ? Date.parse(list[0].now) - Date.now() : 0;
  const lines = [];
  const cards = details.map((a) => {
    const line = h('p', { class: 'time-left', 'data-slug': a.slug }, timeLine(a, skew));
    lines.push([line, a]);
    return h('section', { class: 'card assignment', 'data-slug': a.slug, 'data-phase': a.phase },
      h('h2', null, a.title), line, h('p', { class: 'small muted' }, policyText(a)),
      h('table', { class: 'assignment-problems' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Problem'), a.mine ? h('th', { scope: 'col' }, 'Your status') : null)),
        h('tbody', null, a.problems.map((p) => h('tr', { 'data-problem': p.slug },
          h('td', null, h('a', { href: `#/problem/${p.slug}` }, p.title)),
          a.mine ? h('td', { class: 'my-status' }, statusCell(a.mine[p.slug])) : null)))));
  });
  const timer = setInterval(() => { for (const [el, a] of lines) el.textContent = timeLine(a, skew); }, 1000);
  ctx.onLeave(() => clearInterval(timer));
  replace(main, h('h1', null, 'Assignments'),
    cards.length ? cards : h('p', { class: 'muted' }, 'No assignment is open yet.'),
    me ? null : h('p', { class: 'small' }, h('a', { href: '#/login' }, 'Sign in'), ' to see your status.'));
  // #/assignments/{slug} (a problem page's link): that card, focused.
  const target = params[0] && main.querySelector(`section.assignment[data-slug="${CSS.escape(params[0])}"] h2`);
  if (target) { target.setAttribute('tabindex', '-1'); target.focus(); }
}
