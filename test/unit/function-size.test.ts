// No product function over 80 lines: a longer one does several things, and reads better as the
// list of its steps (startController, startWebhookServer and planCanary are written that way).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../support/bundle.js';

const PRODUCT_DIRS = ['controller', 'webhook', 'shared', 'certs', 'cli', 'dev', 'bench'];
const MAX_LINES = 80;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every function, method and arrow function longer than `max` lines, as "file:line name (n lines)". */
export function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > max) long.push(`${file}:${first + 1} ${node.name?.getText() ?? '(anonymous)'} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

describe('function size', () => {
  it(`has no product function over ${MAX_LINES} lines`, () => {
    const files = PRODUCT_DIRS.flatMap((d) => sources(join(repoRoot, d)));
    assert.ok(files.length > 100, `read ${files.length} files`);
    const long = files.flatMap((f) => longFunctions(relative(repoRoot, f), readFileSync(f, 'utf8'), MAX_LINES));
    assert.deepEqual(long, []);
  });

  it('measures functions, methods and arrow functions, nested ones too', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const x${i} = ${i};`).join('\n');
    const text = `function big() {\n${body(80)}\n}\nfunction small() {\n${body(3)}\n}\nclass C {\n  m() {\n${body(79)}\n  }\n}\nconst f = () => {\n  const g = () => {\n${body(81)}\n  };\n};\n`;
    assert.deepEqual(longFunctions('x.ts', text, 80), ['x.ts:1 big (82 lines)', 'x.ts:89 m (81 lines)', 'x.ts:171 (anonymous) (85 lines)', 'x.ts:172 (anonymous) (83 lines)']);
  });
});
