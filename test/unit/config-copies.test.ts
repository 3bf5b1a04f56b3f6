// spec.rollout.trackConfig, the pure parts: which sources a template references, the template on
// copies, the copies themselves, ConfigNotFound and optional sources, the changes a canary
// names, which copies are unused, and the status conditions.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { KubernetesObject } from '@kubernetes/client-node';
import { templateChanges } from '../../controller/canary/changes.js';
import { recordedAbort } from '../../controller/canary/types.js';
import { withConfigCondition, missingConfigStatus } from '../../controller/guards/config-gate.js';
import { ANNOTATION_CONFIG_COPIES, configReferences, copyName, MEMO_PER_SOURCE, olderCopyNames, rememberedNames, trackedPodTemplate, trackedReferences, unusedCopies, type ResolvedSources, type SourceContent } from '../../shared/render/config-copies.js';
import { renderPodTemplate } from '../../shared/render/pod-template.js';
import type { AppSpec } from '../../shared/app-types.js';
import { withDefaults } from '../../shared/defaults.js';
import { validateApp } from '../../shared/validation.js';
import { defaultedAppFixture } from '../support/app-fixture.js';
import { deleteCopies, ensureCopies } from '../../controller/apply/config-copies.js';
import { Expectations } from '../../controller/runtime/expectations.js';
import { ownerReference } from '../../shared/owner-reference.js';
import type { ApplyClients } from '../../controller/apply/apply.js';
import type { Logger } from '../../shared/logger.js';

const spec: Partial<AppSpec> = {
  env: [
    { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'web-cfg', key: 'greeting' } } },
    { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db-creds', key: 'password' } } },
    { name: 'MODE', value: 'prod' },
  ],
  envFrom: [{ configMapRef: { name: 'flags', optional: true } }, { secretRef: { name: 'api-keys' } }],
  volumes: [
    { name: 'cfg', mountPath: '/etc/web', configMap: { name: 'web-cfg' } },
    { name: 'tls', mountPath: '/etc/tls', secret: { secretName: 'web-tls' } },
    { name: 'tmp', mountPath: '/tmp', emptyDir: {} },
  ],
  rollout: { trackConfig: true },
};
const app = defaultedAppFixture({ spec, metadata: { uid: 'u1', labels: { 'skiff.dev/shard': 'a' } } });
const pod = renderPodTemplate(app, 'stable');

const cfg: SourceContent = { data: { greeting: 'hello' } };
const sources = (entries: Record<string, SourceContent | null>): ResolvedSources => new Map(Object.entries(entries));
const all = sources({ 'configMap/web-cfg': cfg, 'configMap/flags': { data: { X: '1' } }, 'secret/db-creds': { data: { password: 'cA==' }, type: 'Opaque' }, 'secret/api-keys': { data: {} }, 'secret/web-tls': { data: { 'tls.crt': 'Yw==' }, type: 'kubernetes.io/tls' } });

const container = (t: typeof pod.template) => t.spec!.containers[0];

describe('trackConfig: the sources a pod template references', () => {
  it('finds ConfigMaps and Secrets in env, envFrom and volumes, each once, optional only when every reference is', () => {
    assert.deepEqual(configReferences(pod.template), [
      { kind: 'configMap', name: 'web-cfg', optional: false },
      { kind: 'secret', name: 'db-creds', optional: false },
      { kind: 'configMap', name: 'flags', optional: true },
      { kind: 'secret', name: 'api-keys', optional: false },
      { kind: 'secret', name: 'web-tls', optional: false },
    ]);
  });

  it('tracks Secrets only with --track-secrets', () => {
    const refs = configReferences(pod.template);
    assert.deepEqual(trackedReferences(refs, false).map((r) => r.name), ['web-cfg', 'flags']);
    assert.equal(trackedReferences(refs, true).length, 5);
  });
});

