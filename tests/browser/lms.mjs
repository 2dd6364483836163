// Grades for the LMS and class lists as registrars export them, in the
// browser: each grades export says its shape; the course-wide wide CSV
// downloads; a registrar's ';' class list shows its column mapping and
// derived usernames in the dry run; the import's one-time passwords come
// as a table, a CSV download and a printable sheet of one slip per
// student, with the warning that they are shown only this once; scores
// read with 2 decimals in the grades matrix and on the student's
// Assignments page. Runs after ./assignments.mjs (week-1, the student's
// accepted softmax-rows).
// Screenshots: grades-{1280,1920,390}, classlist-import-{1280,1920,390},
// classlist-slips-print, assignments-rounded.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const WIDTHS = [1280, 1920, 390];
const REGISTRAR = 'Student ID;Last name;First name;Email;Programme\n'
  + 'S300;Hopper;Grace;Grace.Hopper@uni.example;CS\n'
  + 'S301;Lovelace;Ada;ada@uni.example;CS\n'
  + 'S302;Byron;Ada;ada@other.example;Maths\n';

// Sets a submission's score in the server's SQLite database (WORK/data):
// a partly correct submission's fraction, without judging one.
function setScore(work, id, score) {
  execFileSync('/usr/bin/python3', ['-c', `
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
con.execute("UPDATE submissions SET score = ? WHERE id = ?", (float(sys.argv[3]), int(sys.argv[2])))
con.close()`, join(work, 'data', 'attnjudge.db'), String(id), String(score)]);
}

