// The controller's own validation of an App before it acts on it. The webhook never sees some
// Apps: those in a namespace its namespaceSelector leaves out (kube-system, skiff-system), those
// written while it was not installed, those stored before a rule existed. Such an App is held to
// the same rules here, through the same functions the webhook's /validate calls, so that one with
// securityContext.privileged: true renders nothing anywhere.
//
// An invalid App renders nothing: no owned object is created, updated or deleted. Objects it
// already owns are left as they are, since removing them would take down whatever the App last
// ran; they follow again once the spec is fixed. Its status says so (Degraded=True, InvalidSpec,
// with the webhook's message), written once, with one Warning Event.
//
// Validation costs a schema pass over the whole App: its verdict is kept per App by uid and
// generation (the API server moves the generation on every spec change), so a resync of 1,000
// unchanged Apps validates none of them again.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { App, AppStatus } from '../../shared/app-types.js';
import { withDefaults } from '../../shared/defaults.js';
import type { Logger } from '../../shared/logger.js';
import { boundedText, CONDITION_MESSAGE_BYTES } from '../../shared/text.js';
import { formatErrors, validateApp, type ValidationOptions } from '../../shared/validation.js';
import { writeStatus, type AppClients } from '../apply/app-writes.js';
import { appRef } from './freshness.js';
import { progressingHoldsAbort } from '../canary/types.js';
import { findCondition, setConditions } from '../state/conditions.js';
import type { Expectations } from '../runtime/expectations.js';
import type { EventSink } from '../runtime/events.js';

export const INVALID_SPEC = 'InvalidSpec';

/**
 * Why the App may not be acted on, in the words the webhook would deny it with; undefined when
 * it is valid. The App is checked as the webhook sees it: defaulted (as the mutating webhook
 * would have), without its status (the controller's own writing, not the author's).
 */
export function specProblems(app: App, options: ValidationOptions = {}): string | undefined {
  const { status: _status, ...written } = app;
  const { errors } = validateApp(withDefaults(written), options);
  return errors.length > 0 ? formatErrors(errors) : undefined;
}

interface Verdict {
  uid: string | undefined;
  generation: number | undefined;
  problems: string | undefined;
}

/** The verdict of `validate` on each App (by key), kept until its uid or generation changes. */
export class SpecVerdicts {
  private readonly verdicts = new Map<string, Verdict>();
  constructor(private readonly validate: (app: App) => string | undefined = specProblems) {}

  /** The App's problems (see specProblems), validating it only when its uid or generation is new. */
  problems(key: string, app: App): string | undefined {
    const { uid, generation } = app.metadata;
    const known = this.verdicts.get(key);
    if (known && known.uid === uid && known.generation === generation) return known.problems;
    let problems: string | undefined;
    try {
      problems = this.validate(app);
    } catch (err) {
      // Whatever breaks validation (an App too large to check) does not get the App acted on.
      problems = `could not be validated: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (problems !== undefined) problems = boundedText(problems, CONDITION_MESSAGE_BYTES);
    this.verdicts.set(key, { uid, generation, problems });
    return problems;
  }

  /** The App is gone. */
  forget(key: string): void {
    this.verdicts.delete(key);
  }

  get size(): number {
    return this.verdicts.size;
  }
}

/** The status of an App that is not acted on: its conditions say why; the rest stays as it was. */
export function invalidSpecStatus(app: App, problems: string, now: Date): AppStatus {
  const previous = app.status ?? {};
  const generation = app.metadata.generation;
  return {
    ...previous,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: setConditions(previous.conditions, [
      { type: 'Ready', status: 'False', reason: INVALID_SPEC, message: 'the spec is invalid (see Degraded): nothing is rendered for it, and the objects the App owns are left as they are' },
      ...(progressingHoldsAbort(previous.conditions) ? [] : [{ type: 'Progressing', status: 'False' as const, reason: INVALID_SPEC, message: 'no rollout until the spec is fixed' }]),
      { type: 'Degraded', status: 'True', reason: INVALID_SPEC, message: problems },
    ], generation, now),
  };
}

export interface SpecGateDeps {
  clients: AppClients;
  events: EventSink;
  log: Logger;
  /** Verdicts kept across reconciles; without it, every pass validates. */
  specVerdicts?: SpecVerdicts;
  /** Where the status write is recorded, so that the next pass waits for the cache to show it. */
  expectations?: Expectations;
  now?: () => Date;
}

/**
 * Resolves with true when the App is invalid and must not be acted on, after recording that in
 * its status (only when the status says otherwise so far, so a repeated pass writes nothing).
 */
export async function refuseInvalidSpec(key: string, app: App, deps: SpecGateDeps): Promise<boolean> {
  const problems = (deps.specVerdicts ?? new SpecVerdicts()).problems(key, app);
  if (problems === undefined) return false;
  const status = invalidSpecStatus(app, problems, (deps.now ?? (() => new Date()))());
  const written = await writeStatus(deps.clients, app, status);
  if (written) {
    deps.expectations?.written(appRef(app.metadata.namespace!, app.metadata.name!), written as KubernetesObject);
    const before = findCondition(app.status?.conditions, 'Degraded');
    if (before?.status !== 'True' || before.reason !== INVALID_SPEC || before.message !== problems) {
      deps.events.event(app, 'Warning', INVALID_SPEC, problems);
      deps.log.warn({ app: key, generation: app.metadata.generation, problems }, 'invalid App: not acted on until its spec is fixed');
    }
  }
  return true;
}