describe('trackConfig: the template on copies', () => {
  it('names a copy after its source and the hash of its data and its App, and nothing else counts', () => {
    assert.match(copyName('web', 'web-cfg', cfg), /^web-cfg-[0-9a-f]{10}$/);
    assert.equal(copyName('web', 'web-cfg', { data: { greeting: 'hello' } }), copyName('web', 'web-cfg', cfg));
    assert.notEqual(copyName('web', 'web-cfg', { data: { greeting: 'bonjour' } }), copyName('web', 'web-cfg', cfg));
    assert.notEqual(copyName('web', 'web-cfg', { binaryData: { greeting: 'aGVsbG8=' } }), copyName('web', 'web-cfg', cfg));
    assert.notEqual(copyName('api', 'web-cfg', cfg), copyName('web', 'web-cfg', cfg), 'two Apps sharing a source each own a copy');
    assert.ok(copyName('web', 'x'.repeat(253), cfg).length <= 253, 'within an object name');
  });

  it('salts a Secret copy\'s name with the Secret\'s uid: its data cannot be guessed from the name pods show; an App keeps the unsalted copy it owns', () => {
    const secret = { data: { pw: Buffer.from('hunter2').toString('base64') }, type: 'Opaque' };
    const salted = copyName('web', 'db', { ...secret, uid: 'uid-1' });
    assert.notEqual(salted, copyName('web', 'db', secret), 'a guess of the data alone does not give the name');
    assert.notEqual(salted, copyName('web', 'db', { ...secret, uid: 'uid-2' }));
    assert.deepEqual(olderCopyNames('web', 'db', { ...secret, uid: 'uid-1' }).slice(1), [copyName('web', 'db', secret)], 'the unsalted name is an older one');
    const withSecret: ResolvedSources = new Map([...all, ['secret/db', { ...secret, uid: 'uid-1' }]]);
    const secretPod = structuredClone(pod);
    secretPod.template.spec!.containers[0].env = [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } }];
    const ref = (t: ReturnType<typeof trackedPodTemplate>) => container(t.pod.template).env![0].valueFrom!.secretKeyRef!.name;
    assert.equal(ref(trackedPodTemplate(app, secretPod, withSecret, true)), salted);
    const unsalted = copyName('web', 'db', secret);
    assert.equal(ref(trackedPodTemplate(app, secretPod, withSecret, true, (kind, name) => kind === 'secret' && name === unsalted)), unsalted, 'no rollout on upgrade');
  });

  it('a source gone while a rollout runs: the copy that rollout uses stands for it, with the same revision', () => {
    const running = trackedPodTemplate(app, pod, all, false);
    const copyOf = (t: ReturnType<typeof trackedPodTemplate>) => container(t.pod.template).env![0].valueFrom!.configMapKeyRef!.name;
    const gone = new Map(all);
    gone.set('configMap/web-cfg', null);
    const refused = trackedPodTemplate(app, pod, gone, false);
    assert.deepEqual(refused.missing.map((m) => m.name), ['web-cfg']);
    const kept = trackedPodTemplate(app, pod, gone, false, () => false, new Map([['configMap/web-cfg', copyOf(running)!]]));
    assert.deepEqual(kept.missing, []);
    assert.equal(kept.pod.revision, running.pod.revision, 'the revision under way');
    assert.ok(!kept.copies.some((c) => c.metadata!.name === copyOf(running)), 'no copy to make: it exists');
  });

  it('never cuts a long source name before a dot: the copy\'s name stays a DNS subdomain', () => {
    const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
    for (const name of ['a'.repeat(241) + '.' + 'b'.repeat(11), 'a'.repeat(241) + '-' + 'b'.repeat(11)]) {
      for (const copy of [copyName('web', name, cfg), ...olderCopyNames('web', name, { ...cfg, uid: 'u' })]) {
        assert.ok(copy.length <= 253 && dns1123Subdomain.test(copy), copy);
      }
    }
  });

  it('keeps the copy an App already owns under the name copies had before they named their App (no rollout on upgrade)', () => {
    const [older] = olderCopyNames('web', 'web-cfg', cfg);
    assert.notEqual(older, copyName('web', 'web-cfg', cfg));
    const owns = (kind: string, name: string) => kind === 'configMap' && name === older;
    const tracked = trackedPodTemplate(app, pod, all, false, owns);
    assert.equal(container(tracked.pod.template).env![0].valueFrom!.configMapKeyRef!.name, older);
    assert.deepEqual(tracked.copies.map((c) => c.metadata!.name).sort(), [copyName('web', 'flags', { data: { X: '1' } }), older].sort(), 'a source without an owned older copy gets the new name');
    const changed = new Map(all);
    changed.set('configMap/web-cfg', { data: { greeting: 'bonjour' } });
    assert.equal(container(trackedPodTemplate(app, pod, changed, false, owns).pod.template).env![0].valueFrom!.configMapKeyRef!.name, copyName('web', 'web-cfg', { data: { greeting: 'bonjour' } }), 'new data: a new copy, with the new name');
  });

  it('references the ConfigMap copies; without --track-secrets the Secrets stay as they are and are named', () => {
    const tracked = trackedPodTemplate(app, pod, all, false);
    const copy = copyName('web', 'web-cfg', cfg);
    const c = container(tracked.pod.template);
    assert.equal(c.env![0].valueFrom!.configMapKeyRef!.name, copy);
    assert.equal(c.env![1].valueFrom!.secretKeyRef!.name, 'db-creds');
    assert.deepEqual(c.env![2], { name: 'MODE', value: 'prod' });
    assert.equal(c.envFrom![0].configMapRef!.name, copyName('web', 'flags', { data: { X: '1' } }));
    assert.equal(c.envFrom![0].configMapRef!.optional, true, 'an optional reference stays optional on its copy');
    assert.equal(c.envFrom![1].secretRef!.name, 'api-keys');
    assert.equal(tracked.pod.template.spec!.volumes![0].configMap!.name, copy);
    assert.equal(tracked.pod.template.spec!.volumes![1].secret!.secretName, 'web-tls');
    assert.deepEqual(tracked.untrackedSecrets, ['api-keys', 'db-creds', 'web-tls']);
    assert.deepEqual(tracked.missing, []);
    assert.equal(tracked.pod.template.metadata!.annotations![ANNOTATION_CONFIG_COPIES], `configMap/flags=${copyName('web', 'flags', { data: { X: '1' } })},configMap/web-cfg=${copy}`);
    assert.deepEqual(container(pod.template).env![0].valueFrom!.configMapKeyRef!.name, 'web-cfg', 'spec\'s template is not modified');
  });

  it('makes immutable copies owned by the App, labelled with the App and its shard', () => {
    const tracked = trackedPodTemplate(app, pod, all, true);
    const byName = new Map(tracked.copies.map((c) => [c.metadata!.name!, c as KubernetesObject & { immutable?: boolean; data?: unknown; type?: string }]));
    assert.equal(tracked.copies.length, 5, 'one per source, even when referenced twice');
    const copy = byName.get(copyName('web', 'web-cfg', cfg))!;
    assert.equal(copy.kind, 'ConfigMap');
    assert.equal(copy.immutable, true);
    assert.deepEqual(copy.data, cfg.data);
    assert.deepEqual(copy.metadata!.labels, { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/managed-by': 'skiff', 'skiff.dev/app': 'web', 'skiff.dev/shard': 'a' });
    assert.deepEqual(copy.metadata!.ownerReferences!.map((r) => [r.kind, r.name, r.uid, r.controller]), [['App', 'web', 'u1', true]]);
    const tls = byName.get(copyName('web', 'web-tls', { data: { 'tls.crt': 'Yw==' }, type: 'kubernetes.io/tls' }))!;
    assert.equal(tls.kind, 'Secret');
    assert.equal(tls.type, 'kubernetes.io/tls');
    assert.deepEqual(tracked.untrackedSecrets, []);
  });

  it('copies a service account token Secret as Opaque: its own type needs an annotation a copy must not carry', () => {
    const token = { data: { token: 'dA==' }, type: 'kubernetes.io/service-account-token' };
    const withToken = new Map(all);
    withToken.set('secret/web-tls', token);
    const copy = trackedPodTemplate(app, pod, withToken, true).copies.find((c) => c.metadata!.name === copyName('web', 'web-tls', token)) as KubernetesObject & { type?: string; data?: unknown };
    assert.equal(copy.type, 'Opaque');
    assert.deepEqual(copy.data, token.data);
  });

  it('changes the revision with a source\'s data and with nothing else', () => {
    const one = trackedPodTemplate(app, pod, all, false).pod.revision;
    assert.equal(trackedPodTemplate(app, pod, all, false).pod.revision, one);
    const changed = new Map(all);
    changed.set('configMap/web-cfg', { data: { greeting: 'bonjour' } });
    assert.notEqual(trackedPodTemplate(app, pod, changed, false).pod.revision, one);
    const secret = new Map(all);
    secret.set('secret/db-creds', { data: { password: 'cQ==' } });
    assert.equal(trackedPodTemplate(app, pod, secret, false).pod.revision, one, 'an untracked Secret is not read');
  });

  it('keeps spec\'s revision for a template that references no source', () => {
    const bare = defaultedAppFixture({ spec: { rollout: { trackConfig: true } } });
    const p = renderPodTemplate(bare, 'stable');
    assert.equal(trackedPodTemplate(bare, p, new Map(), true).pod.revision, p.revision);
  });

  it('reports a missing non-optional source (ConfigNotFound)', () => {
    const missing = new Map(all);
    missing.set('configMap/web-cfg', null);
    assert.deepEqual(trackedPodTemplate(app, pod, missing, false).missing, [{ kind: 'configMap', name: 'web-cfg', optional: false }]);
    const status = missingConfigStatus(app, [{ kind: 'configMap', name: 'web-cfg', optional: false }], new Date('2026-11-24T00:00:00Z'));
    const degraded = status.conditions!.find((c) => c.type === 'Degraded')!;
    assert.equal(degraded.reason, 'ConfigNotFound');
    assert.match(degraded.message, /configMap web-cfg/);
    assert.match(degraded.message, /, and the App runs nothing until then$/, 'a new App has no Deployments to keep running');
    // A new App says why nothing runs; ConfigTracked does not say the source is copied.
    const by = (type: string) => status.conditions!.find((c) => c.type === type);
    assert.deepEqual([by('Ready')?.status, by('Ready')?.reason], ['False', 'ConfigNotFound']);
    assert.deepEqual([by('ConfigTracked')?.status, by('ConfigTracked')?.reason, by('ConfigTracked')?.message], ['False', 'ConfigNotFound', 'not found: configMap web-cfg']);
    // One that runs keeps its Ready: its Deployments go on serving.
    const running = { ...app, status: { conditions: [{ type: 'Ready', status: 'True' as const, reason: 'Available', message: 'available', lastTransitionTime: '2026-11-24T00:00:00Z' }, { type: 'ConfigTracked', status: 'True' as const, reason: 'ConfigTracked', message: '1 source copied', lastTransitionTime: '2026-11-24T00:00:00Z' }] } };
    const kept = missingConfigStatus(running, [{ kind: 'configMap', name: 'web-cfg', optional: false }], new Date('2026-11-24T00:05:00Z')).conditions!;
    assert.equal(kept.find((c) => c.type === 'Ready')?.reason, 'Available');
    assert.equal(kept.find((c) => c.type === 'ConfigTracked')?.status, 'False');
    assert.match(kept.find((c) => c.type === 'Degraded')!.message, /, and the App's Deployments keep running what they run$/);
  });

  it('keeps an abort\'s reason on Progressing while a source is missing, so that it is still known once the source is back', () => {
    const at = '2026-11-24T00:00:00Z';
    const aborted = { ...app, status: { conditions: [
      { type: 'Progressing', status: 'False' as const, reason: 'AnalysisFailed', message: 'check 3 failed: successRate 0.2 < 0.99', lastTransitionTime: at },
      { type: 'Degraded', status: 'True' as const, reason: 'AnalysisFailed', message: 'check 3 failed: successRate 0.2 < 0.99', lastTransitionTime: at },
    ] } };
    const status = missingConfigStatus(aborted, [{ kind: 'configMap', name: 'web-cfg', optional: false }], new Date('2026-11-24T00:05:00Z'));
    assert.equal(status.conditions!.find((c) => c.type === 'Degraded')!.reason, 'ConfigNotFound');
    assert.deepEqual(recordedAbort(status.conditions), { reason: 'AnalysisFailed', message: 'check 3 failed: successRate 0.2 < 0.99' });
    // Without an abort, Progressing says why nothing rolls out.
    assert.equal(missingConfigStatus(app, [{ kind: 'configMap', name: 'web-cfg', optional: false }], new Date(at)).conditions!.find((c) => c.type === 'Progressing')!.reason, 'ConfigNotFound');
  });

  it('leaves a missing optional source out, as Kubernetes does: no variables, nothing imported, an empty directory', () => {
    const optional = defaultedAppFixture({ spec: {
      env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'opt', key: 'a', optional: true } } }],
      envFrom: [{ configMapRef: { name: 'opt', optional: true } }],
      volumes: [{ name: 'v', mountPath: '/v', configMap: { name: 'opt', optional: true } }],
      rollout: { trackConfig: true },
    } });
    const p = renderPodTemplate(optional, 'stable');
    const tracked = trackedPodTemplate(optional, p, sources({ 'configMap/opt': null }), false);
    assert.deepEqual(tracked.missing, []);
    assert.deepEqual(tracked.copies, []);
    assert.equal(container(tracked.pod.template).env, undefined);
    assert.equal(container(tracked.pod.template).envFrom, undefined);
    assert.deepEqual(tracked.pod.template.spec!.volumes, [{ name: 'v', emptyDir: {} }]);
    assert.deepEqual(container(tracked.pod.template).volumeMounts, [{ name: 'v', mountPath: '/v', readOnly: true }]);
  });
});

