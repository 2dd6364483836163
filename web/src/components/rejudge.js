// Rejudges that keep what they replace (docs/api.md, "Rejudges"): the
// instructor page's Rejudge card (start one, follow its change report, open
// past ones) and, on a submission page, "Rejudge this submission" with the
// verdict history. When a report is complete, `attnjudge:rejudged` is
// dispatched so that grade views reload.
import { h, replace, fmtTime } from '../lib/dom.js';
import { get, post } from '../lib/api.js';

const fmtScore = (v) => (v === null || v === undefined ? '—' : String(Math.round(v * 1000) / 1000));
const judgement = (j) => `${j.verdict || j.status} ${fmtScore(j.score)} (v${j.version})`;

// Polls GET /api/rejudges/{id} into box until it is done (every second,
// at most ten minutes), then dispatches attnjudge:rejudged.
export function followReport(box, id, alive = () => true) {
  let stopped = false;
  const deadline = Date.now() + 600_000;
  const tick = async () => {
    if (stopped || !alive() || !document.body.contains(box)) return;
    try {
      const r = await get(`/api/rejudges/${id}`);
      replace(box, reportView(r));
      if (r.state === 'done') {
        window.dispatchEvent(new CustomEvent('attnjudge:rejudged', { detail: { id } }));
        return;
      }
    } catch (e) {
      replace(box, h('p', { class: 'error', role: 'alert' }, e.message));
      return;
    }
    if (Date.now() < deadline) setTimeout(tick, 1000);
  };
  tick();
  return () => { stopped = true; };
}

export function reportView(r) {
  const s = r.summary;
  return h('div', { class: 'rejudge-report', 'data-state': r.state, 'data-id': r.id },
    h('p', { class: 'rejudge-summary' }, h('strong', null, `Rejudge #${r.id}`), ` of ${r.submission ? `submission #${r.submission}` : r.problem}`,
      ` by ${r.requested_by || '?'}, ${fmtTime(r.requested_at)}: `,
      r.state === 'pending' ? `${s.pending} of ${r.count} still being judged; ` : 'done; ',
      `${s.changed} changed (${s.improved} better, ${s.worse} worse), ${s.unchanged} unchanged.`),
    r.items.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'rejudge-table responsive' },
      h('thead', null, h('tr', null, ['Submission', 'User', 'Before', 'After', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', null, r.items.map((i) => h('tr', { 'data-submission': i.submission, 'data-trend': i.trend, class: i.changed ? `changed ${i.trend}` : null },
        h('td', { 'data-label': 'Submission' }, h('a', { href: `#/submission/${i.submission}` }, `#${i.submission}`)),
        h('td', { 'data-label': 'User' }, i.user),
        h('td', { 'data-label': 'Before', class: 'old' }, judgement(i.old)),
        h('td', { 'data-label': 'After', class: 'new' }, i.trend === 'pending' ? 'being judged…' : judgement(i.new)),
        h('td', { 'data-label': '' }, i.trend === 'unchanged' || i.trend === 'pending' ? '' : i.trend,
          i.superseded_by ? h('span', { class: 'small muted' }, ` (rejudged again in #${i.superseded_by})`) : '')))))) : null);
}

// The instructor page's card: { el, setProblems(list) }.
export function rejudgeCard(problems, onStarted) {
  const select = h('select', { id: 'r-problem' });
  const setProblems = (list) => replace(select, list.map((p) => h('option', { value: p.slug }, `${p.title} (${p.slug}, v${p.version})`)));
  setProblems(problems);
  const status = h('p', { role: 'status', id: 'rejudge-status' });
  const report = h('div', { id: 'rejudge-report' });
  const past = h('div', { id: 'rejudge-list' });
  const btn = h('button', { type: 'submit' }, 'Rejudge all submissions');
  const form = h('form', { class: 'inline-form', id: 'rejudge-form' },
    h('label', { for: 'r-problem' }, 'Problem '), select, ' ', btn, status);
  let stop = null;
  const open = (id) => { if (stop) stop(); stop = followReport(report, id); };
  const loadPast = async () => {
    try {
      const r = await get('/api/rejudges');
      replace(past, r.rejudges.length ? h('ul', { class: 'rejudge-past' }, r.rejudges.map((x) => h('li', null,
        h('button', { type: 'button', class: 'linklike', onclick: () => open(x.id) }, `#${x.id}`),
        ` ${x.submission ? `submission #${x.submission}` : x.problem} — ${x.count} submission${x.count === 1 ? '' : 's'}, ${fmtTime(x.requested_at)} by ${x.requested_by || '?'}`)))
        : h('p', { class: 'muted small' }, 'No rejudges yet.'));
    } catch (e) { replace(past, h('p', { class: 'error' }, e.message)); }
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!select.value) return;
    if (!window.confirm(`Rejudge every submission of ${select.value} against its current version? Their current verdicts are kept in the history and in the change report.`)) return;
    btn.disabled = true;
    try {
      const r = await post(`/api/problems/${select.value}/rejudge`, {});
      status.textContent = `${r.queued} submissions of ${r.problem} queued again (rejudge #${r.rejudge}).`;
      open(r.rejudge);
      loadPast();
      if (onStarted) onStarted();
    } catch (e) {
      status.textContent = e.message;
    } finally { btn.disabled = false; }
  });
  loadPast();
  const el = h('div', null,
    h('p', { class: 'small' }, 'A rejudge judges submissions again against the problem’s current version and reports what changed; the earlier verdicts stay in each submission’s history.'),
    form, report, h('h3', null, 'Past rejudges'), past);
  return { el, setProblems };
}

// On a submission page, for instructors: the rejudge button and the
// verdict history (sub.history).
export function submissionRejudge(sub, onQueued) {
  const out = h('div', { id: 'submission-rejudge' });
  const btn = h('button', { type: 'button', id: 'rejudge-one', disabled: sub.status !== 'done' }, 'Rejudge this submission');
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    try {
      const r = await post(`/api/submissions/${sub.id}/rejudge`, {});
      const box = h('div');
      replace(out, box);
      followReport(box, r.rejudge);
      if (onQueued) onQueued();
    } catch (e) {
      replace(out, h('p', { class: 'error', role: 'alert' }, e.message));
      btn.disabled = false;
    }
  });
  const history = (sub.history || []).length
    ? h('div', { class: 'table-wrap' }, h('table', { class: 'history-table', id: 'verdict-history' },
        h('caption', null, 'Earlier verdicts, replaced by rejudges'),
        h('thead', null, h('tr', null, ['Judged', 'Verdict', 'Score', 'Version', 'Replaced by'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', null, sub.history.map((x) => h('tr', null,
          h('td', null, x.judged_at ? fmtTime(x.judged_at) : '—'), h('td', null, x.verdict || x.status),
          h('td', null, fmtScore(x.score)), h('td', null, `v${x.version}`),
          h('td', null, `rejudge #${x.rejudge}, ${fmtTime(x.replaced_at)}`))))))
    : null;
  return h('div', { class: 'instructor-tools' }, h('div', { class: 'toolbar' }, btn), out, history);
}
