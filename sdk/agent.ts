/**
 * The Agent-Reach agent SDK: register (or reuse an identity), heartbeat with jitter, receive deliveries over HTTP
 * (plain Node or Express) or WebSocket, verify the gateway's signature, de-duplicate by message id with a
 * persistent store, answer inline or send the receipt with retries, and drain on SIGTERM.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import { Webhook } from 'standardwebhooks';
import WebSocket from 'ws';
import type { DeliveryEnvelope } from '../protocol/envelope';
import type { AckFrame, DeliveryFrame, SentAckFrame } from '../protocol/frames';
import { REACH_EVENT_HEADER } from '../protocol/headers';
import type { CallbackBody } from '../protocol/receipt';
import type { Answer as TurnAnswer, Question } from '../protocol/turns';
import {
  FileStore,
  MemoryStore,
  type HandledMessage,
  type IdempotencyStore,
  type StoreWindow,
} from './idempotency-store';

/** A message delivered to this agent: the gateway's delivery envelope (protocol/envelope.ts). */
export type Delivery = DeliveryEnvelope;

/**
 * Does the work; its return value is the result. Throw to report a failure (`retryable: true` on the error asks for
 * a redelivery), a `MisroutedError` when the message is not for this capability, or an `InputRequiredError` to ask
 * the caller for more: the same message comes back as the next turn (`delivery.turn`) with the caller's reply at the
 * end of `delivery.history`.
 */
export type Handler = (delivery: Delivery) => unknown;

/**
 * Thrown by a handler that did nothing because the message is not for its capability: the gateway sends a message
 * routed by its intent to the router's next choice (never back here), and ends one sent here by name `misrouted`.
 */
export class MisroutedError extends Error {
  constructor(message = 'this message is not for this capability') {
    super(message);
    this.name = 'MisroutedError';
  }
}

/**
 * Thrown by a handler that needs more from the caller: the message waits for the caller's reply (state
 * `input_required`), then is delivered again as the next turn, with the conversation in `delivery.history` and the
 * reply's params merged into `delivery.params`. `schema` (JSON Schema) says what data the agent wants, if it says.
 */
export class InputRequiredError extends Error {
  /** Several questions asked at once, by key (see `several`). */
  questions?: Record<string, Question>;

  constructor(
    message: string,
    readonly schema?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'InputRequiredError';
  }

  /**
   * Asks several questions at once (at most MAX_QUESTIONS), each under its key; `message` says what they are for. The
   * caller may answer them in one reply or several; the next turn comes once every one is answered, with the answers
   * by key in `answersOf(delivery)` and their params merged into `delivery.params` (in the order of the questions).
   */
  static several(message: string, questions: Record<string, Question>): InputRequiredError {
    const error = new InputRequiredError(message);
    error.questions = questions;
    return error;
  }
}

/** On a follow-up turn after several questions: the caller's answers by question key (else undefined). */
export function answersOf(delivery: Delivery): Record<string, TurnAnswer> | undefined {
  const last = delivery.history?.at(-1);
  return last?.role === 'caller' ? last.answers : undefined;
}

/** What the agent answers or reports for a message: an outcome of work (kept for redeliveries), or that it is not for it (kept by nobody). */
export type Answer = HandledMessage | { status: 'misrouted'; error: { message: string } };

export interface AgentCard {
  name: string;
  version?: string;
  description?: string;
  tags?: string[];
  capabilities: {
    name: string;
    description?: string;
    tags?: string[];
    parameters?: object;
    /** JSON Schema of its result: chains check the pointers that read it (docs/chains.md). */
    returns?: object;
    examples?: string[];
    counter_examples?: string[];
    ack_timeout_ms?: number;
    /** Who may send to it: callers holding one of `scopes`, API keys `key_ids`, token subjects `subjects`, token callers in `groups`. */
    acl?: { scopes?: string[]; key_ids?: string[]; subjects?: string[]; groups?: string[] };
    /** Kept off the agent's public A2A card (docs/a2a.md). */
    private?: boolean;
  }[];
}