describe('trackConfig: copy names are remembered per content, not hashed again each pass', () => {
  // Content whose data counts how often its keys are listed: hashing it (stableJson) lists them.
  const counted = (data: Record<string, string>, extra: Omit<SourceContent, 'data'> = {}) => {
    const reads = { n: 0 };
    const proxy = new Proxy(data, { ownKeys: (t) => (reads.n++, Reflect.ownKeys(t)) });
    return { content: { data: proxy, ...extra } as SourceContent, reads };
  };

  it('gives the names it gave before it remembered them (a changed name would start a rollout on upgrade)', () => {
    // Computed by the functions before they remembered anything; the second pass is from the memo.
    const cm: SourceContent = { data: { greeting: 'hello' }, binaryData: { b: 'aGVsbG8=' } };
    const secret: SourceContent = { data: { pw: 'aHVudGVyMg==' }, type: 'Opaque', uid: 'uid-1' };
    for (let pass = 0; pass < 2; pass++) {
      assert.equal(copyName('web', 'web-cfg', cm), 'web-cfg-53658dbe7c');
      assert.deepEqual(olderCopyNames('web', 'web-cfg', cm), ['web-cfg-43cefe2bc7']);
      assert.equal(copyName('web', 'db', secret), 'db-7b36a7c60b');
      assert.deepEqual(olderCopyNames('web', 'db', secret), ['db-862a582564', 'db-68940d9b63']);
      assert.equal(copyName('api', 'web-cfg', { data: { greeting: 'hello' } }), 'web-cfg-39cf09e4d0');
    }
  });

  it('hashes a content object once for all passes; the App and the source name still count', () => {
    const { content, reads } = counted({ greeting: 'hello' });
    const name = copyName('web', 'web-cfg', content);
    const older = olderCopyNames('web', 'web-cfg', content);
    const once = reads.n;
    assert.ok(once > 0, 'the first pass hashes the data');
    for (let pass = 0; pass < 3; pass++) {
      assert.equal(copyName('web', 'web-cfg', content), name);
      assert.deepEqual(olderCopyNames('web', 'web-cfg', content), older);
      trackedPodTemplate(app, pod, new Map([...all, ['configMap/web-cfg', content]]), false);
    }
    assert.equal(reads.n, once, 'later passes over the same content hash nothing');
    assert.equal(copyName('web', 'web-cfg', content), copyName('web', 'web-cfg', { data: { greeting: 'hello' } }), 'the name of any equal content');
    assert.notEqual(copyName('api', 'web-cfg', content), name, 'another App: another name');
    assert.notEqual(copyName('web', 'other-cfg', content), name);
  });

  it('a changed source is a new content object, and gets a new name', () => {
    const before = counted({ greeting: 'hello' });
    const after = counted({ greeting: 'bonjour' });
    const name = copyName('web', 'web-cfg', before.content);
    assert.notEqual(copyName('web', 'web-cfg', after.content), name);
    assert.equal(copyName('web', 'web-cfg', after.content), copyName('web', 'web-cfg', { data: { greeting: 'bonjour' } }));
    assert.ok(after.reads.n > 0, 'the new content is hashed');
  });

  it('a Secret\'s names too, salted and unsalted; the older names are the caller\'s to change', () => {
    const { content, reads } = counted({ pw: 'aHVudGVyMg==' }, { type: 'Opaque', uid: 'uid-1' });
    const older = olderCopyNames('web', 'db', content);
    copyName('web', 'db', content);
    const once = reads.n;
    older.push('mine');
    assert.deepEqual(olderCopyNames('web', 'db', content), ['db-862a582564', 'db-68940d9b63']);
    assert.equal(copyName('web', 'db', content), 'db-7b36a7c60b');
    assert.equal(reads.n, once);
  });

  it('keeps a bounded number of Apps\' names for one unchanged source: short-lived Apps sharing it do not pile up, Apps in use stay', async () => {
    const { content, reads } = counted({ greeting: 'hello' });
    // Apps reconciled in turn, each asking for both its names: a second round hashes nothing.
    const round = (from: number, to: number) => { for (let i = from; i < to; i++) { copyName(`app-${i}`, 'web-cfg', content); olderCopyNames(`app-${i}`, 'web-cfg', content); } };
    round(0, 600);
    const once = reads.n;
    round(0, 600);
    assert.equal(reads.n, once, 'both names of 600 Apps remembered');
    // Thousands of previews come and go; app-0 is still used all along.
    const first = copyName('app-0', 'web-cfg', content);
    for (let i = 0; i < 3 * MEMO_PER_SOURCE; i++) {
      copyName(`pr-${i}`, 'web-cfg', content);
      if (i % 1000 === 0) copyName('app-0', 'web-cfg', content);
    }
    assert.equal(rememberedNames(content), MEMO_PER_SOURCE, 'the Apps used last only');
    const before = reads.n;
    assert.equal(copyName('app-0', 'web-cfg', content), first);
    assert.equal(reads.n, before, 'an App in use is still remembered');
    assert.equal(copyName('app-599', 'web-cfg', content), copyName('app-599', 'web-cfg', { data: { greeting: 'hello' } }), 'a dropped one is hashed again, to the same name');
    assert.ok(reads.n > before);
  });
});

