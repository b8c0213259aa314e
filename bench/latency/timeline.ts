/**
 * `npx tsx bench/latency/timeline.ts [--count 10]`: where one hop's time goes. Sends messages one at a time through
 * a gateway started as in bench:latency (with `--env KEY=VALUE` settings), then reads each run's history and prints
 * the median time between its events (start → first workflow task → delivery → update → completion).
 */
import { parseArgs } from 'node:util';
import { Connection, Client } from '@temporalio/client';
import { createServer, type Server } from 'node:http';
import { freePort } from '../../supervisor/dev-servers';
import { median } from '../lib/stats';
import { BENCH_TEMPORAL_PRAGMAS, type BenchSystem, pragmaList, startBenchSystem } from '../lib/system';

type Marks = Map<string, Record<string, number>>;

/** An agent that marks when each message arrives and answers with a processed receipt signed by `auth.secret`. */
function timelineAgent(marks: Marks, auth: { secret: string }): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { message_id: string; callback_url: string };
      marks.get(body.message_id)!.delivered = Date.now();
      res.writeHead(202).end(() => {
        marks.get(body.message_id)!.receipt_sent = Date.now();
        void fetch(body.callback_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${auth.secret}` },
          body: JSON.stringify({ message_id: body.message_id, status: 'processed' }),
        }).then(() => (marks.get(body.message_id)!.receipt_answered = Date.now()));
      });
    });
  });
}

async function registerAgent(system: BenchSystem, port: number): Promise<{ agent_id: string; secret: string }> {
  return (await (
    await fetch(`${system.apiUrl}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${system.apiKey}` },
      body: JSON.stringify({
        name: 'timeline',
        endpoint: `http://127.0.0.1:${port}/`,
        capabilities: [{ name: 'echo' }],
      }),
    })
  ).json()) as { agent_id: string; secret: string };
}

/** Sends `count` messages (after three warm-ups) one at a time; returns the measured ids. */
async function sendOneAtATime(system: BenchSystem, agentId: string, count: number, marks: Marks): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count + 3; i++) {
    const id = `tl-${i}`;
    marks.set(id, { posted: Date.now() });
    await fetch(`${system.apiUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${system.apiKey}` },
      body: JSON.stringify({ message_id: id, target: { agent_id: agentId, capability: 'echo' } }),
    });
    marks.get(id)!.accepted = Date.now();
    while (!marks.get(id)!.receipt_answered) await new Promise((r) => setTimeout(r, 1));
    if (i >= 3) ids.push(id);
  }
  return ids;
}

/** Each run's history events and the agent's marks in time order; the gaps between neighbours, by their names. */
async function historyGaps(system: BenchSystem, ids: string[], marks: Marks): Promise<Record<string, number[]>> {
  const client = new Client({ connection: await Connection.connect({ address: system.temporalAddress }) });
  const gaps: Record<string, number[]> = {};
  for (const id of ids) {
    const history = await client.workflow.getHandle(`msg:default:${id}`).fetchHistory();
    const m = marks.get(id)!;
    const points: [string, number][] = [['posted', m.posted!]];
    for (const event of history.events ?? []) {
      const t = Number(event.eventTime!.seconds) * 1000 + Math.floor((event.eventTime!.nanos ?? 0) / 1e6);
      points.push([`${event.eventId} ${String(event.eventType)}`, t]);
    }
    points.push(
      ['agent has it', m.delivered!],
      ['receipt sent', m.receipt_sent!],
      ['receipt answered', m.receipt_answered!],
    );
    points.sort((a, b) => a[1] - b[1]);
    for (let k = 1; k < points.length; k++)
      (gaps[`${points[k - 1]![0]} → ${points[k]![0]}`] ??= []).push(points[k]![1] - points[k - 1]![1]);
  }
  return gaps;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '10' },
      env: { type: 'string', multiple: true, default: [] as string[] },
    },
  });
  const env = Object.fromEntries(values.env.map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]));
  const system = await startBenchSystem({ env, temporalPragmas: pragmaList(BENCH_TEMPORAL_PRAGMAS) });
  const marks: Marks = new Map();
  const auth = { secret: '' };
  const agent = timelineAgent(marks, auth);
  const port = await freePort();
  await new Promise<void>((done) => agent.listen(port, '127.0.0.1', done));
  try {
    const registered = await registerAgent(system, port);
    auth.secret = registered.secret;
    const ids = await sendOneAtATime(system, registered.agent_id, Number(values.count), marks);
    const gaps = await historyGaps(system, ids, marks);
    for (const [gap, values] of Object.entries(gaps))
      if (values.length >= ids.length / 2) console.log(`${String(median(values)).padStart(5)} ms  ${gap}`);
  } finally {
    agent.close();
    await system.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
