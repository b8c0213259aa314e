/**
 * Where 2026-07-28 `subscriptions/listen` streams get their change events. The v2 SDK serves the streams (the
 * acknowledgement first, the client's filter, the subscription id on every notification, keepalives, the close) and
 * takes their events from a bus; its own in-process bus would tell every stream of every key about any change. This
 * one tells a stream only of its own lists: a listen request is served inside `listening(…)`, so the subscription
 * the SDK makes while serving it becomes a follower of the catalogue (list-watch.ts) for that key and view.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { ListFingerprints, ListKind, ListWatch } from './list-watch';
import type { SessionOptions } from './server';

/** The stream being opened: whose lists, as the client last saw them. */
export interface Listening {
  options: SessionOptions;
  fingerprints: ListFingerprints;
}

const EVENTS: Record<ListKind, ServerEvent> = {
  tools: { kind: 'tools_list_changed' },
  prompts: { kind: 'prompts_list_changed' },
  resources: { kind: 'resources_list_changed' },
};

export class ListenBus implements ServerEventBus {
  private readonly opening = new AsyncLocalStorage<Listening>();
  private readonly listeners = new Set<(event: ServerEvent) => void>();

  constructor(
    private readonly watch: ListWatch,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** Serves a listen request (`serve`): the stream it opens is told when the lists of `listening` change. */
  listening<T>(listening: Listening, serve: () => Promise<T>): Promise<T> {
    return this.opening.run(listening, serve);
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    const listening = this.opening.getStore();
    if (!listening) {
      this.logger.warn('MCP subscriptions/listen stream opened outside a listen request: it is told nothing');
      return () => undefined;
    }
    this.listeners.add(listener);
    const unfollow = this.watch.follow({
      options: listening.options,
      fingerprints: { ...listening.fingerprints },
      changed: (kind) => listener(EVENTS[kind]),
    });
    return () => {
      this.listeners.delete(listener);
      unfollow();
    };
  }

  /** Tells every open stream (the bus's contract; the gateway's own changes go to each stream's follower instead). */
  publish(event: ServerEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
