// The instructor's assignment cards (docs/api.md, "Assignments"):
// create/edit/delete assignments, the grades matrix (students × problems,
// coloured by score, each cell linking to the submission that made it) and
// the class-list import.
import { h, replace, fmtTime, fmtScore } from '../lib/dom.js';
import { passwordsHandout, mappingView } from './classlist-handout.js';
import { api, get, post, del } from '../lib/api.js';

const toLocal = (iso) => {
  if (!iso) return '';
  const d = new Date(iso), p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
};
const fromLocal = (v) => (v ? new Date(v).toISOString() : '');

// Create, edit and delete assignments: { el, load(problems) }.
export function assignmentsAdmin() {
  let editing = null;
  let problems = [];
  const f = {
    slug: h('input', { id: 'as-slug', required: true, placeholder: 'week-1' }),
    title: h('input', { id: 'as-title', required: true }),
    opens: h('input', { id: 'as-opens', type: 'datetime-local', required: true }),
    due: h('input', { id: 'as-due', type: 'datetime-local', required: true }),
    late: h('select', { id: 'as-late' }, h('option', { value: 'none' }, 'Late work does not count'), h('option', { value: 'penalty' }, 'Penalty per day, until a cut-off')),
    penalty: h('input', { id: 'as-penalty', type: 'number', min: '1', max: '100', value: '10' }),
    cutoff: h('input', { id: 'as-cutoff', type: 'datetime-local' }),
  };
  const picks = h('fieldset', { id: 'as-problems' }, h('legend', null, 'Problems (in order)'));
  const msg = h('p', { role: 'status', id: 'as-status' });
  const list = h('div', { id: 'assignment-list' });
  const save = h('button', { type: 'submit', class: 'primary', id: 'as-save' }, 'Create assignment');
  const lateBox = h('div', { class: 'field-row' }, h('label', { for: 'as-penalty' }, 'Penalty (% per started day) '), f.penalty,
    h('label', { for: 'as-cutoff' }, ' cut-off '), f.cutoff);
  const syncLate = () => { lateBox.hidden = f.late.value !== 'penalty'; };
  f.late.addEventListener('change', syncLate);
  const form = h('form', { class: 'assignment-form', id: 'assignment-form', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'as-slug' }, 'Slug'), f.slug),
    h('div', { class: 'field' }, h('label', { for: 'as-title' }, 'Title'), f.title),
    picks,
    h('div', { class: 'field-row' }, h('label', { for: 'as-opens' }, 'Opens '), f.opens, h('label', { for: 'as-due' }, ' due '), f.due),
    h('div', { class: 'field' }, h('label', { for: 'as-late' }, 'Late policy'), f.late), lateBox,
    h('div', { class: 'toolbar' }, save, h('button', { type: 'button', onclick: () => reset() }, 'Clear')), msg);
  const renderPicks = (chosen = []) => {
    replace(picks, h('legend', null, 'Problems'), problems.map((p) => h('label', { class: 'pick' },
      h('input', { type: 'checkbox', value: p.slug, checked: chosen.includes(p.slug) }), ` ${p.title} `)));
  };
  const reset = () => {
    editing = null;
    for (const k of ['slug', 'title', 'opens', 'due', 'cutoff']) f[k].value = '';
    f.late.value = 'none';
    save.textContent = 'Create assignment';
    renderPicks();
    syncLate();
  };
  const edit = (a) => {
    editing = a.slug;
    f.slug.value = a.slug; f.title.value = a.title;
    f.opens.value = toLocal(a.opens_at); f.due.value = toLocal(a.due_at);
    f.late.value = a.late_policy === 'none' ? 'none' : 'penalty';
    if (a.late_policy !== 'none') { f.penalty.value = String(Math.round(a.late_policy.penalty_per_day * 100)); f.cutoff.value = toLocal(a.late_policy.cutoff); }
    renderPicks(a.problems.map((p) => p.slug));
    save.textContent = `Save ${a.slug}`;
    syncLate();
    f.title.focus();
  };
  const load = async (ps) => {
    if (ps) problems = ps;
    if (!editing) renderPicks();
    try {
      const r = await get('/api/assignments');
      replace(list, r.assignments.length ? h('ul', { class: 'assignment-admin-list' }, r.assignments.map((a) => h('li', { 'data-slug': a.slug },
        h('strong', null, a.title), ` (${a.slug}): ${a.problems.length} problems, due ${fmtTime(a.due_at)} — ${a.phase} `,
        h('button', { type: 'button', class: 'linklike', onclick: () => edit(a) }, 'Edit'), ' ',
        h('button', { type: 'button', class: 'linklike danger', onclick: async () => {
          if (!window.confirm(`Delete the assignment ${a.slug}? Submissions stay; only the grouping and its grades go.`)) return;
          try { await del(`/api/assignments/${a.slug}`); load(); window.dispatchEvent(new CustomEvent('attnjudge:assignments-changed')); } catch (e) { msg.textContent = e.message; }
        } }, 'Delete'))))
        : h('p', { class: 'muted small' }, 'No assignments yet.'));
    } catch (e) { replace(list, h('p', { class: 'error' }, e.message)); }
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    msg.textContent = '';
    const body = {
      slug: f.slug.value.trim(), title: f.title.value.trim(),
      problems: [...picks.querySelectorAll('input:checked')].map((i) => i.value),
      opens_at: fromLocal(f.opens.value), due_at: fromLocal(f.due.value),
      late_policy: f.late.value === 'none' ? 'none' : { penalty_per_day: Number(f.penalty.value) / 100, cutoff: fromLocal(f.cutoff.value) },
    };
    try {
      const r = editing ? await api('PUT', `/api/assignments/${editing}`, body) : await post('/api/assignments', body);
      msg.textContent = `Saved ${r.slug}.`;
      reset();
      load();
      window.dispatchEvent(new CustomEvent('attnjudge:assignments-changed'));
    } catch (e) { msg.textContent = e.message; }
  });
  reset();
  return { el: h('div', null, form, h('h3', null, 'Assignments'), list), load };
}