export async function lmsScenarios({ tp, sp, open, scenario, shot, assert, eq, apiGet, STUDENT, WORK }) {
  const section = async (page, selector, name) => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 1000 });
      await page.locator(selector).scrollIntoViewIfNeeded();
      await shot(page, `${name}-${width}`, { fullPage: false });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  };

  await scenario('lms: each grades export says its shape; the course-wide wide CSV downloads', tp, async () => {
    await open(tp, '/instructor/grades');
    await tp.waitForSelector('#grades-course-csv');
    eq(await tp.textContent('#grades-course-csv'), 'Course grades, one row per student (wide CSV)', 'course export label');
    eq(await tp.getAttribute('#grades-course-csv', 'href'), '/api/grades/course.csv', 'course export link');
    eq(await tp.textContent('#grades-csv'), 'Best score per student and problem (long CSV)', 'long export label');
    await tp.waitForSelector('#gm-csv:not([hidden])');
    eq(await tp.textContent('#gm-csv'), 'Assignment grades (wide CSV)', 'assignment export label');
    const [dl] = await Promise.all([tp.waitForEvent('download'), tp.click('#grades-course-csv')]);
    eq(dl.suggestedFilename(), 'course-grades.csv', 'downloaded file name');
    const lines = readFileSync(await dl.path(), 'utf8').split('\r\n');
    assert(lines[0].startsWith('username,student_id,display_name,') && lines[0].endsWith(',total'), `header: ${lines[0]}`);
    assert(lines.some((l) => l.startsWith(`${STUDENT.user},S100,Alice Liddell,`)), `no row for ${STUDENT.user}: ${lines.slice(0, 4).join(' | ')}`);
  });

  await scenario('lms: a registrar\'s class list: the dry run shows the mapping and derived usernames', tp, async () => {
    await open(tp, '/instructor/class-list');
    await tp.fill('#cl-csv', REGISTRAR);
    await tp.click('#cl-dry');
    await tp.waitForSelector('#cl-mapping');
    eq(await tp.textContent('#cl-mapping li[data-column="Student ID"]'), 'Student ID → student id', 'mapping of Student ID');
    eq(await tp.textContent('#cl-mapping li[data-column="Programme"]'), 'Programme → ignored', 'an unknown column is ignored');
    assert((await tp.textContent('#cl-mapping')).includes('Separator: semicolon.'), 'the separator is named');
    const users = await tp.locator('#cl-preview tbody tr').evaluateAll((rows) => rows.map((r) => r.children[1].textContent));
    eq(JSON.stringify(users), JSON.stringify(['grace.hopper (from Email)', 'ada (from Email)', 'ada2 (from Email)']), 'derived usernames');
    await section(tp, '#classlist-h', 'classlist-import');
    await tp.fill('#cl-csv', 'Student ID;Last name;First name;Email\nS9;Doe;Jo;x@\n');
    await tp.click('#cl-dry');
    await tp.waitForSelector('#cl-errors');
    eq(await tp.textContent('#cl-errors li'), "line 2: column 'Email': 'x@' is not an e-mail address", 'the error names line, column and value');
  });

  await scenario('lms: the one-time passwords: shown once, as a CSV download and a sheet of slips', tp, async () => {
    await open(tp, '/instructor/class-list');
    await tp.fill('#cl-csv', REGISTRAR);
    await tp.click('#cl-import');
    await tp.waitForSelector('#cl-handout');
    assert(/shown only this once/.test(await tp.textContent('#cl-once')), 'the only-once warning');
    const table = await tp.locator('#cl-passwords tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
    eq(table.length, 3, 'three passwords');
    const [dl] = await Promise.all([tp.waitForEvent('download'), tp.click('#cl-otp-csv')]);
    assert(/^one-time-passwords-\d{4}-\d\d-\d\d\.csv$/.test(dl.suggestedFilename()), `file name ${dl.suggestedFilename()}`);
    const csv = readFileSync(await dl.path(), 'utf8').split('\r\n');
    eq(csv[0], 'username,student_id,display_name,one_time_password', 'CSV header');
    for (const [user, name, pass] of table) {
      assert(csv.some((l) => l.startsWith(`${user},`) && l.includes(`,${name},`) && l.endsWith(`,${pass}`)), `no CSV row for ${user}: ${csv.join(' | ')}`);
    }
    await tp.evaluate(() => { window.printed = 0; window.print = () => { window.printed++; }; });
    await tp.click('#cl-otp-print');
    eq(await tp.evaluate(() => window.printed), 1, 'window.print called once');
    eq(await tp.locator('#otp-sheet .otp-slip').count(), 3, 'one slip per student');
    const slip = await tp.textContent('#otp-sheet .otp-slip[data-user="grace.hopper"]');
    assert(slip.includes('Grace Hopper (S300)') && slip.includes(table.find((r) => r[0] === 'grace.hopper')[2]), `slip: ${slip}`);
    await tp.emulateMedia({ media: 'print' });
    assert(await tp.locator('#otp-sheet').isVisible(), 'the sheet prints');
    assert(!(await tp.locator('#cl-passwords').isVisible()), 'the rest of the page does not');
    await shot(tp, 'classlist-slips-print');
    await tp.emulateMedia({ media: 'screen' });
    await tp.evaluate(() => window.dispatchEvent(new Event('afterprint')));
    assert(!(await tp.evaluate(() => document.body.classList.contains('printing-slips'))), 'the page is back after printing');
  });

  await scenario('lms: scores read with 2 decimals in the grades matrix and on the student\'s page', tp, async () => {
    const m = (await apiGet(tp, '/api/assignments/week-1/grades')).body;
    const k = m.problems.indexOf('softmax-rows');
    const cell = m.students.find((s) => s.username === STUDENT.user).cells[k];
    assert(cell.submission, 'the student has a counted softmax-rows submission');
    setScore(WORK, cell.submission, 71.4285714286);
    try {
      await open(tp, '/instructor/grades');
      const a = tp.locator(`#grades-matrix tr[data-user="${STUDENT.user}"] td.score-cell[data-problem="softmax-rows"] a`);
      await a.waitFor();
      eq(await a.textContent(), '71.43', 'the matrix cell');
      assert((await tp.textContent(`#grades-matrix tr[data-user="${STUDENT.user}"] td.total`)).startsWith('71.43'), 'the total');
      await section(tp, '#matrix-h', 'grades');
      await open(sp, '/assignments');
      await sp.waitForSelector('section.assignment[data-slug="week-1"] tr[data-problem="softmax-rows"] .my-status');
      eq(await sp.textContent('section.assignment[data-slug="week-1"] tr[data-problem="softmax-rows"] .my-status'), 'accepted, 71.43', 'the student\'s status');
      await shot(sp, 'assignments-rounded');
    } finally {
      setScore(WORK, cell.submission, cell.score);
    }
  });
}
