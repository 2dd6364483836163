// Instructors, in views with their own addresses (#/instructor/<view>,
// VIEWS below), the daily ones first: every submission with filters;
// grades; assignments; the class list; problems (states, upload a package
// with validation errors shown at the field they concern, hints);
// rejudges; integrity.
import { h, replace, fmtTime, safeHtml } from '../lib/dom.js';
import { api, get, post, ApiError, vocabulary } from '../lib/api.js';
import { isInstructor } from '../lib/session.js';
import { pagedList } from '../components/submissions-list.js';
import { typeset } from '../lib/typeset.js';
import { fitStatement } from '../lib/layout.js';
import { mathErrors } from '../lib/mathcheck.js';
import { hintsAdmin } from '../components/hints.js';
import { problemStates } from '../components/problem-states.js';
import { passwordReset } from '../components/password-reset.js';
import { rejudgeCard } from '../components/rejudge.js';
import { assignmentsAdmin, gradesMatrix, classListImport } from '../components/assignments-admin.js';
import { gradesExports } from '../components/grades-exports.js';
import { ltiGrades } from '../components/lti-grades.js';
import { integrityCard } from '../components/similarity.js';
import { ltiPlatforms } from '../components/lti-platforms.js';

// The preview is the students' view of the statement: the server renders
// the text with the problem page's renderer (POST /api/statement-preview:
// the same function as a problem's statement_html), and the page sanitizes,
// typesets and fits it as the problem page does. Returns once el shows
// text; a later call wins over an earlier one still under way.
let previewSeq = 0;
export async function previewStatement(el, text) {
  const seq = ++previewSeq;
  let html;
  try {
    html = (await post('/api/statement-preview', { markdown: text })).html;
  } catch (e) {
    if (seq === previewSeq) replace(el, h('p', { class: 'error' }, `No preview: ${e.message}`));
    return;
  }
  if (seq !== previewSeq) return;
  const col = h('div', { class: 'statement' }, safeHtml(html));
  typeset(col);
  replace(el, col);
  fitStatement(col);
}

// The statement field's extras: line numbers beside the text, a live
// preview, and the math KaTeX cannot render, by line (web/src/lib/mathcheck.js,
// the same check as `attnjudge problem check`).
function statementTools(ta) {
  const gutter = h('pre', { class: 'line-gutter mono', 'aria-hidden': 'true' });
  const preview = h('div', { class: 'statement-preview', id: 'statement-preview', 'aria-live': 'off' });
  const mathList = h('ul', { class: 'math-errors', id: 'statement-math-errors', 'aria-live': 'polite' });
  let timer = null;
  const update = () => {
    const n = ta.value.split('\n').length;
    gutter.textContent = Array.from({ length: n }, (_, i) => String(i + 1)).join('\n');
    gutter.scrollTop = ta.scrollTop;
    clearTimeout(timer);
    timer = setTimeout(() => {
      previewStatement(preview, ta.value);
      const errs = mathErrors(ta.value);
      replace(mathList, errs.map((e) => h('li', { class: 'error', 'data-line': String(e.line) },
        h('a', { href: '#', onclick: (ev) => { ev.preventDefault(); goToLine(ta, e.line); } }, `line ${e.line}`),
        `: KaTeX cannot render $${e.tex}$: ${e.message}`)));
    }, 250);
  };
  ta.addEventListener('input', update);
  ta.addEventListener('scroll', () => { gutter.scrollTop = ta.scrollTop; });
  update();
  return {
    editor: h('div', { class: 'numbered' }, gutter, ta),
    extras: h('details', { class: 'statement-preview-box', open: true },
      h('summary', null, 'Preview of the statement'), mathList, preview),
    update,
  };
}

function goToLine(ta, line) {
  const lines = ta.value.split('\n');
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  ta.focus();
  ta.setSelectionRange(start, start + (lines[line - 1] || '').length);
}