export interface ReachAgentOptions {
  /** Base URL of the Agent-Reach api. */
  gateway: string;
  /**
   * An API key with the `register` scope (`rk_…`), for the first registration; later ones use the saved identity's
   * secret. @default $REACH_API_KEY
   */
  apiKey?: string;
  card: AgentCard;
  /** This instance's HTTP endpoint; omit for WebSocket mode. */
  endpoint?: string;
  /** @default "i1" */
  instanceId?: string;
  /** Where the identity (agent_id, secret, signing secret) is kept, so a restart reuses it. */
  identityFile?: string;
  /** @default a FileStore beside the identity file, else in memory */
  store?: IdempotencyStore;
  /** How many handled ids, and for how long, the default store keeps. @default 100000 ids, 30 days */
  handledWindow?: StoreWindow;
  /** Answer with the result inline when the handler finishes within this time, in ms. @default 2000 */
  inlineMs?: number;
  /** Called after a message is handled and remembered, before its receipt is sent. */
  onHandled?: (messageId: string, outcome: HandledMessage) => void;
  /**
   * WebSocket mode: the delay before reconnecting doubles from `initialMs` up to `maxMs` while the gateway cannot be
   * reached (each with ±20 % jitter), and starts over once connected. @default { initialMs: 1000, maxMs: 30000 }
   */
  reconnect?: { initialMs?: number; maxMs?: number };
  /** Where connection problems are reported. @default console.warn */
  onError?: (error: Error) => void;
}

