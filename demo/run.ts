/**
 * `npm run demo`: the after-sales pipeline of seed 000, through Agent-Reach. Three SDK agents —
 * customer-service (classifies the ticket), quality-check (first review), refund (pays back, into a ledger) —
 * pass each ticket along via the gateway, keeping one trace id per ticket. Starts embedded mode itself unless
 * GATEWAY points at a running api (then REACH_API_KEY is its API key, with the send, read and register scopes). Prints every hop (trace, agent, latency) and the number of refunds performed;
 * then sends one ticket again to show it is not refunded twice. Then the same pipeline as chains (demo/chain-pipeline.ts):
 * the gateway runs the steps, and a refund that fails after the review reopens the ticket (its compensation).
 * Refunds are restricted: the refund capability admits
 * only keys with the `refunds` scope, which quality-check holds and customer-service does not (shown once).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { ReachAgent, type Delivery, type Handler } from '../sdk';
import { freePort } from '../supervisor/dev-servers';
import { startEmbeddedProcess } from '../supervisor/embedded-process';
import { runChainPipeline } from './chain-pipeline';

const TICKETS = [
  { ticket_id: 't-1001', text: 'The blender arrived broken, I want a refund', order_id: 'o-1', amount: 89 },
  { ticket_id: 't-1002', text: '快递太慢了，但东西还行', order_id: 'o-2', amount: 35 },
  { ticket_id: 't-1003', text: '收到的耳机是坏的，申请退款', order_id: 'o-3', amount: 199 },
  { ticket_id: 't-1004', text: 'Refund please, the TV is the wrong size', order_id: 'o-4', amount: 1299 },
  { ticket_id: 't-1005', text: 'How do I change my delivery address?', order_id: 'o-5', amount: 20 },
];

type Ticket = (typeof TICKETS)[number];

async function post(
  gateway: string,
  path: string,
  body: unknown,
  key = process.env.REACH_API_KEY,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${gateway}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
}

async function send(
  gateway: string,
  messageId: string,
  agentId: string,
  capability: string,
  payload: unknown,
  traceId: string,
  parent?: string,
  key?: string,
) {
  const body = {
    message_id: messageId,
    target: { agent_id: agentId, capability },
    payload,
    ...(parent ? { parent_message_id: parent } : {}),
  };
  const response = await post(gateway, '/v1/messages', body, key, {
    traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
  });
  if (response.status >= 400) throw new Error(`send ${messageId}: ${response.status} ${await response.text()}`);
}

async function startAgent(
  gateway: string,
  name: string,
  capability: string,
  handler: Handler,
  acl?: { scopes: string[] },
): Promise<ReachAgent> {
  const port = await freePort();
  const card = { name: `${name}-${process.pid}`, capabilities: [{ name: capability, ...(acl ? { acl } : {}) }] };
  const agent = new ReachAgent({ gateway, endpoint: `http://127.0.0.1:${port}/`, card });
  await agent.register();
  createServer(agent.httpHandler(handler)).listen(port, '127.0.0.1').unref();
  agent.startHeartbeats();
  return agent;
}

type Refund = { order_id: string; amount: number };

/** Refund, quality-check and customer-service, each passing the ticket on to the next through the gateway. */
async function startPipelineAgents(gateway: string, refunds: Refund[]) {
  const ids: Record<string, string> = {};
  const refund = await startAgent(
    gateway,
    'refund',
    'refund',
    (d: Delivery) => {
      const ticket = d.payload as Ticket;
      refunds.push({ order_id: ticket.order_id, amount: ticket.amount });
      return { refund_id: `r-${ticket.ticket_id}`, amount: ticket.amount };
    },
    { scopes: ['refunds'] },
  );
  // quality-check's own key: it may send refunds; the others send with the development key, which may not.
  const created = await post(gateway, '/v1/keys', { name: 'quality-check', scopes: ['send', 'refunds'] });
  if (created.status !== 201) throw new Error(`creating the refunds key: ${created.status} ${await created.text()}`);
  const refundsKey = ((await created.json()) as { key: string }).key;
  ids.refund = refund.identity!.agent_id;
  const quality = await startAgent(gateway, 'quality-check', 'review', async (d: Delivery) => {
    const ticket = d.payload as Ticket;
    const approved = ticket.amount <= 500;
    if (approved)
      await send(
        gateway,
        `${ticket.ticket_id}-refund`,
        ids.refund!,
        'refund',
        ticket,
        d.trace_id,
        d.message_id,
        refundsKey,
      );
    return { approved, rule: 'refunds up to 500 are approved automatically' };
  });
  ids.quality = quality.identity!.agent_id;
  const service = await startAgent(gateway, 'customer-service', 'classify', async (d: Delivery) => {
    const ticket = d.payload as Ticket;
    const category = /refund|退款|broken|坏/i.test(ticket.text) ? 'refund' : 'question';
    if (category === 'refund')
      await send(gateway, `${ticket.ticket_id}-review`, ids.quality!, 'review', ticket, d.trace_id, d.message_id);
    return { category };
  });
  ids.service = service.identity!.agent_id;
  return { agents: [service, quality, refund], ids };
}

