#!/usr/bin/env node
// `node web/mathcheck.mjs statement.md`: prints "LINE<TAB>MESSAGE" for each
// math span KaTeX cannot render (web/src/lib/mathcheck.js) and exits 1 if there
// is one, 0 if not, 2 if it cannot run. Used by `attnjudge problem check`.
import { readFileSync } from 'node:fs';
import { mathErrors } from './src/lib/mathcheck.js';

try {
  const errs = mathErrors(readFileSync(process.argv[2], 'utf8'));
  for (const e of errs) process.stdout.write(`${e.line}\t${e.message.replace(/\s+/g, ' ')}\n`);
  process.exit(errs.length ? 1 : 0);
} catch (e) {
  process.stderr.write(`mathcheck: ${e.message}\n`);
  process.exit(2);
}
