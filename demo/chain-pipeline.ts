/**
 * The after-sales pipeline as a chain (docs/chains.md), beside the agent-to-agent version of demo/run.ts: the agents
 * no longer call each other. Each ticket is one chain — classify → review (only when the ticket asks for a refund)
 * → refund (only when the review approved it) — and the gateway passes each step's result to the next. A refund
 * that fails after the review (the payment provider declines order o-3) makes the chain compensate: the ticket
 * that customer service classified is reopened, once.
 */
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { ReachAgent, type AgentCard, type Delivery, type Handler } from '../sdk';
import { freePort } from '../supervisor/dev-servers';

export interface DemoTicket {
  ticket_id: string;
  text: string;
  order_id: string;
  amount: number;
}

/** The order whose refund the payment provider declines. */
const DECLINED_ORDER = 'o-3';

async function startAgent(
  gateway: string,
  name: string,
  capabilities: AgentCard['capabilities'],
  handler: Handler,
): Promise<ReachAgent> {
  const port = await freePort();
  const agent = new ReachAgent({
    gateway,
    endpoint: `http://127.0.0.1:${port}/`,
    card: { name: `${name}-${process.pid}`, capabilities },
  });
  await agent.register();
  createServer(agent.httpHandler(handler)).listen(port, '127.0.0.1').unref();
  agent.startHeartbeats();
  return agent;
}

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });

/** The chain of one ticket. */
function ticketChain(chainId: string, ticket: DemoTicket, ids: { service: string; quality: string; refund: string }) {
  return {
    chain_id: chainId,
    input: ticket,
    steps: [
      {
        id: 'classify',
        target: { agent_id: ids.service, capability: 'classify' },
        input: { text: { $ref: '/input/text' } },
        compensate: {
          target: { agent_id: ids.service, capability: 'reopen' },
          input: { ticket_id: { $ref: '/input/ticket_id' } },
        },
      },
      {
        id: 'review',
        target: { agent_id: ids.quality, capability: 'review' },
        input: { amount: { $ref: '/input/amount' } },
        when: { $ref: '/steps/classify/result/category', equals: 'refund' },
      },
      {
        id: 'refund',
        target: { agent_id: ids.refund, capability: 'refund' },
        input: { order_id: { $ref: '/input/order_id' }, amount: { $ref: '/input/amount' } },
        when: { $ref: '/steps/review/result/approved', equals: true },
        on_failure: 'compensate',
      },
    ],
  };
}

/** What the agents did: refunds performed, tickets reopened. */
interface Effects {
  refunds: string[];
  reopened: string[];
}

/** Customer service (classify, and reopen to compensate), quality check (review) and refund, registered. */
async function startChainAgents(gateway: string, effects: Effects): Promise<ReachAgent[]> {
  const service = await startAgent(
    gateway,
    'customer-service-chains',
    [
      {
        name: 'classify',
        parameters: object({ text: { type: 'string' } }),
        returns: object({ category: { type: 'string' } }),
      },
      { name: 'reopen', parameters: object({ ticket_id: { type: 'string' } }) },
    ],
    (d: Delivery) => {
      if (d.capability === 'reopen') {
        effects.reopened.push(String(d.params.ticket_id));
        return { reopened: d.params.ticket_id };
      }
      return { category: /refund|退款|broken|坏/i.test(String(d.params.text)) ? 'refund' : 'question' };
    },
  );
  const quality = await startAgent(
    gateway,
    'quality-check-chains',
    [
      {
        name: 'review',
        parameters: object({ amount: { type: 'number' } }),
        returns: object({ approved: { type: 'boolean' } }),
      },
    ],
    (d: Delivery) => ({
      approved: Number(d.params.amount) <= 500,
      rule: 'refunds up to 500 are approved automatically',
    }),
  );
  const refund = await startAgent(
    gateway,
    'refund-chains',
    [
      {
        name: 'refund',
        parameters: object({ order_id: { type: 'string' }, amount: { type: 'number' } }),
        acl: { scopes: ['refunds'] },
      },
    ],
    (d: Delivery) => {
      if (d.params.order_id === DECLINED_ORDER)
        throw Object.assign(new Error('the payment provider declined the refund'), { code: 'declined' });
      effects.refunds.push(`${d.params.order_id} ${d.params.amount}`);
      return { refund_id: `r-${d.params.order_id}` };
    },
  );
  return [service, quality, refund];
}

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, any> }>;

/** Calls the gateway as the chains' caller, with a key that may reach the refund capability (`refunds` scope). */
async function chainsCaller(gateway: string, adminKey: string): Promise<Call> {
  const created = await fetch(`${gateway}/v1/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
    body: JSON.stringify({ name: 'after-sales-chains', scopes: ['send', 'read', 'refunds'] }),
  });
  if (created.status !== 201) throw new Error(`creating the chains key: ${created.status} ${await created.text()}`);
  const key = ((await created.json()) as { key: string }).key;
  return async (method, path, body) => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
}

async function chainEnded(call: Call, chainId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 600; i++) {
    const status = (await call('GET', `/v1/chains/${chainId}`)).body;
    if (['completed', 'failed', 'compensated', 'cancelled'].includes(status.state)) return status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`chain ${chainId} did not end`);
}

function printChain(ticket: DemoTicket, status: Record<string, any>): void {
  const took = Date.parse(status.ended_at) - Date.parse(status.started_at);
  console.log(`${ticket.ticket_id} chain ${status.state.padEnd(11)} ${String(took).padStart(5)} ms`);
  for (const step of status.steps) {
    const compensation = step.compensation ? `  ↩ ${step.compensation.message_id} ${step.compensation.state}` : '';
    console.log(
      `  ${step.id.padEnd(9)} ${step.state.padEnd(9)} ${JSON.stringify(step.result ?? step.error?.message ?? null)}${compensation}`,
    );
  }
}

export async function runChainPipeline(
  gateway: string,
  adminKey: string,
  tickets: readonly DemoTicket[],
): Promise<void> {
  const effects: Effects = { refunds: [], reopened: [] };
  const agents = await startChainAgents(gateway, effects);
  const [service, quality, refund] = agents.map((agent) => agent.identity!.agent_id);
  const ids = { service: service!, quality: quality!, refund: refund! };
  const call = await chainsCaller(gateway, adminKey);

  console.log('\n— the same pipeline as chains: the agents no longer call each other —');
  const run = randomBytes(3).toString('hex');
  const chainIds = tickets.map((t) => `${t.ticket_id}-chain-${run}`);
  for (const [i, ticket] of tickets.entries()) {
    const started = await call('POST', '/v1/chains', ticketChain(chainIds[i]!, ticket, ids));
    if (started.status !== 202)
      throw new Error(`chain of ${ticket.ticket_id}: ${started.status} ${JSON.stringify(started.body)}`);
  }
  for (const [i, ticket] of tickets.entries()) printChain(ticket, await chainEnded(call, chainIds[i]!));
  const { refunds, reopened } = effects;
  console.log(
    `refunds performed: ${refunds.length} (${refunds.join(', ')}); tickets reopened by compensation: ${reopened.join(', ') || 'none'}`,
  );
  for (const agent of agents) await agent.drain(2_000);
}
