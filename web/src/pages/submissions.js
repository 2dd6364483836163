// "My submissions" (GET /api/submissions?mine=1, paged with next_before)
// and one submission: its source in a read-only editor and its results,
// live while it is being judged.
import { h, replace, fmtTime, fmtMs, fmtScore, verdictBadge } from '../dom.js';
import { get, post, ApiError } from '../api.js';
import { currentUser } from '../session.js';
import { createEditor } from '../editor.js';
import { replaceDraft } from '../drafts.js';
import { renderResult, watchSubmission, statusText, fmtEstimate, stillChanging } from '../results.js';
import { submissionRejudge } from './rejudge.js';

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

export async function submissionsPage(main, params, ctx) {
  ctx.setTitle('My submissions');
  if (!currentUser()) { ctx.go('/login'); return; }
  const list = pagedList((before) => get(`/api/submissions?mine=1&limit=50${before ? `&before=${before}` : ''}`), false);
  await list.page();
  if (!ctx.alive()) return;
  replace(main, h('h1', null, 'My submissions'), list.el);
}

export async function submissionPage(main, [id], ctx) {
  ctx.setTitle(`Submission #${id}`);
  if (!currentUser()) { ctx.go('/login'); return; }
  let sub = await get(`/api/submissions/${id}`);
  if (!ctx.alive()) return;
  let problem = null;
  try { problem = await get(`/api/problems/${sub.problem}`); } catch { /* removed problem: no axis names */ }
  if (!ctx.alive()) return;

  const editorHost = h('div', { class: 'editor-host', id: 'editor' });
  const editor = createEditor(editorHost, { doc: sub.source || '', readOnly: true,
                                            label: `Source of submission ${id}`, height: '60vh' });
  ctx.onLeave(() => editor.view.destroy());
  const live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
  const resultBox = h('div', { class: 'result-box', id: 'result' });
  const header = h('p', { class: 'meta' });
  const me = currentUser();
  let stop = null;
  // The author (or an instructor) may withdraw it while it is queued.
  const mayCancel = me && (sub.user === me.username || me.role === 'instructor');
  async function cancel() {
    try {
      await post(`/api/submissions/${encodeURIComponent(id)}/cancel`, {});
      if (stop) stop();
      if (ctx.alive()) show(await get(`/api/submissions/${encodeURIComponent(id)}`));
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_queued') return; /* judging already */
      replace(resultBox, h('p', { class: 'error', role: 'alert' }, e.message));
    }
  }
  const view = {}; // its folded rows, kept while it is polled (../results.js)
  const show = (s) => {
    sub = s;
    replace(header, 'Problem ', h('a', { href: `#/problem/${s.problem}` }, s.problem), ` (version ${s.problem_version})`,
      ' · by ', h('strong', { class: 'sub-user' }, s.user || ''), ' · submitted ', fmtTime(s.created_at),
      s.judged_at ? [' · judged ', fmtTime(s.judged_at)] : '',
      s.compile_ms ? [' · compiled in ', fmtMs(s.compile_ms), ' ms'] : '',
      me && me.role === 'instructor' && s.hints_opened !== undefined
        ? h('span', { class: 'hints-opened' }, ` · hints opened: ${s.hints_opened}`) : '');
    replace(resultBox, renderResult(s, { problem, onJump: (l, c) => editor.gotoLine(l, c),
                                         onCancel: mayCancel ? cancel : null, view }));
    live.textContent = statusText(s);
  };
  show(sub);
  if (stillChanging(sub)) { /* judging, or being benchmarked */
    stop = watchSubmission(id, (s) => { if (ctx.alive()) show(s); });
    ctx.onLeave(stop);
  }
  const reuse = me && sub.user === me.username
    ? h('button', { type: 'button', id: 'edit-source', onclick: async () => {
        // asks first when it would replace a different draft (../drafts.js)
        if (await replaceDraft(sub.problem, me.username, sub.source || '')) ctx.go(`/problem/${sub.problem}`);
      } }, 'Edit this source')
    : null;
  replace(main,
    h('h1', null, `Submission #${id}`),
    header,
    h('div', { class: 'problem-layout' },
      h('section', { class: 'statement-col', 'aria-labelledby': 'src-h' },
        h('h2', { id: 'src-h' }, 'Source'), editorHost, h('div', { class: 'toolbar' }, reuse)),
      h('section', { class: 'solve-col', 'aria-labelledby': 'res-h' },
        h('h2', { id: 'res-h' }, 'Result'), live, resultBox,
        me && me.role === 'instructor' ? submissionRejudge(sub, () => {
          if (stop) stop();
          stop = watchSubmission(id, (s) => { if (ctx.alive()) show(s); });
          ctx.onLeave(stop);
        }) : null)));
}
