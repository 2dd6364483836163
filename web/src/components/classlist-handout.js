// What a class-list import shows besides its counts (docs/operations.md,
// "The class list"): how the file was read (separator, the field each
// column maps to, every student with the username it gets), and the
// one-time passwords of the new accounts — a table, a CSV download and a
// printable sheet of one slip per student. The server returns the
// passwords only in this response, so all three are made here, in the
// browser, from it.
import { h } from '../lib/dom.js';

const SEPARATORS = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };
const FIELD_TEXT = {
  username: 'username', student_id: 'student id', display_name: 'display name',
  first_name: 'first name (display name: First Last)', last_name: 'last name (display name: First Last)',
  email: 'e-mail (username: its local part)',
};

// The dry run's reading of the file: { separator, mapping, students }.
export function mappingView(r) {
  const map = r.mapping || [];
  const students = r.students || [];
  return h('div', { id: 'cl-mapping' },
    h('p', { class: 'small' }, r.separator ? `Separator: ${SEPARATORS[r.separator] || JSON.stringify(r.separator)}. ` : '', 'Columns:'),
    h('ul', { class: 'small cl-columns' }, map.map((m) => h('li', { 'data-column': m.column },
      h('code', null, m.column || '(empty)'), ' → ', m.field ? FIELD_TEXT[m.field] || m.field : h('span', { class: 'muted' }, 'ignored')))),
    students.length ? h('div', { class: 'table-wrap' }, h('table', { id: 'cl-preview', class: 'small' },
      h('caption', null, `How each line is read (${students.length} student${students.length === 1 ? '' : 's'}${students.length > 50 ? ', the first 50 shown' : ''}).`),
      h('thead', null, h('tr', null, ['Line', 'Username', 'Student id', 'Display name', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', null, students.slice(0, 50).map((s) => h('tr', { 'data-user': s.username },
        h('td', null, String(s.line)),
        h('td', null, h('code', null, s.username), s.username_derived ? h('span', { class: 'muted' }, ` (from ${s.username_from})`) : ''),
        h('td', null, s.student_id || ''), h('td', null, s.display_name || ''),
        h('td', null, s.exists ? 'updated' : 'new')))))) : null);
}

// A CSV field with RFC 4180 quoting, and the formula guard of the
// server's exports (a leading apostrophe before =, +, -, @, tab, CR).
function csvField(v) {
  let s = String(v ?? '');
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function passwordsCsv(rows) {
  const lines = [['username', 'student_id', 'display_name', 'one_time_password'],
    ...rows.map((r) => [r.username, r.student_id, r.display_name, r.temporary_password])];
  return lines.map((l) => l.map(csvField).join(',')).join('\r\n') + '\r\n';
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// One slip per student, for cutting apart: printed alone (classlist.css
// hides the rest of the page while body has the class printing-slips).
function slipsSheet(rows) {
  const where = `${window.location.origin}/`;
  return h('div', { id: 'otp-sheet', class: 'otp-sheet' }, rows.map((r) => h('section', { class: 'otp-slip', 'data-user': r.username },
    h('p', { class: 'otp-name' }, r.display_name || r.username, r.student_id ? ` (${r.student_id})` : ''),
    h('p', null, 'Sign in at ', h('strong', null, where)),
    h('p', null, 'Username: ', h('code', null, r.username)),
    h('p', null, 'One-time password: ', h('code', null, r.temporary_password)),
    h('p', { class: 'small' }, 'You will choose your own password at the first sign-in.'))));
}

// The passwords of import response r: table, CSV download, printable sheet.
export function passwordsHandout(r) {
  const info = new Map((r.students || []).map((s) => [s.username, s]));
  const rows = r.created.map((c) => ({ ...(info.get(c.username) || {}), ...c }));
  const stamp = new Date().toISOString().slice(0, 10);
  const sheet = slipsSheet(rows);
  const print = () => {
    document.body.classList.add('printing-slips');
    const done = () => { document.body.classList.remove('printing-slips'); window.removeEventListener('afterprint', done); };
    window.addEventListener('afterprint', done);
    window.print();
  };
  return h('div', { id: 'cl-handout' },
    h('p', { class: 'notice', id: 'cl-once' }, h('strong', null, 'These one-time passwords are shown only this once.'),
      ' Download or print them now: leaving this page loses them (an instructor can then only reset a password).'),
    h('div', { class: 'toolbar' },
      h('button', { type: 'button', id: 'cl-otp-csv', onclick: () => download(`one-time-passwords-${stamp}.csv`, passwordsCsv(rows)) }, 'Download the passwords (CSV)'),
      h('button', { type: 'button', id: 'cl-otp-print', onclick: print }, 'Print one slip per student')),
    h('div', { class: 'table-wrap' }, h('table', { id: 'cl-passwords' },
      h('caption', null, 'One-time passwords: hand them out; each must be changed at the first sign-in.'),
      h('thead', null, h('tr', null, h('th', null, 'Username'), h('th', null, 'Name'), h('th', null, 'One-time password'))),
      h('tbody', null, rows.map((c) => h('tr', null, h('td', null, c.username), h('td', null, c.display_name || ''), h('td', null, h('code', null, c.temporary_password))))))),
    sheet);
}
