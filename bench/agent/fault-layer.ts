/**
 * The fault-injecting layer in front of a simulated agent's HTTP handler: for each request it draws a fault and
 * drops the connection, answers 503, holds the request back, or lets it through (telling the handler whether its
 * answer is to be lost).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decideFault, type FaultPlan } from '../lib/faults';

export type FaultedHandler = (req: IncomingMessage, res: ServerResponse, loseReceipt: boolean) => void;

export function withFaults(plan: FaultPlan, random: () => number, handler: FaultedHandler) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const fault = decideFault(plan, random);
    switch (fault.kind) {
      case 'none':
        return handler(req, res, false);
      case 'drop':
        req.socket.destroy();
        return;
      case 'error_5xx':
        req.resume();
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"injected 503"}}');
        return;
      case 'delay':
        setTimeout(() => handler(req, res, false), fault.ms);
        return;
      case 'lose_receipt':
        return handler(req, res, true);
    }
  };
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
