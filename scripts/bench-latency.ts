/**
 * `npm run bench:latency [-- --url http://127.0.0.1:3000] [--count 20]`: end-to-end latency of single messages.
 * Without --url it starts embedded mode itself (temporary data folder, free ports) and stops it afterwards.
 * A tiny HTTP agent answers 202 and posts its receipt at once. Messages are sent one at a time; reported:
 * - delivered: POST /v1/messages sent → the agent holds the delivery;
 * - processed: POST sent → GET /v1/messages/:id first shows `processed` (polled every 5 ms).
 * Writes bench/results/latency-<timestamp>.json.
 */
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeResultFile } from './lib/result-file';
import { freePort } from './lib/dev-servers';
import { startEmbeddedProcess } from './lib/embedded-process';
import { summary } from './lib/stats';

const ROOT = resolve(__dirname, '..');

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { url: { type: 'string' }, count: { type: 'string', default: '20' }, warmup: { type: 'string', default: '3' } } });
  const count = Number(values.count);
  const warmup = Number(values.warmup);
  const embedded = values.url ? undefined : await startEmbeddedProcess();
  const url = values.url ?? embedded!.url;
  // Against a running api, REACH_API_KEY is a key with the register, send and read scopes.
  const apiKey = embedded?.apiKey ?? process.env.REACH_API_KEY ?? '';

  let secret = '';
  const deliveredAt = new Map<string, number>();
  const agent = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { message_id: string; callback_url: string };
      deliveredAt.set(body.message_id, performance.now());
      res.writeHead(202).end(() => {
        void fetch(body.callback_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
          body: JSON.stringify({ message_id: body.message_id, status: 'processed', result: { ok: true } }),
        });
      });
    });
  });
  const agentPort = await freePort();
  await new Promise<void>((done) => agent.listen(agentPort, '127.0.0.1', done));

  try {
    const registration = await fetch(`${url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ name: `bench-${Date.now()}`, endpoint: `http://127.0.0.1:${agentPort}/`, capabilities: [{ name: 'echo' }] }),
    });
    const registered = (await registration.json()) as { agent_id: string; secret: string };
    secret = registered.secret;

    const delivered: number[] = [];
    const processed: number[] = [];
    for (let i = 0; i < warmup + count; i++) {
      const messageId = `bench-${Date.now()}-${i}`;
      const started = performance.now();
      const sent = await fetch(`${url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ message_id: messageId, target: { agent_id: registered.agent_id, capability: 'echo' } }),
      });
      if (sent.status !== 202) throw new Error(`send answered ${sent.status}: ${await sent.text()}`);
      for (;;) {
        const status = (await (await fetch(`${url}/v1/messages/${messageId}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { state: string };
        if (status.state === 'processed') break;
        if (['failed', 'rejected'].includes(status.state)) throw new Error(`message ended ${status.state}`);
        await new Promise((done) => setTimeout(done, 5));
      }
      const done = performance.now();
      if (i >= warmup) {
        delivered.push(deliveredAt.get(messageId)! - started);
        processed.push(done - started);
        process.stdout.write(`\r  ${i - warmup + 1}/${count} messages`);
      }
    }
    process.stdout.write('\n');
    const result = {
      benchmark: 'single-message end-to-end latency',
      when: new Date().toISOString(),
      target: values.url ? url : 'embedded mode started by the benchmark',
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      delivered: summary(delivered),
      processed: summary(processed),
    };
    console.table({ delivered: result.delivered, processed: result.processed });
    const file = writeResultFile(join(ROOT, 'bench/results'), `latency-${result.when.replaceAll(':', '-').slice(0, 19)}`, result);
    console.log(`written ${file}`);
  } finally {
    agent.close();
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