const hops = (t: Ticket) => [t.ticket_id, `${t.ticket_id}-review`, `${t.ticket_id}-refund`];

async function messageStatus(gateway: string, id: string): Promise<Record<string, any>> {
  return (
    await fetch(`${gateway}/v1/messages/${id}`, { headers: { authorization: `Bearer ${process.env.REACH_API_KEY}` } })
  ).json() as Promise<Record<string, any>>;
}

/** True once every hop that exists has ended. */
async function settled(gateway: string): Promise<boolean> {
  for (const t of TICKETS) {
    for (const id of hops(t)) {
      const s = await messageStatus(gateway, id);
      if (s.error?.code === 'message_not_found') continue;
      if (!['processed', 'failed', 'rejected', 'expired'].includes(s.state)) return false;
    }
  }
  return true;
}

async function printHops(gateway: string): Promise<void> {
  for (const t of TICKETS) {
    console.log(`${t.ticket_id} "${t.text}"`);
    for (const id of hops(t)) {
      const s = await messageStatus(gateway, id);
      if (s.error?.code === 'message_not_found') continue;
      const latency = Date.parse(s.completed_at ?? s.updated_at) - Date.parse(s.accepted_at);
      console.log(
        `  trace ${s.trace_id.slice(0, 12)}…  ${id.padEnd(16)} ${s.state.padEnd(9)} ${String(latency).padStart(5)} ms  ${JSON.stringify(s.result)}`,
      );
    }
  }
}

async function main(): Promise<void> {
  const embedded = process.env.GATEWAY ? undefined : await startEmbeddedProcess();
  const gateway = process.env.GATEWAY ?? embedded!.url;
  // The SDK agents register with it, and the agents pass tickets along with it.
  process.env.REACH_API_KEY ??= embedded?.apiKey;
  console.log(`gateway ${gateway}\n`);
  const refunds: Refund[] = [];
  const { agents, ids } = await startPipelineAgents(gateway, refunds);

  const traces: Record<string, string> = {};
  for (const ticket of TICKETS) {
    traces[ticket.ticket_id] = randomBytes(16).toString('hex');
    await send(gateway, ticket.ticket_id, ids.service!, 'classify', ticket, traces[ticket.ticket_id]!);
  }
  for (let i = 0; i < 600 && !(await settled(gateway)); i++) await new Promise((r) => setTimeout(r, 100));
  await printHops(gateway);
  console.log(`\nthe chain of one ticket: ${gateway}/v1/traces/${traces[TICKETS[0]!.ticket_id]}`);
  console.log(`refunds performed: ${refunds.length} (${refunds.map((r) => `${r.order_id} ${r.amount}`).join(', ')})`);

  const direct = await post(gateway, '/v1/messages', {
    target: { agent_id: ids.refund, capability: 'refund' },
    payload: TICKETS[3],
  });
  console.log(
    `a refund sent directly without the refunds scope: ${direct.status} ${((await direct.json()) as { error: { code: string } }).error.code}`,
  );

  // The seed's failure: the same ticket sent again (a caller retry). The message id makes it the same message.
  await send(gateway, TICKETS[0]!.ticket_id, ids.service!, 'classify', TICKETS[0], traces[TICKETS[0]!.ticket_id]!);
  await new Promise((r) => setTimeout(r, 1_000));
  console.log(`after re-sending ${TICKETS[0]!.ticket_id}: refunds performed: ${refunds.length}`);

  for (const agent of agents) await agent.drain(2_000);
  await runChainPipeline(gateway, process.env.REACH_API_KEY!, TICKETS);
  await embedded?.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
