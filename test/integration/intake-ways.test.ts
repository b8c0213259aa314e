/**
 * One door (issue 42): every way in refuses the same bad message with the same code (messages/intake-refusals.ts).
 * The same inputs are sent over the HTTP api, the MCP face, the A2A face (what A2A can say), a Temporal client start
 * of `sendMessage`, a Nexus operation from another namespace, and as a step of a chain started from Temporal;
 * each refusal must carry the api's code. Against the whole system (real Temporal dev server, FerretDB, worker, api).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { executeChain } from '../../temporal-callers/chain-client';
import { executeMessage } from '../../temporal-callers/client';
import { ensureNexusEndpoint } from '../../temporal-callers/nexus/endpoint';
import { INTAKE_REFUSALS } from '../../messages/intake-refusals';
import { startCallerNamespace, type CallerNamespace } from '../helpers/caller-namespace';
import { startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request, TEST_API_KEY } from '../helpers/http';
import { mcpClient, toolAnswer } from '../helpers/mcp';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const TENANT = 'default';
const CALLER_NAMESPACE = 'intake-ways-callers';
const CALLER_QUEUE = 'intake-ways-callers';
const ENDPOINT = 'intake-ways';
const MAX_PAYLOAD_BYTES = 2048;

let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;
let agentId: string;
let callerNamespace: CallerNamespace;
let sequence = 0;

const newId = (what: string) => `ways-${what}-${process.pid}-${++sequence}`;
const big = () => ({ text: 'x'.repeat(MAX_PAYLOAD_BYTES * 2) });

/** A message input, as the caller would send it on any way in (`message_id` made per way). */
type Input = Record<string, unknown>;

/** Each way in: send `input` under `messageId`, answer the refusal's code (or `accepted`). */
type Way = (input: Input, messageId: string) => Promise<string>;

const http: Way = async (input, messageId) => {
  const answer = await request('POST', `${system.baseUrl}/v1/messages`, { message_id: messageId, ...input });
  return answer.status < 300 ? 'accepted' : answer.body.error.code;
};

const mcp: Way = async (input, messageId) => {
  const client = await mcpClient(system.baseUrl, TEST_API_KEY);
  try {
    const answer = toolAnswer(
      await client.callTool({ name: 'reach_send', arguments: { message_id: messageId, ...input, wait_ms: 0 } }),
    );
    return answer.isError ? answer.body.error.code : 'accepted';
  } finally {
    await client.close();
  }
};

/** A2A says a target (metadata), params (a data part) and a message id; not deadlines nor reply_to. */
const a2a: Way = async (input, messageId) => {
  const target = input.target as { agent_id: string; capability: string };
  const parts = [{ data: (input.params as object | undefined) ?? { any: 1 } }];
  const answer = await request(
    'POST',
    `${system.baseUrl}/a2a`,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: {
          messageId,
          role: 'ROLE_USER',
          parts,
          metadata: { agent_id: target.agent_id, capability: target.capability },
        },
      },
    },
    { 'a2a-version': '1.0' },
  );
  if (!answer.body.error) return 'accepted';
  const info = (answer.body.error.data as { metadata?: { code?: string } }[] | undefined)?.find(
    (d) => d.metadata?.code,
  );
  return info?.metadata?.code ?? `rpc ${answer.body.error.code}`;
};

/** The failure type a run (or operation) ended with. */
function failureType(error: unknown): string {
  let cause = error as { cause?: unknown; type?: string } | undefined;
  while (cause?.cause && !cause.type) cause = cause.cause as typeof cause;
  return cause?.type ?? String(error);
}

const temporalClient: Way = async (input, messageId) =>
  executeMessage(system.client, { tenant: TENANT, message_id: messageId, ...input } as never, {
    taskQueue: system.config.TEMPORAL_TASK_QUEUE,
  }).then(
    () => 'accepted',
    (error: unknown) =>
      error instanceof WorkflowFailedError
        ? failureType(error.cause)
        : ((error as { type?: string }).type ?? String(error)),
  );

const nexus: Way = async (input, messageId) =>
  callerNamespace.callers.workflow
    .execute('nexusCallerWorkflow', {
      workflowId: `caller-${messageId}`,
      taskQueue: CALLER_QUEUE,
      args: [{ message_id: messageId, ...input }, ENDPOINT],
    })
    .then(
      () => 'accepted',
      (error: unknown) => (error instanceof WorkflowFailedError ? failureType(error.cause) : String(error)),
    );

