// No import cycles in product code, type-only imports included: a module graph without cycles
// keeps each layer usable on its own (runtime/ without the reconciler, routers without reconcile).
import { strict as assert } from 'node:assert';
import { repoRoot } from '../support/bundle.js';
import { findCycles, importGraph, importsOf } from '../support/import-graph.js';

const PRODUCT_DIRS = ['webhook', 'controller', 'shared', 'certs', 'cli', 'dev', 'bench'];

describe('import graph', () => {
  it('has no cycle in product code', () => {
    const graph = importGraph(repoRoot, PRODUCT_DIRS);
    assert.ok(graph.size > 50, `read ${graph.size} modules`);
    const cycles = findCycles(graph);
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.map((c) => `  ${c.join(' -> ')}`).join('\n')}`);
  });

  it('keeps the App-agnostic runtime and the routers apart from the reconciler', () => {
    const graph = importGraph(repoRoot, ['controller']);
    for (const [file, targets] of graph) {
      if (file.startsWith('controller/runtime/')) {
        assert.deepEqual(targets.filter((t) => !t.startsWith('controller/runtime/') && !t.startsWith('shared/')), [], `${file} imports App-specific code`);
      }
      if (file === 'controller/reconcile.ts') {
        assert.deepEqual(targets.filter((t) => t.startsWith('controller/routers/') && t !== 'controller/routers/router.ts'), [], 'reconcile.ts imports a router implementation');
      }
    }
  });

  it('keeps every arrow between the controller\'s folders pointing down, and none into the root', () => {
    // From the bottom up: a folder imports only from folders below it. The root (the pipeline
    // and its wiring) is above them all, and nothing imports it.
    const layers = ['runtime', 'state', 'analysis', 'render', 'apply', 'routers', 'canary', 'bluegreen', 'guards'];
    const folderOf = (file: string) => {
      const parts = file.split('/');
      return parts.length > 2 ? parts[1] : 'root';
    };
    const rank = (folder: string) => (folder === 'root' ? layers.length : layers.indexOf(folder));
    const graph = importGraph(repoRoot, ['controller']);
    const folders = new Set([...graph.keys()].map(folderOf));
    assert.deepEqual([...folders].filter((f) => rank(f) < 0), [], 'every controller folder has its place in the layers');
    const upward = [...graph].flatMap(([file, targets]) => targets
      .filter((t) => t.startsWith('controller/') && folderOf(t) !== folderOf(file) && rank(folderOf(t)) >= rank(folderOf(file)))
      .map((t) => `${file} -> ${t}`));
    assert.deepEqual(upward, [], `imports running back up:\n${upward.join('\n')}`);
  });

  it('keeps shared/ below the processes: it imports only from shared/', () => {
    // shared/ is what the webhook and the controller both run; an import of controller/ (or any
    // process's own code) from there would pull that process into the other's bundle.
    const graph = importGraph(repoRoot, ['shared']);
    const upward = [...graph].flatMap(([file, targets]) => targets.filter((t) => !t.startsWith('shared/')).map((t) => `${file} -> ${t}`));
    assert.deepEqual(upward, [], `imports out of shared/:\n${upward.join('\n')}`);
  });

  it('reads every kind of import, type-only ones included', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "export type { D } from './d.js';",
      "import './side-effect.js';",
      "const e = await import('./e.js');",
      "import { x } from 'node:fs';",
      'import {\n  f,\n  type G,\n} from "./f.js";',
    ].join('\n');
    assert.deepEqual(importsOf(source), ['./a.js', '../b.js', './c.js', './d.js', './side-effect.js', './e.js', './f.js']);
  });

  it('finds a cycle, a longer one and a self-import, and nothing in a tree', () => {
    const graph = new Map([
      ['a', ['b']], ['b', ['a']],
      ['c', ['d']], ['d', ['e']], ['e', ['c', 'f']], ['f', []],
      ['g', ['g']],
      ['h', ['f', 'i']], ['i', ['f']],
    ]);
    assert.deepEqual(findCycles(graph).map((c) => [...c].sort()), [['a', 'b'], ['c', 'd', 'e'], ['g']]);
  });
});
