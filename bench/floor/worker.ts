/** The floor's worker: the floor workflow and its activity, Temporal SDK defaults. Run alone, env TEMPORAL_ADDRESS. */
import { NativeConnection, Worker } from '@temporalio/worker';
import { floorActivities } from './activities';
import { FLOOR_TASK_QUEUE } from './queue';

export function createFloorWorker(connection: NativeConnection): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: 'default',
    taskQueue: FLOOR_TASK_QUEUE,
    workflowsPath: require.resolve('./workflow'),
    activities: floorActivities,
  });
}

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  await (await createFloorWorker(connection)).run();
  await connection.close();
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error('floor worker failed:', error);
    process.exit(1);
  });
}