/** A chain of one step, started from Temporal: the step's refusal is the step's error code. */
const chainStep: Way = async (input, messageId) => {
  const {
    target,
    params,
    payload,
    deadline,
    reply_to: _replyTo,
  } = input as { target: unknown; params?: unknown; payload?: unknown; deadline?: string; reply_to?: unknown };
  const chainId = messageId.replaceAll(':', '-');
  const deadlineMs = deadline ? Date.parse(deadline) - Date.now() : undefined;
  const step = {
    id: 'only',
    target,
    ...(params ? { input: params } : {}),
    ...(payload ? { payload } : {}),
    ...(deadlineMs !== undefined && deadlineMs > 0 ? { deadline_ms: deadlineMs } : {}),
  };
  const status = await executeChain(system.client, { tenant: TENANT, chain_id: chainId, steps: [step] } as never, {
    taskQueue: system.config.TEMPORAL_TASK_QUEUE,
  }).catch((error: unknown) => ({
    state: 'refused',
    steps: [{ error: { code: failureType((error as WorkflowFailedError).cause) } }],
  }));
  return status.state === 'completed' ? 'accepted' : (status.steps[0]?.error?.code ?? status.state);
};

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, {
    HEARTBEAT_TTL_MS: '3600000',
    MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD_BYTES),
    CALLER_WEBHOOK_SECRET: `whsec_${Buffer.from('intake-ways-test-secret-0123456789').toString('base64')}`,
  });
  agent = await startFakeAgent();
  const registered = await registerAgent(system.baseUrl, agent.url, {
    capabilities: [
      { name: 'echo', description: 'Echoes' },
      { name: 'payout', description: 'Pays out', acl: { scopes: ['payouts'] } },
    ],
  });
  agentId = registered.agent_id;
  agent.secret = registered.secret;
  callerNamespace = await startCallerNamespace(system.config.TEMPORAL_ADDRESS, {
    namespace: CALLER_NAMESPACE,
    taskQueue: CALLER_QUEUE,
    workflowsPath: require.resolve('../helpers/caller-workflows'),
  });
  await ensureNexusEndpoint(callerNamespace.admin, {
    name: ENDPOINT,
    namespace: system.config.TEMPORAL_NAMESPACE,
    taskQueue: system.config.TEMPORAL_TASK_QUEUE,
  });
});

after(async () => {
  await callerNamespace?.stop();
  await agent?.stop();
  await system?.stop();
  await servers?.stop();
});

const WAYS: Record<string, Way> = { http, mcp, a2a, temporal_client: temporalClient, nexus, chain_step: chainStep };
/** What A2A cannot say, and what a chain's step does not carry (its deadline is relative, its reply_to the chain's). */
const CANNOT_SAY: Record<string, string[]> = {
  a2a: ['invalid_request', 'deadline_passed', 'endpoint_not_allowed'],
  chain_step: ['invalid_request', 'deadline_passed', 'endpoint_not_allowed'],
};

describe('intake ways - the same bad message gets the same code on every way in', () => {
  const cases: { code: keyof typeof INTAKE_REFUSALS; input: () => Input }[] = [
    {
      code: 'agent_not_found',
      input: () => ({ target: { agent_id: 'agt_000000000000000000000000', capability: 'echo' } }),
    },
    { code: 'unknown_capability', input: () => ({ target: { agent_id: agentId, capability: 'teleport' } }) },
    { code: 'capability_forbidden', input: () => ({ target: { agent_id: agentId, capability: 'payout' } }) },
    { code: 'payload_too_large', input: () => ({ target: { agent_id: agentId, capability: 'echo' }, params: big() }) },
    {
      code: 'deadline_passed',
      input: () => ({
        target: { agent_id: agentId, capability: 'echo' },
        deadline: new Date(Date.now() - 60_000).toISOString(),
      }),
    },
    {
      code: 'endpoint_not_allowed',
      input: () => ({
        target: { agent_id: agentId, capability: 'echo' },
        reply_to: { url: 'http://169.254.169.254/latest' },
      }),
    },
    {
      code: 'invalid_request',
      input: () => ({ target: { agent_id: agentId, capability: 'echo' }, session_id: 'not a session id!' }),
    },
  ];

  for (const { code, input } of cases) {
    it(`intake ways - ${code}`, async () => {
      const answers: Record<string, string> = {};
      for (const [name, way] of Object.entries(WAYS)) {
        if (CANNOT_SAY[name]?.includes(code)) continue;
        answers[name] = await way(input(), newId(`${code}-${name}`));
      }
      const expected = Object.fromEntries(Object.keys(answers).map((name) => [name, code]));
      assert.deepEqual(answers, expected);
      assert.equal(agent.deliveries.length, 0, 'nothing delivered');
    });
  }

  it('intake ways - idempotency_conflict: the same message id with another body', async () => {
    const answers: Record<string, string> = {};
    for (const [name, way] of Object.entries(WAYS)) {
      if (name === 'chain_step') continue; // a chain's step ids are its own
      const messageId = newId(`conflict-${name}`);
      const first = await way({ target: { agent_id: agentId, capability: 'echo' }, params: { n: 1 } }, messageId);
      assert.equal(first, 'accepted', `${name}: the first send`);
      answers[name] = await way({ target: { agent_id: agentId, capability: 'echo' }, params: { n: 2 } }, messageId);
    }
    assert.deepEqual(answers, Object.fromEntries(Object.keys(answers).map((name) => [name, 'idempotency_conflict'])));
  });
});
