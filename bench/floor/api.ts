/**
 * The floor's api process: `POST /v1/messages` starts a floor run and answers 202; `POST /v1/callback` sends the
 * receipt update and answers its result. No auth, validation or logging. Env: TEMPORAL_ADDRESS, FLOOR_PORT,
 * AGENT_URL; FLOOR_EAGER=true runs the floor's worker in this process and starts runs eagerly (as an api with
 * API_RUNS_WORKER does).
 */
import { createServer, type IncomingMessage } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { FLOOR_TASK_QUEUE } from './queue';
import { floorReceipt } from './workflow';
import { createFloorWorker } from './worker';

async function body(req: IncomingMessage): Promise<{ message_id: string; status?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString()) as { message_id: string; status?: string };
}

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS!;
  const eager = process.env.FLOOR_EAGER === 'true';
  const connection = eager ? await NativeConnection.connect({ address }) : await Connection.connect({ address });
  if (eager) void (await createFloorWorker(connection as NativeConnection)).run();
  const client = new Client({ connection, namespace: 'default' });
  const port = Number(process.env.FLOOR_PORT);
  const callbackUrl = `http://127.0.0.1:${port}/v1/callback`;
  createServer((req, res) => {
    void (async () => {
      if (req.url === '/readyz') return void res.writeHead(200).end();
      const { message_id, status } = await body(req);
      const workflowId = `floor:${message_id}`;
      if (req.url === '/v1/messages') {
        const args = [{ message_id, agent_url: process.env.AGENT_URL!, callback_url: callbackUrl }];
        await client.workflow.start('floorWorkflow', {
          workflowId,
          taskQueue: FLOOR_TASK_QUEUE,
          args,
          requestEagerStart: eager,
        });
        return void res.writeHead(202, { 'content-type': 'application/json' }).end('{}');
      }
      const answer = await client.workflow
        .getHandle(workflowId)
        .executeUpdate(floorReceipt, { args: [{ status: status ?? 'processed' }] });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    })().catch((error: Error) => res.writeHead(500).end(error.message));
  }).listen(port, '127.0.0.1');
}

main().catch((error: unknown) => {
  console.error('floor api failed:', error);
  process.exit(1);
});
