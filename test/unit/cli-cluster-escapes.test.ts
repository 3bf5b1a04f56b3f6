// Text the cluster gives (a history entry's annotations, an API server's or a webhook's message)
// reaches the terminal on one line and without its escape sequences, in what a command prints when
// it succeeds and in the error it ends with: anyone who may write an App's ControllerRevisions
// must not set another user's window title or clear their screen. The plugin runs as a user runs
// it, against a stand-in API server.
import { strict as assert } from 'node:assert';
import { fancyStyle, oneLine } from '../../cli/style.js';
import { pluginAgainst, type StandIn } from '../support/plugin-process.js';

/** A window title (OSC ended by BEL), a clear screen, and text hidden by conceal. */
const HOSTILE = 'web:1\u001b]0;PWNED\u0007\u001b[2J\u001b[8m secret\u001b[0m';
const ANY_ESCAPE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

const app = {
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 2, resourceVersion: '7' },
  spec: { image: 'web:2', port: 8080 },
  status: { observedGeneration: 2, updateRevision: 'bbbbbbbbbb', stableRevision: 'bbbbbbbbbb', stableImage: 'web:2' },
};
const entry = (n: number, hash: string, images: string, image: string) => ({
  metadata: {
    name: `web-${n}`, namespace: 'shop', labels: { 'skiff.dev/app': 'web', 'skiff.dev/revision': hash },
    annotations: { 'skiff.dev/images': images, 'skiff.dev/outcome': 'Promoted', 'skiff.dev/changes': 'image' },
    ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: 'u1', controller: true }],
  },
  revision: n, data: { spec: { image, port: 8080 } },
});

describe('kubectl skiff: escape sequences the cluster gives', function () {
  this.timeout(30_000);
  let standIn: StandIn;
  let refuse = false;
  before(async () => {
    standIn = await pluginAgainst((req, res) => {
      const answer = (code: number, body: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (refuse) {
        // A refusal quoting what a webhook said, over several lines.
        return answer(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: `admission webhook "policy.example.com" denied the request:\n${HOSTILE}` });
      }
      if (req.url?.includes('/controllerrevisions')) return answer(200, { items: [entry(1, 'aaaaaaaaaa', HOSTILE, 'web:1'), entry(2, 'bbbbbbbbbb', 'web:2', 'web:2')] });
      answer(200, app);
    });
  });
  after(() => standIn.close());
  const run = (args: string[]) => standIn.run(args);

  it('undo names the revision\'s image from its annotation without the sequences', async () => {
    refuse = false;
    const r = await run(['undo', 'web', '--to-revision', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'app shop/web: undo to revision 1 (hash aaaaaaaaaa, image web:1 secret)\n');
  });

  it('an error quoting the cluster is printed on one line without the sequences', async () => {
    refuse = true;
    const r = await run(['pause', 'web']);
    assert.equal(r.code, 1);
    assert.doesNotMatch(r.stderr.slice(0, -1), ANY_ESCAPE, JSON.stringify(r.stderr));
    assert.match(r.stderr, /^error: .*admission webhook "policy\.example\.com" denied the request: \| web:1 secret\n$/);
  });

  it('fancy output keeps only the colours the plugin writes: conceal from the cluster is removed', () => {
    assert.equal(oneLine('a\u001b[8mhidden\u001b[0m \u001b[32mok\u001b[0m \u001b[30;40mblack on black\u001b[0m', fancyStyle), 'ahidden\u001b[0m \u001b[32mok\u001b[0m black on black\u001b[0m');
  });
});
