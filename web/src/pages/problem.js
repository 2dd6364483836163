// A problem: the statement (libcmark HTML from the server, math typeset by
// KaTeX), the C signature, tolerance, limits and tests; the editor with the
// starter code or the saved draft; Submit; and the live result.
import { h, replace, safeHtml, dimsText, fmtTime, verdictBadge, fmtScore } from '../lib/dom.js';
import { get, post, ApiError, vocabulary } from '../lib/api.js';
import { currentUser } from '../lib/session.js';
import { createEditor } from '../components/editor.js';
import { openDraft, draftSaver } from '../lib/drafts.js';
import { renderResult, revealResult, watchSubmission, statusText, stillChanging } from '../components/results.js';
import { helpPanel } from '../components/hints.js';
import { fitStatement, signatureBlock } from '../lib/layout.js';
import { sampleRunner } from '../components/runs.js';
import { deadlines } from '../components/deadlines.js';
import { typeset } from '../lib/typeset.js';

function toleranceText(tol) {
  if (!tol) return '';
  const atol = tol.atol_relative_to_max ? `${tol.atol} · max|expected|` : String(tol.atol);
  return `|got − expected| ≤ ${atol} + ${tol.rtol} · |expected|`;
}

// The compile and link flags as the judge states them (GET /api/vocabulary).
function compiledWith(vocab) {
  const c = vocab && vocab.compile;
  if (!c) return '';
  return [h('code', null, `gcc ${c.cflags.join(' ')}`), ', linked with ', h('code', null, c.ldflags.join(' '))];
}

export function problemInfo(p, vocab) {
  const samples = (p.tests || []).filter((t) => t.kind === 'sample');
  const hidden = (p.tests || []).filter((t) => t.kind !== 'sample');
  const lim = p.limits || {};
  return [
    h('section', { class: 'card', 'aria-labelledby': 'sig-h' },
      h('h2', { id: 'sig-h' }, 'Signature'),
      signatureBlock(p.signature),
      h('dl', { class: 'facts' },
        h('dt', null, 'Tolerance'), h('dd', null, h('span', { class: 'mono' }, toleranceText(p.tolerance)),
          p.tolerance && p.tolerance.atol_relative_to_max
            ? h('div', { class: 'muted small' }, 'atol scales with the largest |expected| of each output tensor.') : null),
        h('dt', null, 'Limits per test'),
        h('dd', null, `${lim.cpu_ms} ms CPU, ${lim.wall_ms} ms wall, ${lim.memory_mb} MB memory`),
        h('dt', null, 'Compiled with'),
        h('dd', { class: 'compiled-with' }, compiledWith(vocab)))),
    h('section', { class: 'card', 'aria-labelledby': 'tests-h' },
      h('h2', { id: 'tests-h' }, 'Tests'),
      h('p', { class: 'small' }, `${samples.length} sample tests (inputs public, mismatches shown) and `,
        `${hidden.length} hidden tests (only their verdict and a time class shown). Reproduce a sample locally with `,
        h('code', null, `attnjudge export --problem ${p.slug} --test NAME --dir case/`), '.'),
      h('p', { class: 'small' },
        h('a', { href: `/api/problems/${encodeURIComponent(p.slug)}/samples`, download: `${p.slug}-samples.zip`,
                 class: 'download-samples', id: 'download-samples' }, 'Download sample case'),
        ': every sample test\'s inputs and expected outputs (.npy) with a small C main that calls your ',
        'function and compares, to build with your solution.c and debug with gdb (README.txt inside).'),
      h('div', { class: 'table-wrap' },
        h('table', { class: 'problem-tests' },
          h('thead', null, h('tr', null, ['Test', 'Kind', 'Dims', 'Weight', 'Seed']
            .map((c) => h('th', { scope: 'col', class: c === 'Weight' || c === 'Seed' ? 'num' : null }, c)))),
          h('tbody', null, [...samples, ...hidden].map((t) => h('tr', { 'data-test': t.name, class: t.kind },
            h('th', { scope: 'row' }, t.name), h('td', null, t.kind), h('td', { class: 'dims' }, dimsText({ ...t.dims, ...t.scalars })),
            h('td', { class: 'num' }, String(t.weight ?? 1)), h('td', { class: 'num' }, t.seed === undefined ? '—' : String(t.seed)))))))),
  ];
}