// Background of a score cell: red (0) to green (100).
const cellColour = (score) => `hsl(${Math.round(1.2 * Math.max(0, Math.min(100, score)))}, 70%, 88%)`;

// The grades matrix: { el, load() }.
export function gradesMatrix() {
  const pick = h('select', { id: 'gm-assignment', 'aria-label': 'Assignment' });
  const box = h('div', { id: 'grades-matrix' });
  const link = h('a', { class: 'button', id: 'gm-csv', download: '' }, 'Assignment grades (wide CSV)');
  const show = async () => {
    const slug = pick.value;
    if (!slug) { replace(box, h('p', { class: 'muted small' }, 'No assignments yet.')); link.hidden = true; return; }
    link.hidden = false;
    link.href = `/api/assignments/${slug}/grades.csv`;
    link.setAttribute('download', `${slug}-grades.csv`);
    try {
      const m = await get(`/api/assignments/${slug}/grades`);
      replace(box, h('div', { class: 'table-wrap' }, h('table', { class: 'matrix' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Student'), h('th', { scope: 'col' }, 'ID'),
          m.problems.map((p) => h('th', { scope: 'col' }, p)), h('th', { scope: 'col' }, 'Total'))),
        h('tbody', null, m.students.map((s) => h('tr', { 'data-user': s.username },
          h('th', { scope: 'row' }, s.display_name ? `${s.display_name} (${s.username})` : s.username),
          h('td', null, s.student_id || ''),
          s.cells.map((c, k) => h('td', { class: 'score-cell', 'data-problem': m.problems[k], style: { background: cellColour(c.score) },
            title: c.counted ? `${c.accepted ? 'accepted' : 'best'}${c.late ? ', late' : ''}` : 'nothing counted' },
            c.submission ? h('a', { href: `#/submission/${c.submission}` }, fmtScore(c.score)) : '0', c.late ? '*' : '')),
          h('td', { class: 'total' }, fmtScore(s.total))))))),
        h('p', { class: 'small muted' }, '* late (after the penalty). Every student account is a row; 0 when nothing counts.'));
    } catch (e) { replace(box, h('p', { class: 'error' }, e.message)); }
  };
  const load = async () => {
    try {
      const r = await get('/api/assignments');
      const cur = pick.value;
      replace(pick, r.assignments.map((a) => h('option', { value: a.slug, selected: a.slug === cur }, a.title)));
      await show();
    } catch (e) { replace(box, h('p', { class: 'error' }, e.message)); }
  };
  pick.addEventListener('change', show);
  const el = h('div', null, h('div', { class: 'toolbar' }, h('label', { for: 'gm-assignment' }, 'Assignment '), pick, ' ', link), box);
  const onChange = () => { if (document.body.contains(el)) show(); else window.removeEventListener('attnjudge:rejudged', onChange); };
  window.addEventListener('attnjudge:rejudged', onChange);
  window.addEventListener('attnjudge:assignments-changed', () => { if (document.body.contains(el)) load(); });
  return { el, load };
}

