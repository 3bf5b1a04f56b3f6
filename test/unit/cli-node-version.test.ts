import { strict as assert } from 'node:assert';
import { nodeVersionProblem } from '../../cli/node-version.js';

describe('kubectl skiff on an older Node.js', () => {
  it('says which Node it needs and which one it was given, instead of failing inside a dependency', () => {
    assert.equal(nodeVersionProblem('20.20.2', '/usr/bin/node'), 'kubectl skiff needs Node.js 22.19 or newer, and /usr/bin/node is 20.20.2: put a newer node first on PATH, or run npm ci in the project (it brings its own)');
    assert.match(nodeVersionProblem('22.18.0', '/usr/bin/node')!, /needs Node\.js 22\.19 or newer/);
    for (const ok of ['22.19.0', '22.23.3', '23.0.0', '24.1.0']) assert.equal(nodeVersionProblem(ok, 'node'), undefined, ok);
  });
});