export async function problemPage(main, [slug], ctx) {
  // The vocabulary only fills in the compile flags: the page works without it.
  const [p, vocab] = await Promise.all([get(`/api/problems/${slug}`), vocabulary().catch(() => null)]);
  if (!ctx.alive()) return;
  ctx.setTitle(p.title);
  const me = currentUser();
  const user = me ? me.username : null;

  const statement = h('div', { class: 'statement' }, safeHtml(p.statement_html || ''));
  // The page's heading already is the title: drop a statement's own copy.
  const first = statement.firstElementChild;
  if (first && first.tagName === 'H1' && first.textContent.trim() === (p.title || '').trim()) first.remove();
  typeset(statement);
  const help = helpPanel(p, { typeset }); // hints and the walkthrough (web/src/components/hints.js)

  const draftState = h('span', { class: 'draft-state muted small', role: 'status' });
  const live = h('p', { class: 'sr-only', 'aria-live': 'polite', id: 'live-status' });
  const resultBox = h('div', { class: 'result-box', id: 'result' });
  const recent = h('div', { class: 'recent' });
  const editorHost = h('div', { class: 'editor-host', id: 'editor' });
  // The draft: the account's (so it follows the student between
  // machines) or this browser's, whichever is newer (../lib/drafts.js).
  const opened = await openDraft(slug, user);
  if (!ctx.alive()) return;
  const conflictBox = h('div', { id: 'draft-conflict' });
  let saver = null;
  const editor = createEditor(editorHost, {
    doc: opened.text !== null ? opened.text : (p.starter_c || ''),
    label: `C source for ${p.title}`,
    onSubmit: () => submit(),
    onChange: (text) => saver.save(text),
  });
  saver = draftSaver(slug, user, opened.revision, {
    status: (t) => { draftState.textContent = t; },
    // Another machine saved since this page loaded: the student chooses.
    onConflict: (other, mine) => {
      replace(conflictBox, h('p', { class: 'notice', role: 'alert' },
        `Your draft was changed elsewhere (${new Date(other.updated_at).toLocaleString()}). `,
        h('button', { type: 'button', id: 'draft-use-other', onclick: () => {
          saver.accept(other);
          editor.setText(other.source);
          replace(conflictBox);
        } }, 'Use that version'), ' ',
        h('button', { type: 'button', id: 'draft-keep-mine', onclick: () => {
          saver.keepMine(mine);
          replace(conflictBox);
        } }, 'Keep this one')));
    },
  });
  draftState.textContent = opened.note || 'Starter code.';
  // A newer copy from this browser (written offline) reaches the account
  // with the next edit, not behind the student's back on opening.
  const onHide = () => { if (document.visibilityState === 'hidden') saver.flush(); };
  document.addEventListener('visibilitychange', onHide);
  ctx.onLeave(() => {
    saver.flush(); // a pending save goes before leaving
    document.removeEventListener('visibilitychange', onHide);
    editor.view.destroy();
  });

  // An archived problem is read-only (docs/api.md, "Problem states").
  const archived = p.state === 'archived';
  const submitBtn = h('button', { type: 'button', class: 'primary', id: 'submit', disabled: !me || archived }, 'Submit');
  // Ungraded: the sample tests only, shown in a box of its own (../components/runs.js).
  const runBox = h('div', { class: 'run-box', id: 'run-result' });
  const runBtn = h('button', { type: 'button', id: 'run-samples', disabled: !me || archived,
                               title: 'Run the sample tests without submitting (ungraded)' }, 'Run samples');
  runBtn.addEventListener('click', sampleRunner(ctx, {
    slug, problem: p, box: runBox, button: runBtn, live, getSource: () => editor.getText(),
    onJump: (l, c) => editor.gotoLine(l, c),
  }));
  const resetBtn = h('button', { type: 'button', id: 'reset-starter', onclick: () => {
    if (!window.confirm('Replace the editor contents with the starter code?')) return;
    editor.setText(p.starter_c || ''); /* saved as the draft like any edit */
    editor.focus();
  } }, 'Reset to starter');

  let stop = null;
  let view = {}; // the shown submission's folded rows (../components/results.js)
  const finished = () => { submitBtn.disabled = archived; refreshRecent(); help.refresh(); };
  const show = (sub) => {
    replace(resultBox, renderResult(sub, { problem: p, onJump: (l, c) => editor.gotoLine(l, c),
                                           onCancel: () => cancel(sub.id), view }));
    live.textContent = statusText(sub);
  };
  // Withdraws the submission while it is still queued; once a worker has
  // it (409 not_queued), judging goes on and the poll shows the verdict.
  async function cancel(id) {
    try {
      await post(`/api/submissions/${encodeURIComponent(id)}/cancel`, {});
      if (stop) stop();
      if (!ctx.alive()) return;
      show(await get(`/api/submissions/${encodeURIComponent(id)}`));
      finished();
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_queued') return;
      replace(resultBox, h('p', { class: 'error', role: 'alert' }, e.message));
    }
  }
  async function submit() {
    if (!currentUser()) { ctx.go('/login'); return; }
    if (submitBtn.disabled) return;
    submitBtn.disabled = true;
    if (stop) stop();
    replace(resultBox, h('p', { class: 'muted' }, 'Sending…'));
    try {
      const r = await post('/api/submissions', { problem: slug, source: editor.getText() });
      if (!ctx.alive()) return;
      view = {};
      show({ id: r.id, status: r.status || 'queued', progress: null });
      revealResult(resultBox);
      // The poll goes on while an accepted submission is benchmarked: the
      // lists are refreshed at the verdict and again at the last answer (a
      // wrong output at a benchmark size changes the verdict).
      let judged = false;
      stop = watchSubmission(r.id, (sub) => {
        if (!ctx.alive()) return;
        show(sub);
        const over = !stillChanging(sub);
        if (over || (!judged && (sub.status === 'done' || sub.status === 'cancelled'))) {
          if (!judged) revealResult(resultBox, { verdict: true });
          judged = true;
          finished();
        }
      }, (e) => {
        replace(resultBox, h('p', { class: 'error', role: 'alert' }, e.message));
        submitBtn.disabled = false;
      });
      ctx.onLeave(() => stop && stop());
    } catch (e) {
      submitBtn.disabled = false;
      let msg = e.message;
      if (e instanceof ApiError && e.retryAfter) msg += ` (retry in ${e.retryAfter} s)`;
      replace(resultBox, h('p', { class: 'error', role: 'alert' }, msg));
      if (e instanceof ApiError && e.status === 401) ctx.go('/login');
    }
  }
  submitBtn.addEventListener('click', submit);

  async function refreshRecent() {
    if (!currentUser()) return;
    try {
      const r = await get(`/api/submissions?mine=1&problem=${slug}&limit=5`);
      if (!ctx.alive()) return;
      if (!r.submissions.length) { replace(recent); return; }
      replace(recent, h('h3', null, 'Your recent submissions'),
        h('ul', { class: 'recent-list' }, r.submissions.map((s) => h('li', null,
          h('a', { href: `#/submission/${s.id}` }, `#${s.id}`), ' ', verdictBadge(s.verdict, s.status),
          s.score !== null && s.score !== undefined ? ` ${fmtScore(s.score)}` : '', ' ',
          h('span', { class: 'muted small' }, fmtTime(s.created_at))))),
        h('p', null, h('a', { href: '#/submissions' }, 'All my submissions')));
    } catch { /* the list is a convenience */ }
  }

  replace(main,
    h('div', { class: 'problem-head' },
      h('h1', null, p.title),
      h('p', { class: 'meta' },
        h('span', { class: `difficulty difficulty-${p.difficulty}` }, p.difficulty), ' ',
        h('ul', { class: 'tags inline' }, (p.tags || []).map((t) => h('li', { class: 'tag' }, t))),
        (p.prerequisites || []).length
          ? h('span', { class: 'prereq-line' }, ' Prerequisites: ', p.prerequisites.map((s, i) =>
              [i ? ', ' : '', h('a', { href: `#/problem/${s}` }, s)]))
          : null,
        ' · ', h('a', { href: `#/leaderboard/${slug}` }, 'Leaderboard'),
        h('span', { class: 'muted small' }, ` · version ${p.version}`))),
    h('div', { class: 'problem-layout' },
      fitStatement(h('article', { class: 'statement-col', 'aria-label': 'Statement', tabindex: '0' },
        statement, help.el, problemInfo(p, vocab))),
      h('section', { class: 'solve-col', 'aria-labelledby': 'solve-h' },
        h('h2', { id: 'solve-h' }, 'Your solution'),
        h('p', { class: 'small muted', id: 'editor-help' },
          'Tab indents; press Esc then Tab to leave the editor. Ctrl+Enter submits.'),
        editorHost,
        archived ? h('p', { class: 'notice', id: 'archived-notice' },
          'This problem is archived: it takes no more submissions. Your past submissions and the leaderboard stay readable.') : null,
        p.state === 'draft' ? h('p', { class: 'notice', id: 'draft-notice' },
          'Draft: only instructors see this problem.') : null,
        h('div', { class: 'toolbar' }, submitBtn, runBtn, resetBtn, draftState), deadlines(slug, ctx), conflictBox,
        me ? null : h('p', { class: 'notice' }, h('a', { href: '#/login' }, 'Sign in'), ' or ',
          h('a', { href: '#/signup' }, 'sign up'), ' to submit. Your draft is kept in this browser (signed in: in your account too).'),
        live, runBox, resultBox, recent)));
  refreshRecent();
}
