// Hints and the walkthrough (docs/api.md, "Hints and walkthroughs").
// On a problem page: a "Hints" box that opens the package's hints one at a
// time (the server records each opening and keeps them open on every later
// visit), and a "Walkthrough" section: a lock line saying what unlocks it,
// then the text, fetched again when the student's submission is accepted.
// On the instructor page: who opened which hint, and the walkthrough's date.
import { h, replace, safeHtml } from '../lib/dom.js';
import { get, post, put, ApiError } from '../lib/api.js';
import { currentUser, isInstructor } from '../lib/session.js';

const api = (slug) => `/api/problems/${encodeURIComponent(slug)}`;

// "Mar 1, 2025, 10:00 AM GMT+1": a date with its time zone (dateStyle
// cannot be combined with timeZoneName, hence the fields).
export function fmtDate(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit',
                                       minute: '2-digit', timeZoneName: 'short' });
}

// The problem page's boxes for problem p (GET /api/problems/{slug}).
// typeset: KaTeX over an element. Returns {el, refresh}: refresh() reads
// the problem again (after a verdict) and redraws both boxes if their
// contents changed.
export function helpPanel(p, { typeset }) {
  const el = h('div', { class: 'help-panel' });
  let state = p;

  const hintBody = (hint) => {
    const body = h('div', { class: 'statement hint-body' }, safeHtml(hint.html || ''));
    typeset(body);
    return h('li', { class: 'hint-item', 'data-hint': String(hint.n) }, body);
  };

  function hintsBox() {
    const hints = state.hints || { count: 0, opened: [] };
    if (!hints.count) return null;
    const opened = hints.opened || [];
    const list = h('ol', { class: 'hint-list', id: 'hint-list' }, opened.map(hintBody));
    const status = h('p', { class: 'small', role: 'status', id: 'hint-status' });
    const next = opened.length + 1;
    let action = null;
    if (!currentUser()) {
      action = h('p', { class: 'notice small' }, h('a', { href: '#/login' }, 'Sign in'), ' to open the hints.');
    } else if (next <= hints.count) {
      action = h('button', { type: 'button', id: 'show-hint', class: 'hint-button' },
        `Show hint ${next} of ${hints.count}`);
      action.addEventListener('click', async () => {
        action.disabled = true;
        status.textContent = '';
        try {
          const hint = await post(`${api(state.slug)}/hints/${next}`, {});
          opened.push(hint);
          draw();
          const shown = el.querySelector(`#hint-list li[data-hint="${hint.n}"]`);
          if (shown) shown.scrollIntoView({ block: 'nearest' });
          const again = el.querySelector('#show-hint');
          if (again) again.focus();
        } catch (e) {
          // another tab opened one meanwhile (409), or a new version: redraw from the server
          if (e instanceof ApiError && (e.status === 409 || e.status === 404)) { await refresh(); return; }
          action.disabled = false;
          status.textContent = e.message;
        }
      });
    }
    return h('section', { class: 'card help-box', id: 'hints', 'aria-labelledby': 'hints-h' },
      h('h2', { id: 'hints-h' }, 'Hints'),
      h('p', { class: 'small muted' }, isInstructor()
        ? `Students open these ${hints.count} hints one at a time; you see them all.`
        : `${hints.count} hint${hints.count === 1 ? '' : 's'}, shown one at a time. Your instructor sees which hints you opened.`),
      list, action, status);
  }

  function lockText(w) {
    const date = w.opens_at ? ` or for everyone on ${fmtDate(w.opens_at)}` : '';
    return `Unlocks after your first accepted submission for this problem${date}.`;
  }

  function walkBox() {
    const w = state.walkthrough || {};
    if (!w.available) return null;
    const body = h('div', { id: 'walkthrough-body' });
    const box = h('section', { class: 'card help-box', id: 'walkthrough', 'aria-labelledby': 'walk-h',
                               'data-unlocked': w.unlocked ? 'true' : 'false' },
      h('h2', { id: 'walk-h' }, 'Walkthrough'), body);
    if (!w.unlocked) {
      replace(body, h('p', { class: 'lock-line', id: 'walkthrough-lock' }, h('strong', null, 'Locked. '),
        currentUser() ? lockText(w) : ['Sign in to read it. ', lockText(w)]));
      return box;
    }
    replace(body, h('p', { class: 'muted small' }, 'Loading the walkthrough…'));
    get(`${api(state.slug)}/walkthrough`).then((r) => {
      const text = h('div', { class: 'statement walkthrough-text' }, safeHtml(r.html || ''));
      typeset(text);
      replace(body, isInstructor()
        ? h('p', { class: 'muted small' }, 'Students see this after their first accepted submission',
            w.opens_at ? ` or from ${fmtDate(w.opens_at)}` : '', '.')
        : null, text);
    }).catch((e) => {
      replace(body, h('p', { class: 'lock-line', id: 'walkthrough-lock' },
        e instanceof ApiError && e.code === 'locked' ? e.message : `The walkthrough could not be loaded: ${e.message}`));
    });
    return box;
  }

  function draw() {
    replace(el, hintsBox(), walkBox());
  }

  // What the two boxes are drawn from. A refresh that changes none of it
  // keeps the boxes as they are: the page refreshes at the verdict and
  // again when the benchmark ends, and redrawing then would send a student
  // reading the walkthrough back to "Loading the walkthrough…".
  const drawnFrom = (s) => JSON.stringify([s.hints, s.walkthrough]);

  async function refresh() {
    try {
      const next = await get(api(p.slug));
      const same = drawnFrom(next) === drawnFrom(state);
      state = next;
      if (!same) draw();
    } catch { /* keep what is shown */ }
  }

  draw();
  return { el, refresh };
}

