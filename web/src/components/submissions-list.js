// A list of submissions, newest first: the table (with its user and hints
// columns for instructors) and a paged list that loads older ones on demand.
import { h, replace, fmtTime, fmtMs, fmtScore, verdictBadge } from '../lib/dom.js';
import { statusText, fmtEstimate } from './results.js';

export function submissionsTable(subs, showUser) {
  return h('table', { class: 'subs-table responsive' },
    h('caption', { class: 'sr-only' }, 'Submissions, newest first'),
    h('thead', null, h('tr', null, ['#', showUser ? 'User' : null, 'Problem', 'Verdict', 'Score', 'CPU ms', 'Submitted',
      showUser ? 'Hints' : null]
      .filter((c) => c !== null).map((c) => h('th', { scope: 'col', class: c === 'Score' || c === 'CPU ms' || c === 'Hints' ? 'num' : null }, c)))),
    h('tbody', null, subs.map((s) => h('tr', { 'data-id': s.id },
      h('td', { 'data-label': '#' }, h('a', { href: `#/submission/${s.id}` }, `#${s.id}`)),
      showUser ? h('td', { 'data-label': 'User' }, s.user) : null,
      h('td', { 'data-label': 'Problem' }, h('a', { href: `#/problem/${s.problem}` }, s.problem),
        h('span', { class: 'muted small' }, ` v${s.problem_version}`)),
      h('td', { 'data-label': 'Verdict' }, s.status === 'done' ? verdictBadge(s.verdict)
        : h('span', { class: 'verdict verdict-pending' }, s.status === 'judging' ? statusText(s) : queuedText(s))),
      h('td', { 'data-label': 'Score', class: 'num' }, fmtScore(s.score)),
      h('td', { 'data-label': 'CPU ms', class: 'num' }, fmtMs(s.time_ms)),
      h('td', { 'data-label': 'Submitted' }, fmtTime(s.created_at)),
      // the hints its author had opened when submitting (instructors' list)
      showUser ? h('td', { 'data-label': 'Hints', class: 'num hints-opened' }, String(s.hints_opened ?? '')) : null))));
}

// "queued #3 · ~40 s" for a queued row; the status otherwise.
function queuedText(s) {
  if (s.status !== 'queued' || !s.queue_position) return s.status;
  const eta = s.queue_estimate_s === null || s.queue_estimate_s === undefined
    ? '' : ` · ${fmtEstimate(s.queue_estimate_s)}`;
  return `queued #${s.queue_position}${eta}`;
}

// A paged list: load(before) -> {submissions, next_before}.
export function pagedList(load, showUser) {
  const box = h('div', { class: 'table-wrap' });
  const more = h('button', { type: 'button', hidden: true }, 'Older submissions');
  const count = h('p', { class: 'muted small', role: 'status' });
  let before = null, all = [];
  const page = async () => {
    more.disabled = true;
    const r = await load(before);
    all = all.concat(r.submissions);
    before = r.next_before;
    replace(box, all.length ? submissionsTable(all, showUser) : h('p', { class: 'muted' }, 'No submissions.'));
    count.textContent = `${all.length} shown${before ? '; there are older ones' : ''}.`;
    more.hidden = !before;
    more.disabled = false;
  };
  more.addEventListener('click', () => page().catch((e) => {
    replace(box, h('p', { class: 'error', role: 'alert' }, e.message));
  }));
  return { el: h('div', null, box, count, more), page };
}
