// Bundles the web UI into dist/: the app (with CodeMirror and KaTeX) as one
// ES module, its stylesheet, KaTeX's stylesheet and fonts, and the static
// files of src/ (index.html, favicon). dist/ is what `attnjudge serve --web`
// serves, so it holds nothing but these built assets.
import * as esbuild from 'esbuild';
import { mkdirSync, readdirSync, rmSync, copyFileSync, existsSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, 'src');
const out = process.argv[2] ? process.argv[2] : join(here, 'dist');
const tmp = out + '.tmp';

rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });

await esbuild.build({
  entryPoints: [join(src, 'app.js')],
  outfile: join(tmp, 'app.js'),
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: false,
  target: ['es2020'],
  legalComments: 'linked',
  logLevel: 'warning',
});
await esbuild.build({
  entryPoints: [join(src, 'app.css')],
  outfile: join(tmp, 'app.css'),
  bundle: true,
  minify: true,
  logLevel: 'warning',
});

// KaTeX: its stylesheet refers to fonts/KaTeX_*.woff2 (then .woff, .ttf).
const katex = join(here, 'node_modules', 'katex', 'dist');
mkdirSync(join(tmp, 'katex', 'fonts'), { recursive: true });
copyFileSync(join(katex, 'katex.min.css'), join(tmp, 'katex', 'katex.min.css'));
for (const f of readdirSync(join(katex, 'fonts')))
  copyFileSync(join(katex, 'fonts', f), join(tmp, 'katex', 'fonts', f));

for (const f of ['index.html', 'favicon.svg'])
  copyFileSync(join(src, f), join(tmp, f));

// Update dist/ in place: a running server holds the directory open (it
// serves beneath that descriptor), so the directory itself must survive a
// rebuild. Each file is renamed over its old version (atomic), then files
// the new build no longer has are removed.
function sync(from, to) {
  mkdirSync(to, { recursive: true });
  const isDir = (p) => existsSync(p) && statSync(p).isDirectory();
  const want = new Set(readdirSync(from));
  for (const name of want) {
    const src = join(from, name), dst = join(to, name);
    if (isDir(src)) {
      if (existsSync(dst) && !isDir(dst)) rmSync(dst, { force: true });
      sync(src, dst);
    } else {
      if (isDir(dst)) rmSync(dst, { recursive: true, force: true });
      renameSync(src, dst);
    }
  }
  for (const name of readdirSync(to))
    if (!want.has(name) && !name.startsWith('.')) rmSync(join(to, name), { recursive: true, force: true });
}
sync(tmp, out);
rmSync(tmp, { recursive: true, force: true });
