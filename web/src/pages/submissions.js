// "My submissions" (GET /api/submissions?mine=1, paged with next_before)
// and one submission: its source in a read-only editor and its results,
// live while it is being judged.
import { h, replace, fmtTime, fmtMs } from '../lib/dom.js';
import { get, post, ApiError } from '../lib/api.js';
import { currentUser } from '../lib/session.js';
import { createEditor } from '../components/editor.js';
import { replaceDraft } from '../lib/drafts.js';
import { renderResult, watchSubmission, statusText, stillChanging } from '../components/results.js';
import { submissionRejudge } from '../components/rejudge.js';
import { pagedList } from '../components/submissions-list.js';

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
  const view = {}; // its folded rows, kept while it is polled (../components/results.js)
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
        // asks first when it would replace a different draft (../lib/drafts.js)
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
