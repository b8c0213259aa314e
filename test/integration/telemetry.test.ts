/**
 * OpenTelemetry: with an OTLP endpoint configured, the workflow start, the workflow run and its activities are
 * exported as spans of the message's own trace id. The collector here is an in-process OTLP/HTTP (JSON) receiver.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { MESSAGE_WORKFLOW } from '../../messages/temporal';
import { startTelemetry, type Telemetry } from '../../platform/telemetry';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

interface ReceivedSpan {
  traceId: string;
  name: string;
}

let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;
let collector: Server;
let telemetry: Telemetry;
const spans: ReceivedSpan[] = [];

before(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        resourceSpans: { scopeSpans: { spans: ReceivedSpan[] }[] }[];
      };
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const port = (collector.address() as { port: number }).port;
  telemetry = startTelemetry('test', `http://127.0.0.1:${port}`)!;
  servers = await startTestServers();
  system = await startSystem(servers, {}, { telemetry });
  agent = await startFakeAgent(acceptAndConfirm);
});

after(async () => {
  await agent?.stop();
  await system?.stop();
  await servers?.stop();
  await telemetry?.shutdown();
  collector?.close();
});

describe('telemetry', () => {
  it('telemetry - start, run and activities are spans of the message trace', async () => {
    const registered = await registerAgent(system.baseUrl, agent.url);
    agent.secret = registered.secret;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const messageId = `otel-${Date.now()}`;
    await request(
      'POST',
      `${system.baseUrl}/v1/messages`,
      { message_id: messageId, target: { agent_id: registered.agent_id, capability: 'echo' } },
      {
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      },
    );
    await eventually('processed', async () => {
      const status = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
      return status.body.state === 'processed' ? true : undefined;
    });
    const names = await eventually(
      'the spans to reach the collector',
      async () => {
        const ours = spans.filter((s) => s.traceId === traceId).map((s) => s.name);
        return ours.some((n) => n.startsWith('RunActivity:resolveAndDeliver')) &&
          ours.some((n) => n.startsWith('RunWorkflow'))
          ? ours
          : undefined;
      },
      { timeoutMs: 20_000 },
    );
    assert.ok(
      names.some((n) => n.startsWith(`StartWorkflow:${MESSAGE_WORKFLOW}`)),
      names.join(', '),
    );
    // Resolution and HTTP delivery are one local activity in the lean shape.
    assert.ok(
      names.some((n) => n.startsWith('RunActivity:resolveAndDeliver')),
      names.join(', '),
    );
  });
});
