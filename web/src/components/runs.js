// Ungraded runs (POST /api/runs, GET /api/runs/{id}; docs/api.md): the
// editor's source judged on the sample tests only, through the same
// pipeline as a submission, shown with the submissions' results component
// (results.js) under a banner that says it is not a submission. A run is
// never graded, listed or ranked; the server forgets it after a while.
import { h, replace } from '../lib/dom.js';
import { post, ApiError } from '../lib/api.js';
import { renderResult, revealResult, statusText, watchJob, PENDING } from './results.js';

// Polls GET /api/runs/{id} as watchJob does.
export function watchRun(id, onUpdate, onError) {
  return watchJob('/api/runs', id, onUpdate, onError);
}

// The problem as a run sees it: its sample tests only.
function samplesOnly(problem) {
  return problem ? { ...problem, tests: (problem.tests || []).filter((t) => t.kind === 'sample') } : problem;
}

// renderRun(run, {problem, onJump}) -> element: the results component with
// what a run does not have left out (a submission page to link to, a
// score), under the "ungraded" banner.
export function renderRun(run, opts = {}) {
  const view = { ...run };
  delete view.id;
  delete view.score;
  return h('section', { class: 'run-result', 'data-ungraded': 'true', 'data-state': run.status,
                        'aria-label': 'Ungraded run on the sample tests' },
    h('p', { class: 'run-banner' },
      h('span', { class: 'run-badge' }, 'Ungraded run'),
      ' Sample tests only. Not a submission: no grade, not on the leaderboard, not in your submissions.'),
    renderResult(view, { ...opts, problem: samplesOnly(opts.problem) }));
}

// The "Run samples" button's action for the problem page: sends the
// editor's source, then shows the run live in box. Returns the click
// handler; leaving the page stops the polling (ctx.onLeave).
export function sampleRunner(ctx, { slug, problem, box, button, live, getSource, onJump }) {
  let stop = null;
  ctx.onLeave(() => stop && stop());
  const show = (run) => {
    replace(box, renderRun(run, { problem, onJump }));
    live.textContent = `Ungraded run: ${statusText(run)}`;
  };
  return async () => {
    if (button.disabled) return;
    button.disabled = true;
    if (stop) stop();
    replace(box, h('p', { class: 'muted' }, 'Sending the run…'));
    try {
      const r = await post('/api/runs', { problem: slug, source: getSource() });
      if (!ctx.alive()) return;
      show({ ...r, progress: null, tests: [] });
      revealResult(box);
      let judged = false;
      stop = watchRun(r.id, (run) => {
        if (!ctx.alive()) return;
        show(run);
        if (PENDING.has(run.status)) return;
        button.disabled = false;
        if (!judged) revealResult(box, { verdict: true });
        judged = true;
      }, (e) => {
        replace(box, h('p', { class: 'error', role: 'alert' }, e.message));
        button.disabled = false;
      });
    } catch (e) {
      button.disabled = false;
      let msg = e.message;
      if (e instanceof ApiError && e.retryAfter) msg += ` (retry in ${e.retryAfter} s)`;
      replace(box, h('p', { class: 'error', role: 'alert' }, msg));
      if (e instanceof ApiError && e.status === 401) ctx.go('/login');
    }
  };
}
