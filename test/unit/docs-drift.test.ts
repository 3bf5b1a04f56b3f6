// docs/api.md is the users' reference: its tables of flags, defaults and reasons are held to
// the code here, so that a flag, a default or a reason that changes in one place and not the
// other fails a test instead of misleading a reader of `kubectl explain` or the docs.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { withDefaults } from '../../shared/defaults.js';
import { repoRoot } from '../support/bundle.js';

const doc = readFileSync(join(repoRoot, 'docs', 'api.md'), 'utf8');

/** The text of a section: from its heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/api.md has a section ${heading}`);
  const level = heading.split(' ')[0];
  const rest = doc.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

/** The rows of every Markdown table in a text, as cells. */
const rows = (text: string) => text.split('\n').filter((l) => l.startsWith('|') && !/^\|[-| ]+\|$/.test(l)).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));

interface Flag { name: string; env: string; default: string }

/** The flags a process's --help lists: name, environment variable and default. */
function helpFlags(main: string): Flag[] {
  const help = spawnSync(process.execPath, [join(repoRoot, 'dist', main), '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  return [...help.stderr.matchAll(/^ {2}--([a-z-]+)(?: <\w+>)? .*\(env (SKIFF_[A-Z_]+); default ([^)]*)\)$/gm)].map((m) => ({ name: m[1], env: m[2], default: m[3] }));
}

/** Source files under a folder (the TypeScript sources, not dist). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [readFileSync(p, 'utf8')] : [];
  });
}

describe('docs/api.md against the code', () => {
  for (const [process, main, heading] of [['webhook', 'webhook/main.js', '### Webhook'], ['controller', 'controller/main.js', '### Controller']] as const) {
    it(`lists every flag of the ${process} with its environment variable and default`, () => {
      const code = helpFlags(main);
      assert.ok(code.length > 3, `${process} --help lists its flags`);
      const documented = new Map(rows(section(heading)).filter((r) => /^`--/.test(r[0])).map((r) => [r[0].slice(3, -1), { env: r[1].replace(/`/g, ''), default: r[2] }]));
      assert.deepEqual([...documented.keys()].sort(), code.map((f) => f.name).sort(), `the flags of ${process} --help and of docs/api.md ${heading}`);
      for (const f of code) {
        const d = documented.get(f.name)!;
        assert.equal(d.env, f.env, `--${f.name}: environment variable`);
        // A flag without a value of its own ("") is documented in words (none, all namespaces, ...).
        if (f.default !== '""') assert.ok(d.default.includes(`\`${f.default.replace(/^"|"$/g, '')}\``), `--${f.name}: the documented default ${d.default} is not ${f.default}`);
      }
    });
  }

  it('gives every default the webhook fills in its Defaults table', () => {
    const table = rows(section('### Defaults'));
    const filled = withDefaults({ spec: { image: 'web:1', ingress: { host: 'web.example.com' }, route: {}, rollout: { strategy: 'Canary', analysis: {} } } }) as { spec: Record<string, unknown> };
    const leaves: [string, unknown][] = [];
    const walk = (o: Record<string, unknown>, path: string) => {
      for (const [k, v] of Object.entries(o)) {
        if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, `${path}.${k}`);
        else if (!Array.isArray(v) && !['image', 'host', 'strategy'].includes(k)) leaves.push([`${path}.${k}`, v]);
      }
    };
    walk(filled.spec, 'spec');
    assert.ok(leaves.length >= 10, `defaults found: ${leaves.map(([p]) => p).join(', ')}`);
    for (const [path, value] of leaves) {
      const [parent, name] = path.split('.').slice(-2);
      const names = (r: string[]) => r[0].includes(`\`${name}\``) || r[0].includes(`.${name}\``);
      // Rows such as "`spec.ingress.path` / `pathType`": the one of the field's parent when several name it.
      const row = table.find((r) => names(r) && r[0].includes(parent)) ?? table.find(names);
      assert.ok(row, `the Defaults table names ${path}`);
      assert.ok(row[1].includes(`\`${String(value)}\``), `${path}: the Defaults table says ${row[1]}, the webhook fills ${JSON.stringify(value)}`);
    }
  });

  it('documents every condition and Event reason the controller sets, and no other condition reason', () => {
    const code = sources(join(repoRoot, 'controller')).join('\n');
    const literal = (r: string) => code.includes(`'${r}'`);
    const conditions = rows(section('### Conditions')).filter((r) => /^`(True|False|Unknown)`$/.test(r[0])).map((r) => r[1].replace(/`/g, ''));
    assert.ok(conditions.length > 10);
    for (const r of conditions) assert.ok(literal(r), `docs/api.md documents the condition reason ${r}, which the controller never sets`);
    const events = rows(section('### Events')).flatMap((r) => [...r[1].matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]));
    const documented = new Set([...conditions, ...events]);
    const set = new Set([
      ...[...code.matchAll(/\breason: '([A-Z][A-Za-z]+)'/g)].map((m) => m[1]),
      ...[...code.matchAll(/\.event\(\w+, '(?:Normal|Warning)', '([A-Z][A-Za-z]+)'/g)].map((m) => m[1]),
    ]);
    assert.ok(set.size > 10, `reasons found in the controller: ${[...set].join(', ')}`);
    for (const r of set) assert.ok(documented.has(r), `the controller sets the reason ${r}, which docs/api.md does not document (Conditions or Events)`);
  });
});
