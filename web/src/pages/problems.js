// The problem list: title, difficulty, tags, prerequisites, and for a
// signed-in student a mark per problem (solved, or tried with the best
// score), computed from their own submissions.
import { h, replace, fmtScore } from '../lib/dom.js';
import { get } from '../lib/api.js';
import { currentUser } from '../lib/session.js';

// Per problem slug: {solved, best, tried} over the user's submissions.
// A problem that is not simply published says so (docs/api.md, "Problem
// states"): students only ever see "archived"; instructors also see drafts
// and problems scheduled for later.
function badge(p) {
  const scheduled = p.state === 'published' && p.publish_at && Date.parse(p.publish_at) > Date.now();
  if (p.state === 'published' && !scheduled) return null;
  const text = scheduled ? `scheduled: ${new Date(p.publish_at).toLocaleString()}` : p.state;
  return h('span', { class: `state-badge state-${scheduled ? 'scheduled' : p.state}` }, text);
}

export async function myProgress() {
  const out = new Map();
  if (!currentUser()) return out;
  let before = null;
  for (let page = 0; page < 10; page++) {
    const q = `/api/submissions?mine=1&limit=500${before ? `&before=${before}` : ''}`;
    const r = await get(q);
    for (const s of r.submissions) {
      const e = out.get(s.problem) || { solved: false, best: null, tried: 0 };
      e.tried++;
      if (s.verdict === 'accepted') e.solved = true;
      if (typeof s.score === 'number' && (e.best === null || s.score > e.best)) e.best = s.score;
      out.set(s.problem, e);
    }
    if (!r.next_before) break;
    before = r.next_before;
  }
  return out;
}

export function mark(e) {
  if (!e) return h('span', { class: 'mark mark-none', title: 'not tried yet' }, h('span', { class: 'sr-only' }, 'not tried'));
  if (e.solved) return h('span', { class: 'mark mark-solved', 'data-mark': 'solved', title: 'solved' }, '✓', h('span', { class: 'sr-only' }, ' solved'));
  return h('span', { class: 'mark mark-tried', 'data-mark': 'tried', title: `tried, best score ${fmtScore(e.best)}` },
    '•', h('span', { class: 'sr-only' }, ` tried, best score ${fmtScore(e.best)}`));
}

export async function problemsPage(main, params, ctx) {
  ctx.setTitle('Problems');
  const [list, progress] = await Promise.all([get('/api/problems'), myProgress().catch(() => new Map())]);
  if (!ctx.alive()) return;
  const problems = list.problems || [];
  const titles = new Map(problems.map((p) => [p.slug, p.title]));
  const me = currentUser();
  const solved = [...progress.values()].filter((e) => e.solved).length;

  const filter = h('input', { type: 'search', id: 'problem-filter', placeholder: 'title, tag or difficulty',
                              'aria-controls': 'problem-table' });
  const rows = problems.map((p) => {
    const e = progress.get(p.slug);
    const hay = [p.title, p.slug, p.difficulty, ...(p.tags || [])].join(' ').toLowerCase();
    return h('tr', { 'data-slug': p.slug, 'data-search': hay },
      me ? h('td', { class: 'mark-cell' }, mark(e)) : null,
      h('td', { class: 'title-cell' },
        h('a', { href: `#/problem/${p.slug}`, class: 'problem-link' }, p.title),
        h('div', { class: 'muted mono small' }, p.slug),
        badge(p)),
      h('td', null, h('span', { class: `difficulty difficulty-${p.difficulty}` }, p.difficulty || '')),
      h('td', null, h('ul', { class: 'tags' }, (p.tags || []).map((t) => h('li', { class: 'tag' }, t)))),
      h('td', { 'data-label': 'Requires' }, (p.prerequisites || []).length
        ? h('ul', { class: 'prereqs' }, p.prerequisites.map((s) => h('li', null,
            h('a', { href: `#/problem/${s}` }, titles.get(s) || s),
            me && progress.get(s) && progress.get(s).solved ? ' ✓' : '')))
        : h('span', { class: 'muted' }, 'none')),
      h('td', { class: 'num', 'data-label': 'Tests' }, String(p.n_tests ?? '')),
      h('td', null, h('a', { href: `#/leaderboard/${p.slug}`, 'aria-label': `Leaderboard of ${p.title}` }, 'leaderboard')));
  });
  const empty = h('p', { class: 'muted', hidden: true }, 'No problem matches.');
  filter.addEventListener('input', () => {
    const q = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const r of rows) {
      const ok = !q || r.dataset.search.includes(q);
      r.hidden = !ok;
      if (ok) shown++;
    }
    empty.hidden = shown > 0;
  });

  replace(main,
    h('h1', null, 'Problems'),
    h('p', { class: 'lead' }, me
      ? `Solved ${solved} of ${problems.length}. Pick a problem, write the C function, submit.`
      : ['Write attention kernels in C; they are judged in a sandbox against a trusted reference. ',
         h('a', { href: '#/signup' }, 'Sign up'), ' or ', h('a', { href: '#/login' }, 'sign in'), ' to submit.']),
    h('div', { class: 'toolbar' }, h('label', { for: 'problem-filter' }, 'Filter '), filter),
    h('div', { class: 'table-wrap' },
      h('table', { class: 'problems-table responsive', id: 'problem-table' },
        h('caption', { class: 'sr-only' }, 'Problems'),
        h('thead', null, h('tr', null,
          me ? h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Status')) : null,
          ['Problem', 'Difficulty', 'Tags', 'Prerequisites', 'Tests', ''].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, rows))),
    empty);
}