const FILES = [
  { key: 'problem_json', file: 'problem.json', label: 'problem.json', rows: 14 },
  { key: 'statement_md', file: 'statement.md', label: 'statement.md (Markdown, $math$)', rows: 8 },
  { key: 'starter_c', file: 'starter.c', label: 'starter.c (compiles, fails the tests)', rows: 8 },
  { key: 'reference_c', file: 'reference.c', label: 'reference.c (the trusted answer)', rows: 8 },
];

// Which field a server validation message is about: messages name the
// file ("reference.c: compile_error: ...", "statement.md: ...") or else a
// path inside problem.json ("difficulty: ...", "tests[2].dims: ...").
export function fieldOfMessage(msg) {
  const m = msg.replace(/^judging /, '');
  if (/^statement(\.md|_md)\b/.test(m)) return 'statement_md';
  if (/^starter(\.c|_c)\b/.test(m)) return 'starter_c';
  if (/^reference(\.c|_c)\b/.test(m)) return 'reference_c';
  return 'problem_json';
}

function uploadSection(ctx, onUploaded) {
  const inputs = {}, errors = {};
  let stmt = null;
  const fields = FILES.map((f) => {
    const ta = h('textarea', { id: `pkg-${f.key}`, name: f.key, rows: f.rows, spellcheck: 'false',
                               class: 'mono', 'aria-describedby': `err-${f.key}` });
    const picker = h('input', { type: 'file', id: `file-${f.key}`, accept: f.file.endsWith('.c') ? '.c,text/x-c' : `.${f.file.split('.').pop()}` });
    picker.addEventListener('change', async () => {
      if (picker.files[0]) ta.value = await picker.files[0].text();
      picker.value = '';          // choosing the same file again reloads it
      setError(f.key, '');
      if (f.key === 'statement_md') stmt.update();
    });
    const err = h('p', { class: 'field-error', id: `err-${f.key}`, 'aria-live': 'polite' });
    inputs[f.key] = ta;
    errors[f.key] = err;
    if (f.key === 'statement_md') stmt = statementTools(ta);
    return h('div', { class: 'field' },
      h('label', { for: ta.id }, f.label), f.key === 'statement_md' ? stmt.editor : ta,
      h('div', { class: 'file-line small' }, h('label', { for: picker.id }, `or load ${f.file}: `), picker),
      err, f.key === 'statement_md' ? stmt.extras : null);
  });
  const setError = (key, msg) => {
    errors[key].textContent = msg;
    if (msg) inputs[key].setAttribute('aria-invalid', 'true'); else inputs[key].removeAttribute('aria-invalid');
  };
  // Optional: hints/1.md ... and walkthrough.md (docs/problem-format.md).
  const hintAreas = [];
  const hintsList = h('div', { id: 'pkg-hints' });
  const addHint = (text = '') => {
    if (hintAreas.length >= 9) return null;
    const n = hintAreas.length + 1;
    const ta = h('textarea', { id: `pkg-hint-${n}`, rows: 3, spellcheck: 'false', class: 'mono' });
    ta.value = text;
    hintAreas.push(ta);
    hintsList.append(h('div', { class: 'field' }, h('label', { for: ta.id }, `hints/${n}.md`), ta));
    return ta;
  };
  const addHintBtn = h('button', { type: 'button', id: 'add-hint', onclick: () => { const ta = addHint(); if (ta) ta.focus(); } },
    'Add a hint');
  const walkTa = h('textarea', { id: 'pkg-walkthrough_md', rows: 6, spellcheck: 'false', class: 'mono' });
  const helpErr = h('p', { class: 'field-error', id: 'err-help', 'aria-live': 'polite' });
  const helpFields = h('fieldset', null, h('legend', null, 'Hints and walkthrough (optional)'),
    h('p', { class: 'small muted' }, 'Hints are shown to students one at a time; the walkthrough after their first accepted submission.'),
    hintsList, h('div', { class: 'toolbar' }, addHintBtn),
    h('div', { class: 'field' }, h('label', { for: walkTa.id }, 'walkthrough.md (Markdown, may contain code)'), walkTa), helpErr);
  const all = h('input', { type: 'file', id: 'pkg-files', multiple: true, accept: '.json,.md,.c' });
  const allNote = h('span', { class: 'small muted', role: 'status' });
  all.addEventListener('change', async () => {
    allNote.textContent = '';
    const names = [];
    for (const file of all.files) {
      const hn = /^([1-9])\.md$/.exec(file.name);
      if (hn || file.name === 'walkthrough.md') {
        if (hn) {
          while (hintAreas.length < Number(hn[1])) addHint();
          hintAreas[Number(hn[1]) - 1].value = await file.text();
        } else walkTa.value = await file.text();
        names.push(hn ? `hints/${file.name}` : file.name);
        continue;
      }
      const f = FILES.find((x) => x.file === file.name);
      if (!f) continue;
      inputs[f.key].value = await file.text();
      setError(f.key, '');
      if (f.key === 'statement_md') stmt.update();
      names.push(file.name);
    }
    all.value = '';
    allNote.textContent = names.length ? `Loaded ${names.join(', ')}.` : 'None of the files is named problem.json, statement.md, starter.c or reference.c.';
  });
  const modeNew = h('input', { type: 'radio', name: 'mode', id: 'mode-new', value: 'new', checked: true });
  const modeReplace = h('input', { type: 'radio', name: 'mode', id: 'mode-replace', value: 'replace' });
  const publish = h('input', { type: 'checkbox', id: 'pkg-publish' });
  const status = h('div', { class: 'upload-status', role: 'status', id: 'upload-status' });
  const btn = h('button', { type: 'submit', class: 'primary', id: 'upload-btn' }, 'Validate and upload');
  const form = h('form', { class: 'upload-form', id: 'upload-form', novalidate: true },
    h('fieldset', null, h('legend', null, 'Package files'),
      h('div', { class: 'field' }, h('label', { for: 'pkg-files' }, 'Choose the package files at once: '), all, ' ', allNote),
      fields),
    helpFields,
    h('fieldset', { class: 'inline' }, h('legend', null, 'Mode'),
      h('label', null, modeNew, ' Add a new problem'), ' ',
      h('label', null, modeReplace, ' Replace an existing problem (new version)')),
    h('div', { class: 'field' }, h('label', null, publish, ' Publish at once'),
      h('p', { class: 'small muted' }, 'Unticked, a new problem is stored as a draft that only instructors see, and a replaced one keeps its state (see “Problem states”).')),
    h('div', { class: 'toolbar' }, btn), status);

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    for (const f of FILES) setError(f.key, '');
    helpErr.textContent = '';
    replace(status);
    const body = {};
    const hints = hintAreas.map((t) => t.value);
    while (hints.length && !hints[hints.length - 1].trim()) hints.pop();
    if (hints.length) body.hints = hints;
    if (walkTa.value.trim()) body.walkthrough_md = walkTa.value;
    if (publish.checked) body.state = 'published';
    let bad = false;
    for (const f of FILES) {
      body[f.key] = inputs[f.key].value;
      if (!body[f.key].trim()) { setError(f.key, `${f.file} is empty.`); bad = true; }
    }
    let slug = null;
    if (body.problem_json.trim()) {
      try {
        const meta = JSON.parse(body.problem_json);
        if (!meta || typeof meta !== 'object' || Array.isArray(meta)) throw new Error('the top level must be an object');
        slug = typeof meta.slug === 'string' ? meta.slug : null;
        if (!slug || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) {
          setError('problem_json', 'slug: missing or not a valid slug ([a-z0-9][a-z0-9-]*).');
          bad = true;
        }
      } catch (e) {
        setError('problem_json', `Not valid JSON: ${e.message}`);
        bad = true;
      }
    }
    if (bad) {
      const first = FILES.find((f) => errors[f.key].textContent);
      if (first) inputs[first.key].focus();
      return;
    }
    btn.disabled = true;
    replace(status, h('p', { class: 'muted' }, 'Validating: compiling and running the reference on every test, compiling the starter…'));
    try {
      const replacing = modeReplace.checked;
      const r = replacing ? await api('PUT', `/api/problems/${slug}`, body) : await post('/api/problems', body);
      replace(status, h('p', { class: 'success', 'data-slug': r.slug },
        `Stored ${r.slug} version ${r.version}${publish.checked ? ', published' : r.version === 1 ? ' as a draft' : ''}. `,
        h('a', { href: `#/problem/${r.slug}` }, 'Open it')),
        // the server could not run KaTeX: say so, as `problem check` does
        r.math_checked === false ? h('p', { class: 'notice', id: 'upload-math-note' },
          `${r.math_note}. Run attnjudge problem check on the package to check its math.`) : null);
      onUploaded();
    } catch (e) {
      if (e instanceof ApiError && /^(hints[/[]|walkthrough(\.md|_md)|field 'hints')/.test(e.message)) {
        helpErr.textContent = e.message;
        replace(status, h('p', { class: 'error', role: 'alert' }, 'The package was not stored: see the error under “Hints and walkthrough”.'));
      } else if (e instanceof ApiError && (e.code === 'invalid_problem' || e.code === 'slug_mismatch')) {
        // every error a package that does not load has (its "errors",
        // docs/api.md), each under the file it is about; else the message
        const listed = e.body && Array.isArray(e.body.errors) ? e.body.errors : [];
        const msgs = listed.length ? listed.map((x) => (x.field ? `${x.field}: ${x.message}` : x.message)) : [e.message];
        const byKey = {};
        for (const m of msgs) (byKey[fieldOfMessage(m)] ||= []).push(m);
        for (const [k, list] of Object.entries(byKey)) setError(k, list.join('\n'));
        const key = fieldOfMessage(msgs[0]);
        inputs[key].focus();
        replace(status, h('p', { class: 'error', role: 'alert' }, `The package was not stored: see the error at ${FILES.find((f) => f.key === key).file}.`));
      } else if (e instanceof ApiError && e.code === 'problem_exists') {
        replace(status, h('p', { class: 'error', role: 'alert' }, `${e.message}. Choose “Replace an existing problem” to add a new version.`));
      } else {
        replace(status, h('p', { class: 'error', role: 'alert' }, e.message));
      }
    } finally {
      btn.disabled = false;
    }
  });
  return form;
}

