/**
 * A real A2A agent (server) for the integration tests, built with the official `@a2a-js/sdk` 1.3.0 (A2A v1.0):
 * its `DefaultRequestHandler`, `InMemoryTaskStore` and the express `jsonRpcHandler` / `agentCardHandler`, on
 * express 5. Its twin in Python is test/helpers/a2a_agent.py; both behave the same.
 *
 * Start:  npx tsx test/helpers/a2a-js-agent.ts [--port N] [--name NAME] [--v1-only]
 *         A2A_AGENT_PUSH=1: the card offers push notifications (the SDK then sends them to the configured URL).
 *         A2A_AGENT_REST=1: the card lists the HTTP+JSON binding (served at /rest) first. A2A_AGENT_WORK_MS: an echo's work.
 *         (env A2A_AGENT_PORT, A2A_AGENT_NAME, A2A_AGENT_V1_ONLY=1; port 0 or none picks a free one).
 *         Listens on 127.0.0.1 and, once ready, prints exactly one line on stdout:
 *         {"url": "http://127.0.0.1:PORT", "card_url": "http://127.0.0.1:PORT/.well-known/agent-card.json"}
 *         then runs until SIGTERM/SIGINT. Everything else (the SDK's console output too) goes to stderr.
 *         A test should spawn `node_modules/.bin/tsx` itself: `npx` does not pass SIGTERM on, and its tsx lives on.
 *
 * Serves:
 * - `GET /.well-known/agent-card.json`: the card (name, skills `echo` and `convert_currency`, no streaming, no push),
 *   with two JSONRPC interfaces at the root URL, protocolVersion "1.0" and "0.3". The SDK's card handler shapes the
 *   card by the request's `A2A-Version`: `1.0` gets the pure v1.0 card; no header or `0.3` gets the SDK's hybrid card
 *   (v0.3 fields `url`, `protocolVersion`, `preferredTransport`, ... added). `--v1-only`: one v1.0 interface, always
 *   the v1.0 card, v0.3 methods off.
 * - `POST /`: JSON-RPC, the SDK's transport. v1.0 methods (`SendMessage`, `GetTask`, `CancelTask`, ...) need the header
 *   `A2A-Version: 1.0` (without it the request counts as v0.3); the v0.3 names (`message/send`, `tasks/get`,
 *   `tasks/cancel`) are accepted with no header or `A2A-Version: 0.3` (not with `--v1-only`).
 * - `GET /received` (plain HTTP, not A2A): {"messages": [{"message_id", "text", "data", "context_id", "task_id",
 *   "metadata", "request_metadata"}...], "counts": {message_id: n}, "cancelled": [task_id...]}.
 *
 * Behaviour, chosen per message: the message's metadata `behaviour` if it is one of fail/slow/question/echo, otherwise
 * the first of the words "fail", "slow", "question" found (case-insensitively) in the message's text parts joined:
 * - "fail": submitted → working → `failed`, status message "I cannot do that", no artifact.
 * - "slow": submitted → working, and stays working until CancelTask (→ `canceled`) or 120 s, then completes as echo.
 * - "question": submitted → `input-required`, status message "Which currency?".
 * - "huge": an echo whose artifact also has a text part of 3 MiB (answers past the gateway's read cap).
 * - otherwise (echo): submitted → working → `completed` ~300 ms later, with one artifact `result` of one data part
 *   {"echo": merged data parts (objects merged; null if none), "text": the text, "message_id": the incoming messageId,
 *   "count": how many times that messageId has arrived}. The work runs after SendMessage returned when the request
 *   asked `returnImmediately` (then the answer is the task while it is still submitted).
 */
import { Console } from 'node:console';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import express from 'express';
import type { AgentCard, Message, Part, Task, TaskStatus } from '@a2a-js/sdk' with { 'resolution-mode': 'import' };
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server' with {
  'resolution-mode': 'import',
};

