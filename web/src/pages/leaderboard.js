// Per-problem leaderboards: each user's fastest accepted submission on the
// problem's current version, by measured CPU time.
import { h, replace, fmtTime, fmtMs } from '../dom.js';
import { get } from '../api.js';
import { currentUser } from '../session.js';

export async function leaderboardPage(main, [slug], ctx) {
  const list = await get('/api/problems');
  if (!ctx.alive()) return;
  const problems = list.problems || [];
  if (!slug && problems.length) slug = problems[0].slug;
  const select = h('select', { id: 'lb-problem', onchange: () => ctx.go(`/leaderboard/${select.value}`) },
    problems.map((p) => h('option', { value: p.slug, selected: p.slug === slug }, p.title)));
  const p = problems.find((x) => x.slug === slug);
  ctx.setTitle(`Leaderboard${p ? ` · ${p.title}` : ''}`);
  let body;
  if (!slug) {
    body = h('p', { class: 'muted' }, 'There are no problems yet.');
  } else {
    const lb = await get(`/api/leaderboard/${slug}`);
    if (!ctx.alive()) return;
    const me = currentUser();
    body = lb.entries.length
      ? h('div', { class: 'table-wrap' }, h('table', { class: 'leaderboard responsive' },
          h('caption', null, `${p ? p.title : slug}, version ${lb.version}: fastest accepted submission per user`),
          // Numbers are right-aligned, and so are their headers.
          h('thead', null, h('tr', null, [['Rank', 'num'], ['User'], ['CPU ms (sum over tests)', 'num'], ['Submitted']]
            .map(([c, cls]) => h('th', { scope: 'col', class: cls }, c)))),
          // The course names entries by display name, username or not at
          // all (docs/operations.md, "Privacy"); "you" marks one's own.
          h('tbody', null, lb.entries.map((e) => h('tr', { class: e.you ? 'me' : null },
            h('td', { 'data-label': 'Rank', class: 'num' }, String(e.rank)),
            h('td', { 'data-label': 'User', class: 'lb-user' },
              e.user === null ? (e.you ? 'you' : h('span', { class: 'muted' }, `student #${e.rank}`))
                : [e.user, e.you ? ' (you)' : '', me && me.role === 'instructor' && e.display_name && e.display_name !== e.user ? h('span', { class: 'muted small' }, ` ${e.display_name}`) : '']),
            h('td', { 'data-label': 'CPU ms', class: 'num' }, fmtMs(e.time_ms)),
            h('td', { 'data-label': 'Submitted' }, fmtTime(e.created_at)))))))
      : h('p', { class: 'muted' }, 'No accepted submission yet. Be the first.');
  }
  replace(main, h('h1', null, 'Leaderboard'),
    h('div', { class: 'toolbar' }, h('label', { for: 'lb-problem' }, 'Problem '), select,
      slug ? h('a', { href: `#/problem/${slug}` }, 'Open the problem') : null),
    body,
    h('p', { class: 'muted small' }, 'Times are the judge\'s CPU-time measurements, summed over every test.'));
}
