// Apps for unit tests, built in one place: a test names only what it is about (the spec fields,
// the status, an annotation) and everything else is the same App everywhere: web in shop, image
// web:1, no uid or generation unless the test gives them.
import { API_VERSION, KIND, type App, type AppSpec, type AppStatus, type ObjectMeta } from '../../shared/app-types.js';
import { defaulted, type DefaultedApp } from '../../shared/defaults.js';

export interface AppFixture {
  /** Default "web". */
  name?: string;
  /** Default "shop"; null for none, as in a manifest that leaves it to the client. */
  namespace?: string | null;
  annotations?: Record<string, string>;
  /** The rest of the metadata: uid, generation, resourceVersion, labels. */
  metadata?: Omit<ObjectMeta, 'name' | 'namespace' | 'annotations'>;
  /** Fields over { image: "web:1" }. */
  spec?: Partial<AppSpec>;
  status?: AppStatus;
}

function metadataOf(f: Omit<AppFixture, 'spec' | 'status'>): ObjectMeta {
  const namespace = f.namespace === undefined ? 'shop' : f.namespace;
  return {
    name: f.name ?? 'web',
    ...(namespace !== null && { namespace }),
    ...f.metadata,
    ...(f.annotations && { annotations: f.annotations }),
  };
}

/** An App as stored without the webhook: only what the fixture gives. */
export function appFixture(f: AppFixture = {}): App {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: metadataOf(f),
    spec: { image: 'web:1', ...f.spec },
    ...(f.status !== undefined && { status: f.status }),
  };
}

/** The App as the controller works with it: every default filled in. */
export const defaultedAppFixture = (f: AppFixture = {}): DefaultedApp => defaulted(appFixture(f));

/**
 * An App as a client sends it, before the webhook defaults and validates it: the spec exactly as
 * given, of any shape (wrong types included), for the tests of defaulting and admission.
 */
export function appManifest(spec: Record<string, unknown>, f: Omit<AppFixture, 'spec' | 'status'> = {}) {
  return { apiVersion: API_VERSION, kind: KIND, metadata: metadataOf(f), spec };
}
