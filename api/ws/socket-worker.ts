/** The Temporal worker inside each api replica that performs deliveries over the sockets this replica holds. */
import type { NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createSocketActivities } from '../../activities/deliver-socket';
import { startActivityWorker, type RunningActivityWorker } from '../../platform/activity-worker';
import type { CircuitStore } from '../../store/circuits';
import type { SocketHub } from './socket-hub';

/** A task queue name unique to this replica's process. */
export function replicaTaskQueue(base: string): string {
  return `${base}-ws-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export async function startSocketWorker(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  hub: SocketHub;
  circuits: Pick<CircuitStore, 'record'>;
  /** MAX_PAYLOAD_BYTES: the largest result an ack may carry to be kept. */
  maxResultBytes: number;
}): Promise<RunningActivityWorker> {
  return startActivityWorker({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createSocketActivities({ sockets: options.hub, circuits: options.circuits, now: Date.now, maxResultBytes: options.maxResultBytes }),
  });
}