describe('trackConfig: what a canary changes, and which copies go', () => {
  it('names the source whose copy changed, and nothing else', () => {
    const before = trackedPodTemplate(app, pod, all, false).pod.template;
    const changed = new Map(all);
    changed.set('configMap/web-cfg', { data: { greeting: 'bonjour' } });
    const after = trackedPodTemplate(app, pod, changed, false).pod.template;
    assert.deepEqual(templateChanges(before, after), ['configMap web-cfg']);
  });

  it('says the sources are copied when tracking starts, and no longer when it stops, not that their data changed; other changes as before', () => {
    const untracked = pod.template;
    const tracked = trackedPodTemplate(app, pod, all, false).pod.template;
    assert.deepEqual(templateChanges(untracked, tracked), ['configMap flags copied', 'configMap web-cfg copied']);
    assert.deepEqual(templateChanges(tracked, untracked), ['configMap flags not copied', 'configMap web-cfg not copied']);
    const newImage = renderPodTemplate(defaultedAppFixture({ spec: { ...spec, image: 'web:2' } }), 'stable');
    assert.deepEqual(templateChanges(tracked, trackedPodTemplate(app, newImage, all, false).pod.template), ['image']);
  });

  it('deletes the copies no template references', () => {
    const first = trackedPodTemplate(app, pod, all, false);
    const changed = new Map(all);
    changed.set('configMap/web-cfg', { data: { greeting: 'bonjour' } });
    const second = trackedPodTemplate(app, pod, changed, false);
    const owned = [...first.copies, ...second.copies.filter((c) => !first.copies.some((f) => f.metadata!.name === c.metadata!.name))];
    const names = (list: KubernetesObject[]) => list.map((c) => c.metadata!.name).sort();
    const old = copyName('web', 'web-cfg', cfg);
    const next = copyName('web', 'web-cfg', { data: { greeting: 'bonjour' } });
    assert.deepEqual(names(unusedCopies('configMap', owned, [first.pod.template, second.pod.template])), [], 'stable and canary: both kept');
    assert.deepEqual(names(unusedCopies('configMap', owned, [second.pod.template])), [old], 'promoted: the old one goes');
    assert.deepEqual(names(unusedCopies('configMap', owned, [first.pod.template])), [next], 'aborted: the new one goes');
    assert.deepEqual(names(unusedCopies('secret', owned, [first.pod.template])), names(owned), 'kinds are told apart: the templates reference ConfigMaps of these names, no Secret');
  });
});

