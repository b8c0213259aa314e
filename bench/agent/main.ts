/**
 * A simulated agent process of the benchmark (one per pipeline role), started by the harness with its
 * configuration in BENCH_AGENT. Direct mode: a plain HTTP agent; reach mode: an SDK agent behind Agent-Reach.
 * Every request passes the fault layer first. Tells the parent over IPC when it is ready.
 */
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { seededRandom } from '../../util/random';
import { ledgerFile } from '../lib/ledger';
import type { AgentConfig, ReadyMessage } from './config';
import { directHandler } from './direct-agent';
import { withFaults, type FaultedHandler } from './fault-layer';
import { startReachAgent } from './reach-agent';

async function main(): Promise<void> {
  const config = JSON.parse(process.env.BENCH_AGENT ?? '') as AgentConfig;
  mkdirSync(config.dir, { recursive: true });
  const ledger = ledgerFile(config.dir, config.role);
  // Listen first: a restarted agent is reachable by the time its registration says where it is.
  let handler: FaultedHandler = (req, res) => void res.writeHead(503).end();
  const random = seededRandom(config.seed + process.pid); // a restarted agent draws a new fault sequence
  const server = createServer(withFaults(config.fault, random, (req, res, lose) => handler(req, res, lose)));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(config.port, '127.0.0.1', resolve));
  let agentId: string | undefined;
  if (config.mode === 'direct') {
    const direct = directHandler({
      role: config.role,
      ledger,
      workMs: config.workMs,
      ...(config.nextUrl ? { nextUrl: config.nextUrl } : {}),
    });
    handler = (req, res, lose) => void direct(req, res, lose);
  } else {
    const reach = await startReachAgent(config, ledger);
    handler = reach.handler;
    agentId = reach.agentId;
  }
  const ready: ReadyMessage = { type: 'ready', ...(agentId ? { agentId } : {}) };
  process.send?.(ready);
  process.on('SIGTERM', () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error(`bench agent failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
