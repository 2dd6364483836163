// Problem states in the browser (issue 11, item 1): the instructor's
// "Problem states" card archives, drafts and publishes a problem, and a
// student's pages follow — an archived problem is read-only with a notice,
// a draft is gone from the list and its page, a published one is back.
// Screenshots: states-instructor-card, states-student-archived.
export async function statesScenarios({ tp, sp, open, scenario, shot, assert, eq, SLUG }) {
  const setState = async (state) => {
    await open(tp, '/instructor/problems');
    const row = tp.locator(`#problem-states tr[data-slug="${SLUG}"]`);
    await row.waitFor();
    await row.locator('select').selectOption(state);
    await row.locator('button.save-state').click();
    await tp.waitForSelector(`#problem-states tr[data-slug="${SLUG}"][data-state="${state}"]`);
    eq(await tp.textContent('#problem-states-status'), `${SLUG}: saved.`, 'save message');
  };

  await scenario('states: the instructor archives a problem; the student can read it, not submit', tp, async () => {
    await setState('archived');
    assert((await tp.textContent(`#problem-states tr[data-slug="${SLUG}"] .state-summary`)).startsWith('Archived'), 'summary');
    await tp.locator('#problem-states').scrollIntoViewIfNeeded();
    await shot(tp, 'states-instructor-card');
    await open(sp, `/problem/${SLUG}`);
    await sp.waitForSelector('#archived-notice');
    eq(await sp.isDisabled('#submit'), true, 'submit disabled on an archived problem');
    eq(await sp.isDisabled('#run-samples'), true, 'run disabled on an archived problem');
    await shot(sp, 'states-student-archived');
    await open(sp, '/problems');
    await sp.waitForSelector(`tr[data-slug="${SLUG}"] .state-badge.state-archived`);
  });

  await scenario('states: a draft disappears for the student and comes back when published', tp, async () => {
    await setState('draft');
    await open(sp, '/problems');
    await sp.waitForSelector('#problem-table tr[data-slug]');
    eq(await sp.locator(`tr[data-slug="${SLUG}"]`).count(), 0, 'a draft in the student list');
    const r = await sp.evaluate(async (s) => (await fetch(`/api/problems/${s}`)).status, SLUG);
    eq(r, 404, 'a draft problem for a student');
    await open(tp, '/problems');
    await tp.waitForSelector(`tr[data-slug="${SLUG}"] .state-badge.state-draft`);
    await setState('published');
    await open(sp, '/problems');
    await sp.waitForSelector(`tr[data-slug="${SLUG}"]`);
    eq(await sp.locator(`tr[data-slug="${SLUG}"] .state-badge`).count(), 0, 'a badge on a published problem');
  });

  await scenario('states: deleting a problem with submissions says to archive it', tp, async () => {
    await open(tp, '/instructor/problems');
    const row = tp.locator(`#problem-states tr[data-slug="${SLUG}"]`);
    await row.waitFor();
    await row.locator('button.delete-problem').click(); // the harness accepts the confirm
    await tp.waitForFunction((s) => /archive it instead/.test(document.querySelector(`#problem-states tr[data-slug="${s}"] [role=status]`).textContent), SLUG);
  });
}
