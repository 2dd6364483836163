// Per-problem leaderboards: each user's best accepted submission on the
// problem's current version, in the server's order — by the geometric mean
// of the benchmark medians over the problem's sizes, then (not measured
// yet, or a server that does not benchmark) by the CPU time of the tests.
// Per size the work done per second and its share of the machine's FMA
// peak; the machine's ceilings are said once, above the table. Each
// figure comes with its 95 % interval; entries whose intervals overlap
// share a rank and read "tied" (docs/performance.md, "Ties").
import { h, replace, fmtTime, fmtMs, fmt3 } from '../lib/dom.js';
import { get, vocabulary } from '../lib/api.js';
import { currentUser } from '../lib/session.js';
import { gflopsCell, machineText } from '../components/benchmark.js';

// The benchmark sizes named by the entries, in the package's order.
function sizeNames(entries) {
  const names = [];
  for (const e of entries) {
    for (const z of e.sizes || []) if (!names.includes(z.name)) names.push(z.name);
  }
  return names;
}

function userCell(e, me, position) {
  // The course names entries by display name, username or not at all
  // (docs/operations.md, "Privacy"); "you" marks one's own. Tied entries
  // share a rank, so an anonymous entry is numbered by its row.
  return h('td', { 'data-label': 'User', class: 'lb-user' },
    e.user === null ? (e.you ? 'you' : h('span', { class: 'muted' }, `student #${position}`))
      : [e.user, e.you ? ' (you)' : '', me && me.role === 'instructor' && e.display_name && e.display_name !== e.user ? h('span', { class: 'muted small' }, ` ${e.display_name}`) : '']);
}

function leaderboardTable(lb, title, benchmarked) {
  const me = currentUser();
  const sizes = benchmarked ? sizeNames(lb.entries) : [];
  // Numbers are right-aligned, and so are their headers.
  const cols = [['Rank', 'num'], ['User'],
    ...(benchmarked ? [['Geometric mean ms', 'num'], ['95 % interval ms', 'num'], ...sizes.map((n) => [`${n}: GFLOP/s (% peak)`, 'num'])] : []),
    ['CPU ms (tests)', 'num'], ['Submitted']];
  const sizeOf = (e, name) => (e.sizes || []).find((z) => z.name === name);
  return h('div', { class: 'table-wrap' }, h('table', { class: 'leaderboard responsive' },
    h('caption', null, `${title}, version ${lb.version}: best accepted submission per user`),
    h('thead', null, h('tr', null, cols.map(([c, cls]) => h('th', { scope: 'col', class: cls }, c)))),
    h('tbody', null, lb.entries.map((e, i) => h('tr', { class: e.you ? 'me' : null },
      h('td', { 'data-label': 'Rank', class: 'num' }, String(e.rank),
        e.tied ? h('span', { class: 'lb-tied muted small', title: 'within the measurement\'s noise of the entry above' }, ' tied') : null),
      userCell(e, me, i + 1),
      benchmarked ? h('td', { 'data-label': 'Geometric mean ms', class: 'num lb-bench' }, fmt3(e.bench_ms)) : null,
      benchmarked ? h('td', { 'data-label': '95 % interval ms', class: 'num lb-interval' },
        e.bench_interval_ms ? `${fmt3(e.bench_interval_ms[0])}–${fmt3(e.bench_interval_ms[1])}` : '—') : null,
      sizes.map((n) => h('td', { 'data-label': `${n} GFLOP/s (% peak)`, 'data-size': n, class: 'num lb-size' },
        gflopsCell(sizeOf(e, n)))),
      h('td', { 'data-label': 'CPU ms', class: 'num' }, fmtMs(e.time_ms)),
      h('td', { 'data-label': 'Submitted' }, fmtTime(e.created_at)))))));
}

export async function leaderboardPage(main, [slug], ctx) {
  const list = await get('/api/problems');
  if (!ctx.alive()) return;
  const problems = list.problems || [];
  if (!slug && problems.length) slug = problems[0].slug;
  const select = h('select', { id: 'lb-problem', onchange: () => ctx.go(`/leaderboard/${select.value}`) },
    problems.map((p) => h('option', { value: p.slug, selected: p.slug === slug }, p.title)));
  const p = problems.find((x) => x.slug === slug);
  ctx.setTitle(`Leaderboard${p ? ` · ${p.title}` : ''}`);
  let body, machine = null;
  if (!slug) {
    body = h('p', { class: 'muted' }, 'There are no problems yet.');
  } else {
    // The vocabulary only adds the machine's ceilings: the page works without it.
    const [lb, vocab] = await Promise.all([get(`/api/leaderboard/${slug}`), vocabulary().catch(() => null)]);
    if (!ctx.alive()) return;
    machine = vocab && vocab.machine;
    // A server that benchmarks (or did: its entries carry figures) ranks by them.
    const benchmarked = !!machine || lb.entries.some((e) => e.bench_ms !== null && e.bench_ms !== undefined);
    body = lb.entries.length
      ? leaderboardTable(lb, p ? p.title : slug, benchmarked)
      : h('p', { class: 'muted' }, 'No accepted submission yet. Be the first.');
  }
  replace(main, h('h1', null, 'Leaderboard'),
    h('div', { class: 'toolbar' }, h('label', { for: 'lb-problem' }, 'Problem '), select,
      slug ? h('a', { href: `#/problem/${slug}` }, 'Open the problem') : null),
    machine ? h('p', { class: 'machine-line', id: 'machine' }, `${machineText(machine)}.`) : null,
    body,
    h('p', { class: 'muted small' }, machine
      ? 'Ranked by the geometric mean of the median times over the benchmark sizes (CPU time of one call on ' +
        'one core); entries not measured yet follow, by the CPU time summed over the tests. Entries whose 95 % ' +
        'intervals overlap cannot be told apart on this machine: they share a rank, marked "tied". GFLOP/s is the ' +
        'work done per second at a size, and its share of the FMA peak above.'
      : 'Times are the judge\'s CPU-time measurements, summed over every test.'));
}
