// The instructor page's "Problem states" card (docs/api.md, "Problem
// states"): each problem's state and schedule, changed with PATCH
// /api/problems/{slug}, and deletion of a problem nobody submitted to.
// A change dispatches `attnjudge:problems-changed` so that the page's other
// problem lists can reload.
import { api, del, get } from '../lib/api.js';
import { h, replace } from '../lib/dom.js';

const STATES = [
  ['draft', 'Draft: instructors only'],
  ['published', 'Published'],
  ['archived', 'Archived: read-only'],
];

// ISO 8601 (UTC) to the value of an <input type="datetime-local"> in the
// browser's time zone, and back.
function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
function fromLocalInput(value) {
  return value ? new Date(value).toISOString() : null;
}

// What a student sees of p right now, in words.
export function stateSummary(p, now = Date.now()) {
  if (p.state === 'draft') return 'Draft — students do not see it';
  if (p.state === 'archived') return 'Archived — readable, takes no submissions';
  if (p.publish_at && Date.parse(p.publish_at) > now)
    return `Scheduled — students see it from ${new Date(p.publish_at).toLocaleString()}`;
  return 'Published — students see it';
}

function row(p, reload) {
  const state = h('select', { id: `state-${p.slug}`, 'aria-label': `State of ${p.slug}` },
    STATES.map(([v, label]) => h('option', { value: v, selected: v === p.state }, label)));
  const at = h('input', { type: 'datetime-local', id: `publish-at-${p.slug}`, value: toLocalInput(p.publish_at),
                          'aria-label': `Publish ${p.slug} from (optional)` });
  const msg = h('span', { class: 'small', role: 'status' });
  const save = h('button', { type: 'button', class: 'save-state' }, 'Save');
  const remove = h('button', { type: 'button', class: 'danger delete-problem' }, 'Delete');
  const sync = () => { at.disabled = state.value !== 'published'; };
  state.addEventListener('change', sync);
  sync();
  save.addEventListener('click', async () => {
    save.disabled = true;
    msg.textContent = '';
    try {
      const body = { state: state.value };
      if (state.value === 'published') body.publish_at = fromLocalInput(at.value);
      await api('PATCH', `/api/problems/${p.slug}`, body);
      window.dispatchEvent(new CustomEvent('attnjudge:problems-changed'));
      reload(`${p.slug}: saved.`);
    } catch (e) {
      msg.textContent = e.message;
      msg.className = 'small error';
      save.disabled = false;
    }
  });
  remove.addEventListener('click', async () => {
    if (!window.confirm(`Delete ${p.slug} with all its versions? This cannot be undone. (A problem with submissions can only be archived.)`)) return;
    remove.disabled = true;
    msg.textContent = '';
    try {
      await del(`/api/problems/${p.slug}`);
      window.dispatchEvent(new CustomEvent('attnjudge:problems-changed'));
      reload(`${p.slug}: deleted.`);
    } catch (e) {
      msg.textContent = e.code === 'has_submissions' ? `${e.message}.` : e.message;
      msg.className = 'small error';
      remove.disabled = false;
    }
  });
  return h('tr', { 'data-slug': p.slug, 'data-state': p.state },
    h('td', { 'data-label': 'Problem' }, h('a', { href: `#/problem/${p.slug}` }, p.title), h('br'), h('code', { class: 'small' }, p.slug)),
    h('td', { 'data-label': 'Now', class: 'state-summary' }, stateSummary(p)),
    h('td', { 'data-label': 'State' }, state),
    h('td', { 'data-label': 'Publish from' }, at),
    h('td', { 'data-label': '' }, save, ' ', remove, ' ', msg));
}

// The card's body: { el, load() }.
export function problemStates() {
  const box = h('div', { id: 'problem-states' });
  const note = h('p', { class: 'small', role: 'status', id: 'problem-states-status' });
  const load = async (message) => {
    try {
      const list = await get('/api/problems');
      const rows = (list.problems || []).map((p) => row(p, load));
      replace(box, h('table', { class: 'states-table' },
        h('thead', null, h('tr', null, ['Problem', 'Now', 'State', 'Publish from (your time)', ''].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', null, rows)));
      note.textContent = typeof message === 'string' ? message : '';
    } catch (e) {
      replace(box, h('p', { class: 'error' }, e.message));
    }
  };
  const el = h('div', null,
    h('p', { class: 'small' }, 'New uploads are drafts: only instructors see and can judge them. Publish a problem now or from a date; archive it to keep it readable without new submissions. Only a problem without submissions can be deleted.'),
    note, box);
  return { el, load };
}