// An ISO time as a datetime-local input's value (the browser's zone).
function localInput(iso) {
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// The instructor page's section: per problem, the walkthrough's date (set,
// change, remove) and the hint log (who opened which hint, when).
export function hintsAdmin(problems) {
  const options = (list) => list.map((p) => h('option', { value: p.slug }, `${p.title} (${p.slug})`));
  const select = h('select', { id: 'h-problem' }, options(problems));
  const summary = h('p', { id: 'h-summary' });
  const dateIn = h('input', { type: 'datetime-local', id: 'walk-date' });
  const dateStatus = h('p', { role: 'status', id: 'walk-date-status', class: 'small' });
  const setBtn = h('button', { type: 'submit', id: 'walk-date-set' }, 'Open it on this date');
  const clearBtn = h('button', { type: 'button', id: 'walk-date-clear' }, 'No date');
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
  const dateForm = h('form', { class: 'inline-form', id: 'walk-date-form' },
    h('label', { for: 'walk-date' }, `Walkthrough opens for every student on (${zone}) `), dateIn, ' ', setBtn, ' ', clearBtn,
    dateStatus);
  const logBox = h('div', { id: 'hint-log' });

  const current = h('p', { id: 'walk-date-current', class: 'small' });
  async function load() {
    const slug = select.value;
    if (!slug) return;
    replace(logBox, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const [p, log] = await Promise.all([get(api(slug)), get(`${api(slug)}/hint-log`)]);
      const w = p.walkthrough || {};
      summary.textContent = `${p.hints.count} hint${p.hints.count === 1 ? '' : 's'}; ` +
        (w.available ? 'a walkthrough.' : 'no walkthrough in the current version.');
      dateIn.value = w.opens_at ? localInput(w.opens_at) : '';
      current.textContent = w.opens_at
        ? `Opens for everyone on ${fmtDate(w.opens_at)} (set by ${w.opens_at_source === 'package' ? 'the package' : 'an instructor'}); before that, at a student's first accepted submission.`
        : 'No date: a student sees it after their first accepted submission.';
      showLog(log);
    } catch (e) {
      replace(logBox, h('p', { class: 'error', role: 'alert' }, e.message));
    }
  }

  function showLog(log) {
    if (!log.opens.length) { replace(logBox, h('p', { class: 'muted' }, 'No student has opened a hint.')); return; }
    const byUser = new Map();
    for (const o of log.opens) {
      if (!byUser.has(o.user)) byUser.set(o.user, []);
      byUser.get(o.user).push(o);
    }
    replace(logBox, h('div', { class: 'table-wrap' }, h('table', { class: 'hint-log responsive' },
      h('caption', { class: 'sr-only' }, 'Hints opened, per student'),
      h('thead', null, h('tr', null, ['Student', 'Hints opened', 'When'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, [...byUser].map(([user, opens]) => h('tr', { 'data-user': user },
        h('td', { 'data-label': 'Student' }, user),
        h('td', { 'data-label': 'Hints opened' }, `${opens.length} of ${log.count}`),
        h('td', { 'data-label': 'When' }, h('ul', { class: 'plain' }, opens.map((o) =>
          h('li', null, `hint ${o.n}: ${fmtDate(o.opened_at)}`))))))))));
  }

  async function setDate(value) {
    dateStatus.textContent = '';
    try {
      const r = await put(`${api(select.value)}/walkthrough`, { opens_at: value });
      dateStatus.textContent = r.opens_at ? `Saved: opens on ${fmtDate(r.opens_at)}.` : 'Saved: no date.';
      await load();
    } catch (e) {
      dateStatus.textContent = e.message;
    }
  }
  dateForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!dateIn.value) { dateStatus.textContent = 'Choose a date and time first.'; return; }
    setDate(new Date(dateIn.value).toISOString());
  });
  clearBtn.addEventListener('click', () => setDate(null));
  select.addEventListener('change', load);

  const el = h('div', { class: 'hints-admin' },
    h('div', { class: 'field' }, h('label', { for: 'h-problem' }, 'Problem '), select), summary, current, dateForm,
    h('h3', null, 'Hints opened'), logBox);
  // After an upload: the list of problems again, keeping the choice.
  const setProblems = (list) => {
    const chosen = select.value;
    replace(select, options(list));
    if (list.some((p) => p.slug === chosen)) select.value = chosen;
    load();
  };
  return { el, load, setProblems };
}
