import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import { list, type Context } from '../../cli/commands.js';
import { plainStyle } from '../../cli/style.js';

// `kubectl skiff list` with nothing to list says so on stderr in kubectl's words, which scripts
// and people know from `kubectl get`: "No resources found in shop namespace.", and with -A
// "No resources found"; stdout stays empty and the exit code 0.
function run(allNamespaces: boolean) {
  const out: string[] = [];
  const err: string[] = [];
  const api = { connection: { server: 'https://127.0.0.1:6443' }, get: async () => ({ items: [] }) } as unknown as Api;
  const cmd = { command: 'list', allNamespaces, color: false, watch: false, wait: false, skipCanary: false } as CommandLine;
  const ctx: Context = {
    cmd, api, namespace: 'shop', style: plainStyle, out: (t) => void out.push(t), err: (t) => void err.push(t),
    now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24,
  };
  return list(ctx).then((code) => ({ code, out: out.join(''), err: err.join('') }));
}

describe('kubectl skiff list: no Apps', () => {
  it('in a namespace: "No resources found in <ns> namespace." on stderr, as kubectl get says it', async () => {
    assert.deepEqual(await run(false), { code: 0, out: '', err: 'No resources found in shop namespace.\n' });
  });

  it('with -A: "No resources found", as kubectl get -A says it', async () => {
    assert.deepEqual(await run(true), { code: 0, out: '', err: 'No resources found\n' });
  });
});
