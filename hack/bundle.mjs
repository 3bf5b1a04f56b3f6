// The shipped programs as bundles (part of `npm run build`): dist/bundle/controller.mjs,
// webhook.mjs and kubectl-skiff.mjs (with its lazily loaded chunks in dist/bundle/kubectl-skiff/),
// each with its source map beside it. Bundled and minified, the controller loads less code than
// from node_modules (idle heap 28 instead of 47 MB, npm run bench:footprint) and starts faster. Names are kept so that stack traces (through the source maps,
// `node --enable-source-maps`) read as the sources do.
//
// node hack/bundle.mjs [--metafile]   (--metafile writes dist/bundle/meta-*.json, esbuild's account of
// what each output holds, for size analysis)
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepSources, ownSources } from './own-sourcemap.mjs';
import { appSchemaValidatorPlugin } from './schema-validator.mjs';
import { builtinsAsRequire } from './builtins-as-require.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');

export const ENTRIES = {
  controller: 'controller/main.ts',
  webhook: 'webhook/main.ts',
  'kubectl-skiff': 'cli/kubectl-skiff.ts',
};

// Some CommonJS dependencies call require() on Node built-ins; in an ES module bundle that
// require must exist, so each bundle makes one for itself.
const banner = "import { createRequire as __skiffCreateRequire } from 'node:module'; const require = __skiffCreateRequire(import.meta.url);";

const common = {
  absWorkingDir: root,
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  // Licence notices stay with the code that carries them, at the end of each file.
  legalComments: 'eof',
  banner: { js: banner },
  logLevel: 'warning',
  metafile: true,
  plugins: [appSchemaValidatorPlugin(root), builtinsAsRequire()],
};
const entry = (name) => ({ [name]: join(root, ENTRIES[name]) });

const started = Date.now();
// Chunk names carry a hash of their content: the previous build's would stay beside the new ones.
for (const dir of ['kubectl-skiff', 'controller']) rmSync(join(outdir, dir), { recursive: true, force: true });
const results = await Promise.all([
  // The webhook: one self-contained file, nothing beside it but its map.
  build({ ...common, entryPoints: entry('webhook') }),
  // The controller loads client-node only for an exec plugin's or an auth-provider's credentials
  // (shared/kube-auth-fallback.ts): with splitting it stays a chunk of its own, never loaded
  // otherwise. The plugin's commands are imported on first use too, so that --help loads none
  // of them.
  build({ ...common, entryPoints: entry('controller'), splitting: true, chunkNames: 'controller/[name]-[hash]' }),
  build({ ...common, entryPoints: entry('kubectl-skiff'), splitting: true, chunkNames: 'kubectl-skiff/[name]-[hash]' }),
]);
// Each map keeps the project's own sources only (why in own-sourcemap.mjs), and their names and
// positions without their text: a stack trace needs no more, and Node keeps a loaded map whole
// in memory (the sources' text cost the controller 5 MiB of idle RSS).
for (const file of results.flatMap((r) => Object.keys(r.metafile.outputs)).filter((f) => f.endsWith('.map'))) {
  const path = join(root, file);
  writeFileSync(path, JSON.stringify({ ...keepSources(JSON.parse(readFileSync(path, 'utf8')), ownSources), sourcesContent: undefined }));
}
if (process.argv.includes('--metafile')) results.forEach((r, i) => writeFileSync(join(outdir, `meta-${i}.json`), JSON.stringify(r.metafile)));
process.stderr.write(`bundles in ${outdir} (${Date.now() - started} ms)\n`);
