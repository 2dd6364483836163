// Assignments in the browser (issue 11, items 2 and 3): the instructor
// imports a class list, creates an assignment with the form, and reads the
// grades matrix (students × problems, a cell linking to the submission);
// the student sees the assignment with its countdown and their status.
// Screenshots: assignments-instructor, assignments-matrix,
// assignments-student.
export async function assignmentsScenarios({ tp, sp, open, scenario, shot, assert, eq, STUDENT }) {
  await scenario('assignments: the instructor imports a class list and creates an assignment', tp, async () => {
    await open(tp, '/instructor/class-list');
    await tp.fill('#cl-csv', `username,student_id,display_name\n${STUDENT.user},S100,Alice Liddell\n`);
    await tp.click('#cl-dry');
    await tp.waitForFunction(() => /Dry run/.test(document.getElementById('cl-result').textContent));
    await tp.click('#cl-import');
    await tp.waitForFunction(() => /Imported\. 0 accounts created, 1 updated/.test(document.getElementById('cl-result').textContent));
    await tp.fill('#cl-csv', 'username,student_id\n-bad-,S1\n');
    await tp.click('#cl-import');
    await tp.waitForFunction(() => /line 2: column 'username': '-bad-' is not a valid username/.test(document.getElementById('cl-result').textContent));
    await open(tp, '/instructor/assignments');
    await tp.waitForSelector('#as-problems input[value="softmax-rows"]');
    const [opens, due] = await tp.evaluate(() => {
      const f = (d) => { const p = (n) => String(n).padStart(2, '0'); return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`; };
      return [f(new Date(Date.now() - 86400000)), f(new Date(Date.now() + 2 * 86400000))];
    });
    await tp.fill('#as-slug', 'week-1');
    await tp.fill('#as-title', 'Week 1: softmax');
    await tp.check('#as-problems input[value="softmax-rows"]');
    await tp.check('#as-problems input[value="softmax-stable"]');
    await tp.fill('#as-opens', opens);
    await tp.fill('#as-due', due);
    await tp.click('#as-save');
    await tp.waitForSelector('#assignment-list li[data-slug="week-1"]');
    eq(await tp.textContent('#as-status'), 'Saved week-1.', 'save message');
    await tp.locator('#assignment-form').scrollIntoViewIfNeeded();
    await shot(tp, 'assignments-instructor');
  });

  await scenario('assignments: the grades matrix shows every student, linking to submissions', tp, async () => {
    await open(tp, '/instructor/grades');
    await tp.waitForSelector(`#grades-matrix tr[data-user="${STUDENT.user}"]`);
    const row = tp.locator(`#grades-matrix tr[data-user="${STUDENT.user}"]`);
    eq(await row.locator('th').textContent(), `Alice Liddell (${STUDENT.user})`, 'display name and username');
    eq(await row.locator('td').first().textContent(), 'S100', 'student id');
    const cell = row.locator('td.score-cell[data-problem="softmax-rows"] a');
    eq(await cell.textContent(), '100', 'the accepted softmax-rows counts');
    assert(/^#\/submission\/\d+$/.test(await cell.getAttribute('href')), 'the cell links to the submission');
    eq(await tp.getAttribute('#gm-csv', 'href'), '/api/assignments/week-1/grades.csv', 'CSV link');
    await tp.locator('#grades-matrix').scrollIntoViewIfNeeded();
    await shot(tp, 'assignments-matrix');
  });

  await scenario('assignments: the student sees the countdown and their status', sp, async () => {
    await open(sp, '/assignments');
    await sp.waitForSelector('section.assignment[data-slug="week-1"]');
    assert(/^Due in 1 day 2\d h|^Due in 2 days 0 h|^Due in 1 day \d+ h/.test(await sp.textContent('.time-left[data-slug="week-1"]')), `countdown: ${await sp.textContent('.time-left[data-slug="week-1"]')}`);
    eq(await sp.textContent('tr[data-problem="softmax-rows"] .my-status'), 'accepted, 100', 'status of the solved problem');
    eq(await sp.textContent('tr[data-problem="softmax-stable"] .my-status'), 'not started', 'status of the other');
    await shot(sp, 'assignments-student');
  });
}
