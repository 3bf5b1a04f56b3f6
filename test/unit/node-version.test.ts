import { strict as assert } from 'node:assert';
import { nodeVersionProblem } from '../../shared/node-version.js';

describe('Skiff\'s programs on an older Node.js', () => {
  it('say which Node they need and which one they were given, instead of failing inside a dependency', () => {
    assert.equal(nodeVersionProblem('kubectl skiff', '20.20.2', '/usr/bin/node'), 'kubectl skiff needs Node.js 22.19 or newer, and /usr/bin/node is 20.20.2: put a newer node first on PATH, or run npm ci in the project (it brings its own, node_modules/.bin/node)');
    assert.match(nodeVersionProblem('the webhook', '22.18.0', '/usr/bin/node')!, /^the webhook needs Node\.js 22\.19 or newer/);
    for (const ok of ['22.19.0', '22.23.3', '23.0.0', '24.1.0']) assert.equal(nodeVersionProblem('kubectl skiff', ok, 'node'), undefined, ok);
  });
});
