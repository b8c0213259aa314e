/**
 * The benchmarks' agent for one hop at a time: answers a delivery 202, then posts its `processed` receipt at once,
 * and notes when each message reached it and when its receipt was answered `applied`. A POST without a callback URL
 * (a direct call) is answered 200 at once.
 */
import { createServer, type Server } from 'node:http';
import { freePort } from '../../supervisor/dev-servers';
import type { BenchSystem } from './system';

/** The agent: answers 202, then posts the receipt to the callback URL the delivery names. */
export interface ReceiptAgent {
  url: string;
  server: Server;
  /** Receipt secrets by gateway origin (both gateways deliver to this one agent). */
  secrets: Map<string, string>;
  /** When each message reached the agent, and when its receipt was answered `applied`. */
  delivered: Map<string, number>;
  applied: Map<string, number>;
  /** A receipt answered otherwise (status and body), or whose post failed: what a benchmark reports when it waits in vain. */
  unapplied: Map<string, string>;
}

export async function startReceiptAgent(): Promise<ReceiptAgent> {
  const agent = {
    secrets: new Map<string, string>(),
    delivered: new Map<string, number>(),
    applied: new Map<string, number>(),
    unapplied: new Map<string, string>(),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { message_id: string; callback_url?: string };
      if (!body.callback_url) return void res.writeHead(200).end('{}'); // a direct call
      agent.delivered.set(body.message_id, performance.now());
      const secret = agent.secrets.get(new URL(body.callback_url).origin) ?? '';
      res.writeHead(202).end(() => {
        void fetch(body.callback_url!, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
          body: JSON.stringify({ message_id: body.message_id, status: 'processed', result: { ok: true } }),
        })
          .then(async (answer) => {
            const text = await answer.text();
            if (answer.ok && (JSON.parse(text) as { applied?: boolean }).applied)
              agent.applied.set(body.message_id, performance.now());
            else agent.unapplied.set(body.message_id, `${answer.status} ${text.slice(0, 300)}`);
          })
          .catch((error: Error) => agent.unapplied.set(body.message_id, `with an error: ${error.message}`));
      });
    });
  });
  const port = await freePort();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return { ...agent, server, url: `http://127.0.0.1:${port}/` };
}

/** Registers an agent with one capability, `echo`, at `agent`'s URL; returns its id. */
export async function registerEchoAgent(
  system: Pick<BenchSystem, 'apiUrl' | 'apiKey'>,
  agent: ReceiptAgent,
  echo: Record<string, unknown> = {},
): Promise<string> {
  const answer = await fetch(`${system.apiUrl}/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${system.apiKey}` },
    body: JSON.stringify({
      name: `bench-${Date.now()}`,
      endpoint: agent.url,
      capabilities: [{ name: 'echo', ...echo }],
    }),
  });
  if (answer.status !== 201) throw new Error(`registration answered ${answer.status}: ${await answer.text()}`);
  const registered = (await answer.json()) as { agent_id: string; secret: string };
  agent.secrets.set(new URL(system.apiUrl).origin, registered.secret);
  return registered.agent_id;
}

/** Polls `done` every millisecond; throws after `timeoutMs`. */
export async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