describe('trackConfig: the ConfigTracked condition', () => {
  const now = new Date('2026-11-24T00:00:00Z');
  it('is True when everything is copied, False SecretsNotTracked naming the Secrets otherwise, and absent without trackConfig', () => {
    const tracked = trackedPodTemplate(app, pod, all, true);
    assert.equal(withConfigCondition({}, app, tracked, now).conditions![0].reason, 'ConfigTracked');
    const untracked = withConfigCondition({}, app, trackedPodTemplate(app, pod, all, false), now).conditions![0];
    assert.deepEqual([untracked.status, untracked.reason], ['False', 'SecretsNotTracked']);
    assert.match(untracked.message, /--track-secrets: secret api-keys, secret db-creds, secret web-tls are referenced/);
    const withCondition = withConfigCondition({}, app, tracked, now);
    assert.deepEqual(withConfigCondition(withCondition, app, undefined, now).conditions, []);
  });
});

describe('trackConfig: the sample', () => {
  it('config/samples/tracked-config-app.yaml holds a ConfigMap and a valid App that tracks it', () => {
    const docs = parseAllDocuments(readFileSync(new URL('../../../config/samples/tracked-config-app.yaml', import.meta.url), 'utf8')).map((d) => d.toJSON());
    assert.deepEqual(docs.map((d) => d.kind), ['ConfigMap', 'App']);
    const sample = docs[1];
    assert.deepEqual(validateApp(withDefaults(sample)).errors, []);
    assert.equal(sample.spec.rollout.trackConfig, true);
    const refs = configReferences(renderPodTemplate(defaultedAppFixture({ spec: sample.spec }), 'stable').template);
    assert.deepEqual(refs.map((r) => `${r.kind}/${r.name}`), [`configMap/${docs[0].metadata.name}`]);
  });
});