// Minimal RFC 4180 reader for the grades preview.
export function parseCsv(text) {
  const rows = [];
  let row = [], field = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') q = false; else field += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field); rows.push(row); row = []; field = '';
    } else field += c;
  }
  if (field || row.length) { row.push(field); rows.push(row); }
  return rows;
}

async function gradesPreview(box) {
  const r = await fetch('/api/grades.csv', { credentials: 'same-origin' });
  if (!r.ok) throw new Error(`grades: HTTP ${r.status}`);
  const rows = parseCsv(await r.text());
  if (rows.length <= 1) { replace(box, h('p', { class: 'muted' }, 'No grades yet.')); return; }
  const [head, ...data] = rows;
  replace(box, h('div', { class: 'table-wrap' }, h('table', { class: 'grades responsive' },
    h('thead', null, h('tr', null, head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', null, data.slice(0, 200).map((r2) => h('tr', null, r2.map((c, i) => h('td', { 'data-label': head[i] || '' },
      head[i] === 'time_of_best' ? fmtTime(c) : c))))))),
  data.length > 200 ? h('p', { class: 'muted' }, `First 200 of ${data.length} rows; the CSV has them all.`) : null);
}

// The instructor's views, the daily ones first; #/instructor is the first.
// Each view mounts its own cards (a function below) and loads only their
// data, so a view is short and quick to open.
export const VIEWS = [
  { id: 'submissions', title: 'Submissions', mount: submissionsView },
  { id: 'grades', title: 'Grades', mount: gradesView },
  { id: 'assignments', title: 'Assignments', mount: assignmentsView },
  { id: 'class-list', title: 'Class list', mount: classListView },
  { id: 'problems', title: 'Problems', mount: problemsView },
  { id: 'rejudges', title: 'Rejudges', mount: rejudgesView },
  { id: 'integrity', title: 'Integrity', mount: integrityView },
  { id: 'lms', title: 'LMS', mount: lmsView },
];