// The class-list import: { el }.
export function classListImport() {
  const ta = h('textarea', { id: 'cl-csv', rows: 6, class: 'mono', spellcheck: 'false', placeholder: 'Student ID;Last name;First name;Email\nS001;Archer;Ann;ann.archer@uni.example' });
  const file = h('input', { type: 'file', id: 'cl-file', accept: '.csv,.tsv,.txt,text/csv,text/tab-separated-values' });
  file.addEventListener('change', async () => { if (file.files[0]) ta.value = await file.files[0].text(); file.value = ''; });
  const out = h('div', { id: 'cl-result', role: 'status' });
  const run = async (dry) => {
    replace(out);
    try {
      const r = await post('/api/users/import', { csv: ta.value, dry_run: dry });
      replace(out, h('p', { class: 'success' }, dry ? 'Dry run: nothing was stored. ' : 'Imported. ',
        `${r.created.length} account${r.created.length === 1 ? '' : 's'} ${dry ? 'would be ' : ''}created, ${r.updated.length} updated.`),
        dry ? mappingView(r) : null,
        !dry && r.created.length ? passwordsHandout(r) : null);
    } catch (e) {
      const errs = (e.body && e.body.errors) || [];
      replace(out, h('p', { class: 'error', role: 'alert' }, e.message));
      if (errs.length) out.append(h('ul', { class: 'error', id: 'cl-errors' }, errs.map((x) => h('li', null, `line ${x.line}: ${x.message}`))));
      if (e.body && e.body.mapping) out.append(mappingView(e.body));
    }
  };
  return h('div', null,
    h('p', { class: 'small' }, 'A class list as the registrar exports it: comma, semicolon or tab separated, with a header line. ',
      'Columns are recognised by name — username (or Login), student_id (Student ID, Matriculation number, ID), display_name (Name, Full name, or Last name and First name), Email; others are ignored. ',
      'Without a username, one is derived from the e-mail address (else the names). Run a dry run to see how each column is read. ',
      'Existing students get the ids and names; missing ones are created with one-time passwords. All lines or none.'),
    h('div', { class: 'field' }, h('label', { for: 'cl-csv' }, 'Class list (CSV)'), ta),
    h('div', { class: 'file-line small' }, h('label', { for: 'cl-file' }, 'or load a file: '), file),
    h('div', { class: 'toolbar' }, h('button', { type: 'button', id: 'cl-dry', onclick: () => run(true) }, 'Dry run'),
      h('button', { type: 'button', class: 'primary', id: 'cl-import', onclick: () => run(false) }, 'Import')), out);
}