type Sdk = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
type SdkServer = typeof import('@a2a-js/sdk/server', { with: { 'resolution-mode': 'import' } });
type SdkExpress = typeof import('@a2a-js/sdk/server/express', { with: { 'resolution-mode': 'import' } });
/* eslint-disable @typescript-eslint/no-require-imports */
const { Role, TaskState } = require('@a2a-js/sdk') as Sdk;
const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = require('@a2a-js/sdk/server') as SdkServer;
const { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } =
  require('@a2a-js/sdk/server/express') as SdkExpress;
/* eslint-enable @typescript-eslint/no-require-imports */

// stdout carries the one ready line only.
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

const SLOW_MS = 120_000;
/** How long an echo works before it completes (A2A_AGENT_WORK_MS; the benchmark sets it). */
const ECHO_DELAY_MS = Number(process.env.A2A_AGENT_WORK_MS ?? 300);
const BEHAVIOURS = ['fail', 'slow', 'question', 'huge'] as const;
/** The size of a "huge" echo's extra artifact text: past any cap the gateway reads. */
const HUGE_BYTES = 3 * 1024 * 1024;
type Behaviour = (typeof BEHAVIOURS)[number] | 'echo';

function option(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function agentCard(name: string, url: string, v03: boolean): AgentCard {
  const iface = (protocolVersion: string) => ({ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion });
  const jsonRpc = v03 ? [iface('1.0'), iface('0.3')] : [iface('1.0')];
  // A2A_AGENT_REST=1: the HTTP+JSON binding at /rest comes first, so clients that follow the card's order prefer it.
  const rest =
    process.env.A2A_AGENT_REST === '1'
      ? [{ url: `${url}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' }]
      : [];
  return {
    name,
    description: "A test A2A agent (@a2a-js/sdk): echoes, fails, waits or asks, by the message's words.",
    supportedInterfaces: [...rest, ...jsonRpc],
    provider: undefined,
    version: '1.0.0',
    capabilities: {
      streaming: false,
      pushNotifications: process.env.A2A_AGENT_PUSH === '1',
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Echoes the message back',
        tags: ['echo', 'test'],
        examples: ['echo this back'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
      {
        id: 'convert_currency',
        name: 'Currency conversion',
        description: 'Converts an amount between currencies (asks which currency)',
        tags: ['currency', 'conversion', 'finance'],
        examples: ['convert 100 USD, a question: to what?'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

interface Received {
  message_id: string;
  text: string;
  data: unknown;
  context_id: string;
  task_id: string;
  metadata: Record<string, unknown>;
  request_metadata: Record<string, unknown>;
}

/** Every message the agent received, in order, and how often each messageId came. */
class Journal {
  readonly messages: Received[] = [];
  readonly counts: Record<string, number> = {};
  readonly cancelled: string[] = [];

  record(context: RequestContext, text: string, data: unknown): number {
    const message = context.userMessage;
    this.counts[message.messageId] = (this.counts[message.messageId] ?? 0) + 1;
    this.messages.push({
      message_id: message.messageId,
      text,
      data,
      context_id: context.contextId,
      task_id: context.taskId,
      metadata: message.metadata ?? {},
      request_metadata: context.request.metadata ?? {},
    });
    return this.counts[message.messageId]!;
  }

  view() {
    return { messages: this.messages, counts: this.counts, cancelled: this.cancelled };
  }
}

/** [the text parts joined with newlines, the data parts merged: null if none, an object if all are objects]. */
function messageContent(message: Message): [string, unknown] {
  const texts: string[] = [];
  const datas: unknown[] = [];
  for (const part of message.parts) {
    if (part.content?.$case === 'text') texts.push(part.content.value);
    else if (part.content?.$case === 'data') datas.push(part.content.value);
  }
  const isObject = (d: unknown): d is Record<string, unknown> =>
    typeof d === 'object' && d !== null && !Array.isArray(d);
  let data: unknown = null;
  if (datas.length && datas.every(isObject)) data = Object.assign({}, ...datas);
  else if (datas.length) data = datas.length === 1 ? datas[0] : datas;
  return [texts.join('\n'), data];
}

function behaviourOf(message: Message, text: string): Behaviour {
  const chosen: unknown = message.metadata?.behaviour;
  if (chosen === 'echo' || BEHAVIOURS.includes(chosen as (typeof BEHAVIOURS)[number])) return chosen as Behaviour;
  const lowered = text.toLowerCase();
  return BEHAVIOURS.find((word) => lowered.includes(word)) ?? 'echo';
}

const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

class TestAgentExecutor implements AgentExecutor {
  /** The running executions, by task id: aborting one ends its wait without a further event. */
  private readonly running = new Map<string, AbortController>();
  /** Each task's context id, for the `canceled` event. */
  private readonly contextOf = new Map<string, string>();

  constructor(private readonly journal: Journal) {}

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = context;
    const message = context.userMessage;
    const [text, data] = messageContent(message);
    const count = this.journal.record(context, text, data);
    const behaviour = behaviourOf(message, text);
    this.contextOf.set(taskId, contextId);

    const agentMessage = (words: string): Message => ({
      messageId: randomUUID(),
      contextId,
      taskId,
      role: Role.ROLE_AGENT,
      parts: [textPart(words)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    });
    const status = (state: TaskStatus['state'], words?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          metadata: undefined,
          status: {
            state,
            message: words === undefined ? undefined : agentMessage(words),
            timestamp: new Date().toISOString(),
          },
        }),
      );

    // Every execution starts with a task event, a follow-up turn's too (the SDK requires it).
    const task: Task = context.task ?? {
      id: taskId,
      contextId,
      artifacts: [],
      history: [message],
      metadata: undefined,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    };
    bus.publish(AgentEvent.task(task));

    if (behaviour === 'question') return status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which currency?');
    status(TaskState.TASK_STATE_WORKING);
    if (behaviour === 'fail') return status(TaskState.TASK_STATE_FAILED, 'I cannot do that');

    const abort = new AbortController();
    this.running.set(taskId, abort);
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, behaviour === 'slow' ? SLOW_MS : ECHO_DELAY_MS);
        abort.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    } finally {
      this.running.delete(taskId);
    }
    if (abort.signal.aborted) return; // cancelTask published `canceled`
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        append: false,
        lastChunk: true,
        metadata: undefined,
        artifact: {
          artifactId: randomUUID(),
          name: 'result',
          description: '',
          metadata: undefined,
          extensions: [],
          parts: [
            {
              content: { $case: 'data', value: { echo: data, text, message_id: message.messageId, count } },
              metadata: undefined,
              filename: '',
              mediaType: 'application/json',
            },
            ...(behaviour === 'huge' ? [textPart('x'.repeat(HUGE_BYTES))] : []),
          ],
        },
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.journal.cancelled.push(taskId);
    this.running.get(taskId)?.abort();
    // The SDK calls this while the task's event bus lives (working, input-required) and then requires the task to
    // read `canceled`: that is this event, published before the aborted execution resumes.
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: this.contextOf.get(taskId) ?? '',
        metadata: undefined,
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
      }),
    );
  };
}

async function main(): Promise<void> {
  const name = option('--name') ?? (process.env.A2A_AGENT_NAME || 'js-a2a-agent');
  const v03 = !(process.argv.includes('--v1-only') || process.env.A2A_AGENT_V1_ONLY === '1');
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(option('--port') ?? process.env.A2A_AGENT_PORT ?? 0), '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const journal = new Journal();
  const executor = new TestAgentExecutor(journal);
  const handler = new DefaultRequestHandler(agentCard(name, url, v03), new InMemoryTaskStore(), executor);
  const legacyCompat = { enabled: v03 };
  const app = express();
  app.get('/received', (_req, res) => {
    res.json(journal.view());
  });
  app.use(
    '/.well-known/agent-card.json',
    agentCardHandler({ agentCardProvider: handler, cache: { maxAge: 0 }, legacyCompat }),
  );
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  server.on('request', app);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
  // The same bytes as the Python twin's json.dumps: {"url": "...", "card_url": "..."}
  process.stdout.write(
    `{"url": ${JSON.stringify(url)}, "card_url": ${JSON.stringify(`${url}/.well-known/agent-card.json`)}}\n`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
