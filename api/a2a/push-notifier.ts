/**
 * Posts A2A task state changes to the webhooks clients gave (`CreateTaskPushNotificationConfig`, docs/a2a.md, "Push
 * notifications"): every api replica reads the stored configs each round, reads each task's state, and claims each
 * change with a conditional update, so a change is posted once by one replica; a task's configs go once its final
 * state is posted. Each post is a StreamResponse `{"task": …}`, signed as `reply_to` is (Standard Webhooks with
 * CALLER_WEBHOOK_SECRET), with the config's token (`X-A2A-Notification-Token`) and authentication, only where the
 * endpoint policy allows (checked again at every post, and by the guarded fetch on connect).
 */
import type { Logger } from 'pino';
import { isTerminal, type MessageStatus } from '../../messages/message';
import type { MessageService } from '../../messages/message-service';
import { drainCapped, IGNORED_ANSWER_MAX_BYTES } from '../../platform/capped-body';
import { checkEndpoint, type EndpointPolicy } from '../../rules/endpoint-policy';
import { signatureHeaders } from '../../rules/signing';
import type { PushConfig, PushConfigStore } from '../../store/a2a-push-configs';
import { PUSH_TOKEN_HEADER } from '../../rules/a2a-push';
import { TASK_STATE_OF, taskOf } from './task';

/** Configs one round looks at; the rest wait for the next round (oldest first). */
const CONFIGS_PER_ROUND = 500;
/** How long one post may take. */
const POST_TIMEOUT_MS = 10_000;

export interface PushNotifierDeps {
  store: PushConfigStore;
  messages: Pick<MessageService, 'get'>;
  fetch: typeof fetch;
  policy: EndpointPolicy;
  /** CALLER_WEBHOOK_SECRET: without it no config is taken, so none is here. */
  secret: string;
  logger: Logger;
  now?: () => number;
}

/** The `webhook-id` of one post: the same on a retry of that change, another for the next change. */
export function pushWebhookId(config: Pick<PushConfig, 'task_id' | 'config_id'>, state: string): string {
  return `${config.task_id}/a2a-push/${config.config_id}/${state}`;
}

async function post(deps: PushNotifierDeps, config: PushConfig, status: MessageStatus, state: string): Promise<void> {
  const verdict = await checkEndpoint(config.url, deps.policy);
  if (!verdict.allowed) throw new Error(`the webhook is not allowed: ${verdict.reason}`);
  const body = JSON.stringify({ task: taskOf(status) });
  const response = await deps.fetch(config.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'agent-reach',
      ...(config.token ? { [PUSH_TOKEN_HEADER]: config.token } : {}),
      ...(config.authentication
        ? { authorization: `${config.authentication.scheme} ${config.authentication.credentials}` }
        : {}),
      ...signatureHeaders([deps.secret], pushWebhookId(config, state), new Date((deps.now ?? Date.now)()), body),
    },
    body,
    signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    redirect: 'manual',
  });
  await drainCapped(response, IGNORED_ANSWER_MAX_BYTES);
  if (response.status < 200 || response.status > 299) throw new Error(`the webhook answered HTTP ${response.status}`);
}

/** One round: every waiting config whose task changed state since its last post gets the task now. */
export async function notifyChanges(deps: PushNotifierDeps): Promise<number> {
  const configs = await deps.store.waiting(CONFIGS_PER_ROUND);
  const statuses = new Map<string, Promise<MessageStatus | undefined>>();
  let posted = 0;
  for (const config of configs) {
    const key = `${config.tenant}/${config.task_id}`;
    if (!statuses.has(key))
      statuses.set(
        key,
        deps.messages.get(config.tenant, config.task_id).catch(() => undefined),
      );
    const status = await statuses.get(key);
    if (!status) continue; // unreadable now (no worker answers): the next round
    const state = TASK_STATE_OF[status.state];
    const ended = isTerminal(status.state);
    if (config.last_state === state) {
      if (ended) await deps.store.forget(config);
      continue;
    }
    if (!(await deps.store.claim(config, config.last_state, state))) continue;
    try {
      await post(deps, config, status, state);
      posted++;
      await (ended ? deps.store.forget(config) : deps.store.posted(config));
    } catch (error) {
      deps.logger.warn(
        { task_id: config.task_id, config_id: config.config_id, state, err: error },
        'A2A push notification failed; it is posted again next round',
      );
      await deps.store.failed(config, state);
    }
  }
  return posted;
}

/** Runs a round every `intervalMs` (never two at once); returns the stop, which waits for the round under way. */
export function startPushNotifier(deps: PushNotifierDeps, intervalMs: number): () => Promise<void> {
  let stopped = false;
  let round: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    timer = setTimeout(() => {
      round = notifyChanges(deps)
        .then(
          () => undefined,
          (error: unknown) => deps.logger.warn({ err: error }, 'A2A push notification round failed'),
        )
        .finally(() => {
          if (!stopped) next();
        });
    }, intervalMs);
    timer.unref();
  };
  next();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await round;
  };
}
