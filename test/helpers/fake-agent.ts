/**
 * A scriptable HTTP agent for tests: it records every delivery and answers as the test says — accept and send
 * the receipt, answer inline, fail with a status, or stay silent.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Delivery {
  headers: IncomingHttpHeaders;
  /** The body exactly as received (signatures cover these bytes). */
  raw: string;
  body: {
    message_id: string;
    trace_id: string;
    attempt: number;
    callback_url: string;
    capability: string;
    payload: unknown;
    intent: string | null;
    [key: string]: unknown;
  };
}

export interface Reply {
  /** Drop the connection without answering, as an agent that crashes mid-request. */
  crash?: boolean;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Answer `{"status":"processed","result":"xx…"}` with this many bytes of result, streamed (with backpressure) until
   * it is all sent or the gateway drops the connection; `sentBytes` then tells how much went out.
   */
  hugeResultBytes?: number;
  /** Receipt posted to the callback URL after answering; none when absent. */
  receipt?: {
    status: 'processed' | 'failed' | 'misrouted';
    result?: unknown;
    error?: { message: string; code?: string };
  };
}

export type Behaviour = (delivery: Delivery, index: number) => Reply;

export const acceptAndConfirm: Behaviour = (d) => ({
  status: 202,
  receipt: { status: 'processed', result: { handled: d.body.message_id } },
});

export interface FakeAgent {
  url: string;
  deliveries: Delivery[];
  /** What the api answered each receipt; status 0 when the post failed (no api listening). */
  receiptAnswers: { status: number; body: unknown }[];
  /** Bytes of the huge answers written so far (see Reply.hugeResultBytes). */
  sentBytes: number;
  secret: string;
  behave(behaviour: Behaviour): void;
  stop(): Promise<void>;
}

export async function startFakeAgent(initial: Behaviour = acceptAndConfirm): Promise<FakeAgent> {
  let behaviour = initial;
  const agent: FakeAgent = {
    url: '',
    deliveries: [],
    receiptAnswers: [],
    sentBytes: 0,
    secret: '',
    behave(next) {
      behaviour = next;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const sendReceipt = async (delivery: Delivery, receipt: NonNullable<Reply['receipt']>) => {
    const response = await fetch(delivery.body.callback_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.secret}` },
      body: JSON.stringify({ message_id: delivery.body.message_id, ...receipt }),
    });
    agent.receiptAnswers.push({ status: response.status, body: await response.json() });
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const delivery: Delivery = { headers: req.headers, raw, body: JSON.parse(raw) };
      const index = agent.deliveries.push(delivery) - 1;
      const reply = behaviour(delivery, index);
      if (reply.crash) {
        req.socket.destroy();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      if (reply.hugeResultBytes !== undefined)
        return streamHugeResult(res, reply.hugeResultBytes, (n) => (agent.sentBytes += n));
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body), () => {
        // A receipt posted while the system stops (a late delivery, at teardown) finds no api: recorded, not thrown.
        if (reply.receipt)
          sendReceipt(delivery, reply.receipt).catch((error: unknown) =>
            agent.receiptAnswers.push({ status: 0, body: { error: String(error) } }),
          );
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  agent.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/deliveries`;
  return agent;
}

/** Writes a processed answer whose result is `bytes` of "x", chunk by chunk, stopping when the reader goes away. */
function streamHugeResult(res: import('node:http').ServerResponse, bytes: number, sent: (n: number) => void): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let left = bytes;
  let open = true;
  res.once('close', () => (open = false));
  res.write('{"status":"processed","result":"');
  const writeMore = () => {
    while (open && left > 0) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      sent(piece.length);
      if (!res.write(piece)) return void res.once('drain', writeMore);
    }
    if (open) res.end('"}');
  };
  writeMore();
}
