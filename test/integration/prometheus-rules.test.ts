// The alerts of config/prometheus (a PrometheusRule) checked and unit-tested by promtool, the
// tool that ships with Prometheus (installed for the analysis tests like Prometheus itself).
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { writeAlertRules } from '../../dev/alert-rules.js';
import { ensurePrometheus } from '../../dev/prometheus.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const promDir = join(root, 'config', 'prometheus');

function run(cmd: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => execFile(cmd, args, (err, stdout, stderr) => done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` })));
}

describe('rollout alerts (promtool)', function () {
  this.timeout(180_000);
  let dir: string;
  let promtool: string;
  before(async () => {
    promtool = join(dirname(await ensurePrometheus()), 'promtool');
    dir = mkdtempSync(join(tmpdir(), 'skiff-rules-'));
    writeAlertRules(dir);
    copyFileSync(join(promDir, 'tests', 'alerts.test.yaml'), join(dir, 'alerts.test.yaml'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has the seven alerts, and promtool check rules passes', async () => {
    const groups = parse(readFileSync(join(dir, 'rules.yaml'), 'utf8')).groups as { rules: { alert: string }[] }[];
    assert.deepEqual(groups.flatMap((g) => g.rules.map((r) => r.alert)).sort(), ['SkiffAnalysisQueriesFailing', 'SkiffAnalysisUnavailable', 'SkiffAppDegraded', 'SkiffControllerDown', 'SkiffRolloutAborted', 'SkiffRolloutStuck', 'SkiffWebhookCertificateExpiring']);
    const { code, output } = await run(promtool, ['check', 'rules', join(dir, 'rules.yaml')]);
    assert.equal(code, 0, output);
    assert.match(output, /SUCCESS: 7 rules found/);
  });

  it('passes its promtool unit tests, which cover every alert', async () => {
    const tests = readFileSync(join(dir, 'alerts.test.yaml'), 'utf8');
    for (const alert of ['SkiffAnalysisQueriesFailing', 'SkiffAnalysisUnavailable', 'SkiffAppDegraded', 'SkiffControllerDown', 'SkiffRolloutAborted', 'SkiffRolloutStuck', 'SkiffWebhookCertificateExpiring']) assert.match(tests, new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`), `a test expects ${alert} to fire`);
    const { code, output } = await run(promtool, ['test', 'rules', join(dir, 'alerts.test.yaml')]);
    assert.equal(code, 0, output);
    assert.match(output, /SUCCESS/);
  });

  it('fails a rules test that expects the wrong thing (the check has teeth)', async () => {
    const broken = readFileSync(join(dir, 'alerts.test.yaml'), 'utf8').replace('reason: AnalysisFailed}', 'reason: RolloutAborted}');
    writeFileSync(join(dir, 'broken.test.yaml'), broken);
    const { code } = await run(promtool, ['test', 'rules', join(dir, 'broken.test.yaml')]);
    assert.notEqual(code, 0);
  });
});
