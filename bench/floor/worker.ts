/** The floor's worker process: the floor workflow and its activity, Temporal SDK defaults. Env: TEMPORAL_ADDRESS. */
import { NativeConnection, Worker } from '@temporalio/worker';
import { floorActivities } from './activities';
import { FLOOR_TASK_QUEUE } from './queue';

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({ connection, namespace: 'default', taskQueue: FLOOR_TASK_QUEUE, workflowsPath: require.resolve('./workflow'), activities: floorActivities });
  await worker.run();
  await connection.close();
}

main().catch((error: unknown) => {
  console.error('floor worker failed:', error);
  process.exit(1);
});
