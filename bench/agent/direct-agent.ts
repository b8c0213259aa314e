/**
 * A simulated agent reached by plain HTTP, as a typical direct integration does it: no idempotency check, it
 * answers 200 once its work is done, then calls the next agent with a typical client (3 tries with backoff).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { postWithRetry } from '../lib/http-retry';
import { appendEvent } from '../lib/ledger';
import { hopMessageId, type Role } from '../lib/pipeline';
import { readBody } from './fault-layer';

export interface DirectAgentOptions {
  role: Role;
  ledger: string;
  workMs: number;
  nextUrl?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function directHandler(options: DirectAgentOptions) {
  const { role, ledger } = options;
  return async (req: IncomingMessage, res: ServerResponse, loseReceipt: boolean): Promise<void> => {
    const { key } = JSON.parse(await readBody(req)) as { key: string };
    appendEvent(ledger, { type: 'delivery', role, key, id: hopMessageId(key, role), at: Date.now() });
    await sleep(options.workMs);
    appendEvent(ledger, { type: 'effect', role, key, at: Date.now() });
    if (loseReceipt) req.socket.destroy();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"processed"}');
    if (!options.nextUrl) return;
    const outcome = await postWithRetry(options.nextUrl, { key });
    appendEvent(ledger, { type: 'forward', role, key, outcome, at: Date.now() });
  };
}
