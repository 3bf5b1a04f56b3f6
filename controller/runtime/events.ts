// core/v1 Events on the App, for `kubectl describe app`. Like client-go's event correlator, an
// Event repeated within a window (same App, type, reason and message) bumps count and
// lastTimestamp of the Event already written instead of adding one per reconcile. Recording is
// best effort: a failure to write an Event is logged and never fails a reconcile.
import type { CoreV1Event } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';
import type { Logger } from '../../shared/logger.js';
import { boundedText } from '../../shared/text.js';
import { metaTime } from '../../shared/time.js';
import { describeError, namespaceTerminating, statusCode } from './api-errors.js';
import type { ApiClient, PatchOptions } from './api-client.js';

export const EVENT_SOURCE_COMPONENT = 'skiff-controller';
export const REPORTING_CONTROLLER = 'skiff.dev/controller';

export type EventType = 'Normal' | 'Warning';

interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
  lastMs: number;
}

export type Correlation = { action: 'create'; count: 1 } | { action: 'patch'; name: string; count: number; firstTimestamp: string };

/** Remembers recent Events (least recently used evicted first) and says whether a new one repeats one. */
export class EventCorrelator {
  private readonly seen = new Map<string, Seen>();
  constructor(private readonly windowMs = 10 * 60_000, private readonly maxEntries = 4096) {}

  static key(uid: string, type: EventType, reason: string, message: string): string {
    return JSON.stringify([uid, type, reason, message]);
  }

  correlate(key: string, nowMs: number): Correlation {
    const s = this.seen.get(key);
    if (!s || nowMs - s.lastMs > this.windowMs) return { action: 'create', count: 1 };
    return { action: 'patch', name: s.name, count: s.count + 1, firstTimestamp: s.firstTimestamp };
  }

  /** Records that the Event for key now exists as name with count. */
  observe(key: string, e: { name: string; namespace: string; count: number; firstTimestamp: string }, nowMs: number): void {
    this.seen.delete(key);
    this.seen.set(key, { ...e, lastMs: nowMs });
    while (this.seen.size > this.maxEntries) this.seen.delete(this.seen.keys().next().value!);
  }

  forget(key: string): void {
    this.seen.delete(key);
  }
}

export interface EventRecorder {
  /** Fire and forget. */
  event(app: App, type: EventType, reason: string, message: string): void;
  /** Resolves when every Event recorded so far has been written (or failed). */
  flush(): Promise<void>;
}

const eventTime = (ms: number) => metaTime(new Date(ms));

/** What a reconcile step may do with Events: record one. */
export type EventSink = Pick<EventRecorder, 'event'>;

/** The longest message a batch makes; past it, the list ends with "and N more". */
export const BATCH_MESSAGE_LIMIT = 1024;

/**
 * The longest Event message written, in bytes: what Kubernetes allows the note of an
 * events.k8s.io/v1 Event. A core/v1 Event takes more, but a message quoting outside text (a
 * Prometheus error, an API server's message) has no size of its own; past it, it is cut.
 */
export const EVENT_MESSAGE_BYTES = 1024;

/**
 * The Events of one reconcile pass, written together at its end: those with the same App, type
 * and reason become one Event listing each message ("Created Deployment ns/web; Created
 * Service ns/web"). `kubectl describe` shows the same facts, and a new App costs one Event
 * write instead of one per object.
 */
export class EventBatch implements EventSink {
  private readonly groups = new Map<string, { app: App; type: EventType; reason: string; messages: string[] }>();

  event(app: App, type: EventType, reason: string, message: string): void {
    const key = JSON.stringify([app.metadata.uid ?? `${app.metadata.namespace}/${app.metadata.name}`, type, reason]);
    const group = this.groups.get(key);
    if (!group) this.groups.set(key, { app, type, reason, messages: [message] });
    else if (!group.messages.includes(message)) group.messages.push(message);
  }