/** A logger that keeps what it was told, as the controller's log would show it. */
function keptLog(): { lines: { object: string; msg: string }[]; log: Pick<Logger, 'info'> } {
  const lines: { object: string; msg: string }[] = [];
  // pino's info is overloaded; the copies call only its (fields, message) form.
  const info = (fields: { object: string }, msg: string) => void lines.push({ object: fields.object, msg });
  return { lines, log: { info } as unknown as Pick<Logger, 'info'> };
}

describe('trackConfig: creating copies', () => {
  it('logs each copy it creates, as the owned objects\' creations are logged (and records its Event)', async () => {
    const app = defaultedAppFixture({ metadata: { uid: 'u1' } });
    const copy = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg-abc', namespace: 'shop' } };
    const clients = { api: { create: async () => copy } } as unknown as ApplyClients;
    const kept = keptLog();
    const events: string[] = [];
    const event = (_app: unknown, _type: string, reason: string, message: string) => void events.push(`${reason}: ${message}`);
    const out = await ensureCopies({ clients, events: { event }, log: kept.log }, app, [copy], () => undefined);
    assert.deepEqual(out, { errors: [], conflicts: [] });
    assert.deepEqual(kept.lines, [{ object: 'ConfigMap shop/cfg-abc', msg: 'created' }]);
    assert.deepEqual(events, ['Created: Created ConfigMap shop/cfg-abc']);
  });

  it('a copy whose name is taken but cannot be read is an error to retry, not a conflict someone must resolve', async () => {
    const app = defaultedAppFixture({ metadata: { uid: 'u1' } });
    const copy = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg-abc', namespace: 'shop' } };
    const conflict = Object.assign(new Error('already exists'), { code: 409, statusCode: 409 });
    const clients = {
      api: {
        create: async () => { throw conflict; },
        read: async () => { throw Object.assign(new Error('etcdserver: request timed out'), { code: 500, statusCode: 500 }); },
      },
    } as unknown as ApplyClients;
    const out = await ensureCopies({ clients, events: { event: () => {} } }, app, [copy], () => undefined);
    assert.deepEqual(out.conflicts, []);
    assert.equal(out.errors.length, 1);
    assert.match(out.errors[0], /ConfigMap shop\/cfg-abc/);
    assert.match(out.errors[0], /request timed out/);
  });
});

describe('trackConfig: deleting copies', () => {
  it('leaves nothing behind in the read-your-writes expectations: no pass ever looks a copy up there, so an entry per pruned copy would only pile up', async () => {
    const app = defaultedAppFixture({ metadata: { uid: 'u1' } });
    const copy = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg-abc', namespace: 'shop', uid: 'c1', ownerReferences: [ownerReference(app)] } };
    const deleted: string[] = [];
    const expectations = new Expectations();
    const clients = { api: { delete: async (ref: { name: string }) => void deleted.push(ref.name) }, expectations } as unknown as ApplyClients;
    const kept = keptLog();
    const out = await deleteCopies({ clients, events: { event: () => {} }, log: kept.log }, app, [copy]);
    assert.deepEqual(out, { errors: [], conflicts: [] });
    assert.deepEqual(deleted, ['cfg-abc']);
    assert.deepEqual(kept.lines, [{ object: 'ConfigMap shop/cfg-abc', msg: 'deleted' }], 'logged as the owned objects\' deletions are');
    assert.equal(expectations.size, 0);
  });
});