interface Identity {
  agent_id: string;
  secret: string;
  signing_secret: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ReachAgent {
  identity?: Identity;
  private readonly store: IdempotencyStore;
  private readonly inFlight = new Set<string>();
  private state: 'healthy' | 'draining' = 'healthy';
  private heartbeatTimer?: NodeJS.Timeout;
  private reconnectAttempts = 0;

  constructor(private readonly options: ReachAgentOptions) {
    const file = options.identityFile;
    this.store =
      options.store ??
      (file ? new FileStore(`${file}.handled.jsonl`, options.handledWindow) : new MemoryStore(options.handledWindow));
    if (file && existsSync(file)) this.identity = JSON.parse(readFileSync(file, 'utf8')) as Identity;
  }

  private get instanceId(): string {
    return this.options.instanceId ?? 'i1';
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    credential = this.identity?.secret,
  ): Promise<Response> {
    return fetch(`${this.options.gateway}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /**
   * Registers the card with the API key, or re-registers under the saved identity (same agent id, new card); if the
   * saved identity is refused (e.g. the card's name changed), registers anew with the API key.
   */
  async register(): Promise<Identity> {
    const instances = this.options.endpoint
      ? [{ instance_id: this.instanceId, endpoint: this.options.endpoint }]
      : [{ instance_id: this.instanceId, transport: 'websocket' }];
    const card = { ...this.options.card, instances };
    const apiKey = this.options.apiKey ?? process.env.REACH_API_KEY;
    let response = await this.call('POST', '/v1/agents', card, this.identity?.secret ?? apiKey);
    if (this.identity && apiKey && (response.status === 401 || response.status === 403)) {
      response = await this.call('POST', '/v1/agents', card, apiKey);
    }
    const body = (await response.json()) as {
      agent_id?: string;
      secret?: string;
      signing_secret?: string;
      error?: { message: string };
    };
    if (!response.ok) throw new Error(`registration failed: ${response.status} ${body.error?.message ?? ''}`);
    if (body.secret && body.signing_secret)
      this.identity = { agent_id: body.agent_id!, secret: body.secret, signing_secret: body.signing_secret };
    if (this.options.identityFile && this.identity) {
      mkdirSync(dirname(this.options.identityFile), { recursive: true });
      writeFileSync(this.options.identityFile, JSON.stringify(this.identity), { mode: 0o600 });
    }
    return this.identity!;
  }

  /** Beats every interval the gateway asks for, ±10 % jitter so a fleet does not beat in step. */
  startHeartbeats(intervalMs = 10_000): void {
    const beat = async () => {
      await this.call('POST', `/v1/agents/${this.identity!.agent_id}/heartbeat`, {
        instance_id: this.instanceId,
        state: this.state,
        load: { in_flight: this.inFlight.size },
      }).catch(() => undefined);
      this.heartbeatTimer = setTimeout(() => void beat(), intervalMs * (0.9 + Math.random() * 0.2));
      this.heartbeatTimer.unref();
    };
    void beat();
  }

  /**
   * Runs the handler once per delivery key (the message id, or `<message_id>:turn-<n>` for a follow-up turn); a
   * repeat gets the remembered outcome.
   */
  private async handle(
    delivery: Delivery,
    handler: Handler,
  ): Promise<{ inline?: Answer; duplicate?: HandledMessage | 'in_progress' }> {
    const key = delivery.delivery_key ?? delivery.message_id;
    const known = this.store.get(key);
    if (known) return { duplicate: known };
    if (this.inFlight.has(key)) return { duplicate: 'in_progress' };
    this.inFlight.add(key);
    const work = (async (): Promise<Answer> => {
      try {
        return { status: 'processed', result: (await handler(delivery)) ?? null };
      } catch (error) {
        if (error instanceof MisroutedError) return { status: 'misrouted', error: { message: error.message } };
        if (error instanceof InputRequiredError)
          return {
            status: 'input_required',
            input: {
              message: error.message,
              ...(error.schema ? { schema: error.schema } : {}),
              ...(error.questions ? { questions: error.questions } : {}),
            },
          };
        const e = error as Error & { code?: string; retryable?: boolean };
        return {
          status: 'failed',
          error: {
            message: e.message,
            ...(e.code ? { code: e.code } : {}),
            ...(e.retryable ? { retryable: true } : {}),
          },
        };
      }
    })().then((outcome) => {
      this.inFlight.delete(key);
      // A misroute is no outcome of work: the same message id may come back for another capability of this agent.
      if (outcome.status !== 'misrouted') {
        if (!outcome.error?.retryable) this.store.set(key, outcome);
        this.options.onHandled?.(delivery.message_id, outcome);
      }
      return outcome;
    });
    const inline = await Promise.race([work, sleep(this.options.inlineMs ?? 2_000).then(() => undefined)]);
    if (inline) return { inline };
    void work.then((outcome) => this.sendReceipt(delivery.message_id, outcome, delivery.turn));
    return {};
  }

  /** Posts the receipt (for the delivery's turn), retrying network errors and 5xx up to 6 times (1 s, 2 s, 4 s…). */
  async sendReceipt(messageId: string, outcome: Answer, turn?: number): Promise<void> {
    for (let attempt = 0; attempt < 6; attempt++) {
      const receipt: CallbackBody = { message_id: messageId, ...(turn && turn > 1 ? { turn } : {}), ...outcome };
      const response = await this.call('POST', '/v1/callback', receipt).catch(() => undefined);
      if (response && response.status < 500) return;
      await sleep(1000 * 2 ** attempt);
    }
  }

  /** A plain Node request handler for deliveries (also usable as an Express route; mount it before any body parser). */
  httpHandler(handler: Handler) {
    return (req: IncomingMessage, res: ServerResponse): void => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const reply = (status: number, body?: unknown) =>
          res
            .writeHead(status, { 'content-type': 'application/json' })
            .end(body === undefined ? '' : JSON.stringify(body));
        const raw = Buffer.concat(chunks).toString('utf8');
        try {
          new Webhook(this.identity!.signing_secret).verify(raw, req.headers as Record<string, string>);
        } catch {
          return reply(401, { error: { message: 'invalid signature' } });
        }
        if (req.headers[REACH_EVENT_HEADER] === 'cancelled') return reply(200, { status: 'ok' });
        if (this.state === 'draining') return reply(503, { error: { message: 'draining' } });
        const delivery = parseFrame(raw) as Delivery | undefined;
        if (!delivery) return reply(400, { error: { message: 'the delivery is not a JSON object' } });
        this.handle(delivery, handler).then(
          ({ inline, duplicate }) => {
            if (duplicate === 'in_progress') return reply(409, { status: 'duplicate' });
            if (duplicate)
              return duplicate.status === 'processed'
                ? reply(409, { status: 'duplicate', result: duplicate.result })
                : reply(200, duplicate);
            if (inline) return reply(200, inline);
            reply(202);
          },
          () => reply(500),
        );
      });
    };
  }

  /**
   * WebSocket mode: connects out to the gateway and handles deliveries there; reconnects with backoff when dropped or
   * when the gateway cannot be reached. Returns the first socket.
   */
  connectWebSocket(handler: Handler): WebSocket {
    const url = `${this.options.gateway.replace(/^http/, 'ws')}/v1/agents/${this.identity!.agent_id}/ws?instance_id=${this.instanceId}`;
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${this.identity!.secret}` } });
    // Without a listener, a refused connection or a bad frame would throw out of the agent's process.
    socket.on('error', (error) => this.reportError(error));
    socket.on('open', () => {
      this.reconnectAttempts = 0;
    });
    socket.on('message', (data, isBinary) => {
      const received = isBinary ? undefined : parseFrame(data.toString());
      if (received?.type !== 'delivery') return;
      const frame = received as DeliveryFrame;
      this.handle(frame, handler).then(
        ({ inline, duplicate }) => {
          const ack: AckFrame =
            duplicate === 'in_progress'
              ? { status: 'duplicate' }
              : duplicate
                ? duplicate.status === 'processed'
                  ? { status: 'duplicate', result: duplicate.result }
                  : duplicate
                : (inline ?? { status: 'accepted' });
          const sent: SentAckFrame = { type: 'ack', message_id: frame.message_id, attempt: frame.attempt, ...ack };
          socket.send(JSON.stringify(sent));
        },
        (error: Error) => this.reportError(error),
      );
    });
    socket.on('close', () => {
      if (this.state === 'draining') return;
      setTimeout(() => this.connectWebSocket(handler), this.reconnectDelay()).unref();
    });
    return socket;
  }

  /** 1 s, 2 s, 4 s… up to 30 s (configurable), ±20 % so a fleet does not reconnect in step. */
  private reconnectDelay(): number {
    const initial = this.options.reconnect?.initialMs ?? 1_000;
    const max = this.options.reconnect?.maxMs ?? 30_000;
    const delay = Math.min(max, initial * 2 ** Math.min(this.reconnectAttempts, 30));
    this.reconnectAttempts += 1;
    return delay * (0.8 + Math.random() * 0.4);
  }

  private reportError(error: Error): void {
    (this.options.onError ?? ((e: Error) => console.warn(`agent-reach: ${e.message}`)))(error);
  }

  /** Graceful stop: report draining, finish in-flight work, then stop heartbeating (the gateway marks it offline). */
  async drain(timeoutMs = 30_000): Promise<void> {
    this.state = 'draining';
    await this.call('POST', `/v1/agents/${this.identity!.agent_id}/heartbeat`, {
      instance_id: this.instanceId,
      state: 'draining',
    }).catch(() => undefined);
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) await sleep(50);
    clearTimeout(this.heartbeatTimer);
  }

  /** Drains on SIGTERM, then exits. */
  drainOnSigterm(): void {
    process.once('SIGTERM', () => void this.drain().then(() => process.exit(0)));
  }
}

/** A gateway frame, or undefined when it is not a JSON object. */
function parseFrame(text: string): { type?: unknown } | undefined {
  try {
    const frame = JSON.parse(text) as unknown;
    return frame !== null && typeof frame === 'object' ? (frame as { type?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}