  /** Hands every batched Event to `recorder`, in the order first recorded, and empties the batch. */
  sendTo(recorder: EventSink): void {
    for (const { app, type, reason, messages } of this.groups.values()) recorder.event(app, type, reason, joinMessages(messages));
    this.groups.clear();
  }
}

export function joinMessages(messages: readonly string[]): string {
  let out = messages[0];
  for (let i = 1; i < messages.length; i++) {
    const more = `; ${messages[i]}`;
    const rest = messages.length - i;
    if (out.length + more.length > BATCH_MESSAGE_LIMIT - 20) return `${out}; and ${rest} more`;
    out += more;
  }
  return out;
}

const MERGE_PATCH: PatchOptions = { type: 'merge' };
const EVENT = { apiVersion: 'v1', kind: 'Event' } as const;

/**
 * Events waiting to be written at most; newer ones are dropped while that many wait (client-go's
 * broadcaster keeps 1,000 and drops as well): an API server that is slow to take Events must not
 * grow the controller's memory, nor have it write a backlog of stale Events later.
 */
export const MAX_QUEUED_EVENTS = 1000;

export function createEventRecorder(api: Pick<ApiClient, 'create' | 'patch'>, opts: { instance: string; log: Logger; correlator?: EventCorrelator; nowMs?: () => number; maxQueued?: number }): EventRecorder {
  const correlator = opts.correlator ?? new EventCorrelator();
  const nowMs = opts.nowMs ?? Date.now;
  const maxQueued = opts.maxQueued ?? MAX_QUEUED_EVENTS;
  // Events are written one after another so that a repeat finds the Event just created.
  let chain: Promise<void> = Promise.resolve();
  let queued = 0;
  let dropped = 0;

  async function write(app: App, type: EventType, reason: string, message: string): Promise<void> {
    const namespace = app.metadata.namespace!;
    const key = EventCorrelator.key(app.metadata.uid ?? '', type, reason, message);
    const now = nowMs();
    const c = correlator.correlate(key, now);
    if (c.action === 'patch') {
      try {
        await api.patch({ ...EVENT, namespace, name: c.name }, { count: c.count, lastTimestamp: eventTime(now) }, MERGE_PATCH);
        correlator.observe(key, { name: c.name, namespace, count: c.count, firstTimestamp: c.firstTimestamp }, now);
        return;
      } catch (err) {
        // The Event expired or was deleted: write a new one.
        if (statusCode(err) !== 404) throw err;
      }
    }
    const name = `${app.metadata.name}.${(BigInt(now) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000))).toString(16)}`;
    const body: CoreV1Event = {
      ...EVENT,
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: app.apiVersion,
        kind: app.kind,
        name: app.metadata.name,
        namespace,
        uid: app.metadata.uid,
        resourceVersion: app.metadata.resourceVersion,
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: new Date(eventTime(now)),
      lastTimestamp: new Date(eventTime(now)),
      source: { component: EVENT_SOURCE_COMPONENT },
      reportingComponent: REPORTING_CONTROLLER,
      reportingInstance: opts.instance,
    };
    await api.create(body);
    correlator.observe(key, { name, namespace, count: 1, firstTimestamp: eventTime(now) }, now);
  }

  return {
    event(app, type, reason, message) {
      if (queued >= maxQueued) {
        if (dropped++ === 0) opts.log.warn({ queued }, 'Events are not being written as fast as they come; dropping new ones until the queue drains');
        return;
      }
      queued++;
      const bounded = boundedText(message, EVENT_MESSAGE_BYTES);
      chain = chain.then(() =>
        write(app, type, reason, bounded).catch((err: unknown) =>
          // In a namespace being deleted no Event can be made: no warning for each one.
          opts.log[namespaceTerminating(err) ? 'debug' : 'warn']({ app: `${app.metadata.namespace}/${app.metadata.name}`, reason, err: describeError(err) }, 'could not record an Event'),
        ),
      ).then(() => {
        queued--;
        if (queued === 0 && dropped > 0) {
          opts.log.warn({ dropped }, 'Events dropped while the queue was full');
          dropped = 0;
        }
      });
    },
    flush: () => chain,
  };
}