function card(id, title, ...body) {
  return h('section', { class: 'card', 'aria-labelledby': id },
    h('h2', { id, tabindex: '-1' }, title), ...body);
}

// A view gets env = {problems, opts, vocab, ctx} and returns
// {sections, start, setProblems}: start runs once the sections are on the
// page; setProblems follows a change of the problem list.

function submissionsView(env) {
  const { opts, vocab } = env;
  const fProblem = h('select', { id: 'f-problem' }, opts(true));
  const fUser = h('input', { id: 'f-user', type: 'text', autocomplete: 'off', placeholder: 'any user' });
  const fVerdict = h('select', { id: 'f-verdict' }, h('option', { value: '' }, 'any verdict'), vocab.verdicts.map((v) => h('option', { value: v }, v)));
  const fStatus = h('select', { id: 'f-status' }, ['', 'queued', 'judging', 'done', 'cancelled'].map((v) => h('option', { value: v }, v || 'any status')));
  const subsBox = h('div', { id: 'all-submissions' });
  const filterErr = h('p', { class: 'error', role: 'alert' });
  const loadSubs = async () => {
    filterErr.textContent = '';
    const q = new URLSearchParams({ limit: '50' });
    if (fProblem.value) q.set('problem', fProblem.value);
    if (fUser.value.trim()) q.set('user', fUser.value.trim());
    if (fVerdict.value) q.set('verdict', fVerdict.value);
    if (fStatus.value) q.set('status', fStatus.value);
    const pl = pagedList((before) => {
      const qq = new URLSearchParams(q);
      if (before) qq.set('before', before);
      return get(`/api/submissions?${qq}`);
    }, true);
    try { await pl.page(); replace(subsBox, pl.el); } catch (e) { filterErr.textContent = e.message; }
  };
  const filters = h('form', { class: 'filters', id: 'filters' },
    h('div', { class: 'field' }, h('label', { for: 'f-problem' }, 'Problem'), fProblem),
    h('div', { class: 'field' }, h('label', { for: 'f-user' }, 'User'), fUser),
    h('div', { class: 'field' }, h('label', { for: 'f-verdict' }, 'Verdict'), fVerdict),
    h('div', { class: 'field' }, h('label', { for: 'f-status' }, 'Status'), fStatus),
    h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Apply filters')));
  filters.addEventListener('submit', (ev) => { ev.preventDefault(); loadSubs(); });
  return {
    sections: [card('subs-h', 'All submissions', filters, filterErr, subsBox)],
    start: loadSubs,
    setProblems: () => {
      const cur = fProblem.value;
      replace(fProblem, opts(true));
      fProblem.value = cur;
    },
  };
}

function gradesView() {
  const matrix = gradesMatrix();
  const lms = ltiGrades();
  const grades = h('div', { id: 'grades' });
  const loadGrades = () => gradesPreview(grades).catch((e) => replace(grades, h('p', { class: 'error' }, e.message)));
  return {
    sections: [
      card('matrix-h', 'Grades matrix', matrix.el),
      h('section', { class: 'card', 'aria-labelledby': 'grades-h' },
        h('h2', { id: 'grades-h', tabindex: '-1' }, 'Grades'),
        gradesExports(),
        grades),
      card('lti-grades-h', 'LMS (LTI): grades sent and roster', lms.el),
    ],
    start: () => {
      matrix.load();
      loadGrades();
      lms.load();
      // A finished rejudge changes grades: show the new ones.
      const onRejudged = () => {
        if (document.body.contains(grades)) loadGrades();
        else window.removeEventListener('attnjudge:rejudged', onRejudged);
      };
      window.addEventListener('attnjudge:rejudged', onRejudged);
    },
  };
}

function assignmentsView(env) {
  const assignments = assignmentsAdmin();
  return {
    sections: [card('assignments-h', 'Assignments', assignments.el)],
    start: () => assignments.load(env.problems),
    setProblems: (problems) => assignments.load(problems),
  };
}

function classListView() {
  return {
    sections: [card('classlist-h', 'Class list', classListImport()), card('reset-h', 'Reset a password', passwordReset())],
  };
}

function problemsView(env) {
  const states = problemStates();
  const hintsBox = hintsAdmin(env.problems);
  const uploaded = () => { env.refresh(); states.load(); };
  return {
    sections: [
      card('states-h', 'Problem states', states.el),
      card('upload-h', 'Add or replace a problem',
        h('p', { class: 'small' }, 'A package is four files (see docs/problem-format.md). It is validated like ',
          h('code', null, 'attnjudge problem check'), ' before it is stored: the reference must pass every test, the starter must compile, ',
          'and KaTeX must render the math of the statement, the hints and the walkthrough.'),
        uploadSection(env.ctx, uploaded)),
      card('hints-admin-h', 'Hints and walkthroughs',
        h('p', { class: 'small' }, 'Who opened which hint, and when the walkthrough opens to every student ',
          '(before that date, each student sees it after their first accepted submission).'), hintsBox.el),
    ],
    start: () => {
      states.load();
      hintsBox.load();
      // The states card reloads itself after a change; the other lists follow.
      const onProblemsChanged = () => {
        if (document.body.contains(states.el)) env.refresh();
        else window.removeEventListener('attnjudge:problems-changed', onProblemsChanged);
      };
      window.addEventListener('attnjudge:problems-changed', onProblemsChanged);
    },
    setProblems: (problems) => hintsBox.setProblems(problems),
  };
}

function rejudgesView(env) {
  const rejudge = rejudgeCard(env.problems, null);
  return {
    sections: [card('rejudge-h', 'Rejudge', rejudge.el)],
    setProblems: (problems) => rejudge.setProblems(problems),
  };
}

function integrityView(env) {
  const integrity = integrityCard(env.problems);
  return {
    sections: [card('integrity-h', 'Integrity', integrity.el)],
    setProblems: (problems) => integrity.setProblems(problems),
  };
}

function lmsView() {
  const platforms = ltiPlatforms();
  return {
    sections: [card('lti-h', 'LMS (LTI 1.3)', platforms.el)],
    start: platforms.load,
  };
}

// The bar of views: links, so that each view has an address to keep.
function viewsNav(current) {
  return h('nav', { class: 'view-tabs', id: 'instructor-views', 'aria-label': 'Instructor views' },
    h('ul', null, VIEWS.map((v) => h('li', null,
      h('a', { href: `#/instructor/${v.id}`, 'data-view': v.id, 'aria-current': v === current ? 'page' : null }, v.title)))));
}

export async function instructorPage(main, [viewId], ctx) {
  ctx.setTitle('Instructor');
  if (!isInstructor()) {
    replace(main, h('h1', null, 'Instructor'), h('p', null, 'This page is for instructors. ',
      h('a', { href: '#/login' }, 'Sign in'), ' with an instructor account.'));
    return;
  }
  const view = viewId ? VIEWS.find((v) => v.id === viewId) : VIEWS[0];
  if (!view) {
    replace(main, h('h1', null, 'Instructor'), viewsNav(null),
      h('p', { class: 'error' }, `There is no view “${viewId}”: choose one above.`));
    return;
  }
  ctx.setTitle(`${view.title} · Instructor`);
  const [list, vocab] = await Promise.all([get('/api/problems'), vocabulary()]);
  if (!ctx.alive()) return;
  const problems = list.problems || [];
  const env = {
    ctx, vocab, problems,
    opts: (withAll) => [withAll ? h('option', { value: '' }, 'all problems') : null,
      ...problems.map((p) => h('option', { value: p.slug }, `${p.title} (${p.slug}, v${p.version})`))],
    // the lists show problem titles from load time; refresh them
    refresh: () => get('/api/problems').then((l) => {
      problems.splice(0, problems.length, ...(l.problems || []));
      if (mounted.setProblems) mounted.setProblems(problems);
    }).catch(() => {}),
  };
  const mounted = view.mount(env);
  replace(main, h('h1', null, 'Instructor'), viewsNav(view),
    h('div', { class: 'instructor-view', 'data-view': view.id }, mounted.sections));
  if (mounted.start) mounted.start();
}
