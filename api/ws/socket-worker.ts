/** The Temporal worker inside each api replica that performs deliveries over the sockets this replica holds. */
import type { NativeConnection } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createSocketActivities } from '../../activities/deliver-socket';
import { startActivityWorker, type RunningActivityWorker } from '../../platform/activity-worker';
import type { CircuitStore } from '../../store/circuits';
import type { SocketHub } from './socket-hub';
import type { SealKeys } from '../../messages/seal';
import type { DeliverRequest } from '../../activities/deliver';
import { RunProvenance } from '../../activities/run-provenance';
import { callerChecks, checked } from '../../activities/caller-checks';
import { socketTaskQueue } from '../../platform/temporal-names';

/** A task queue name unique to this replica's process. */
export function replicaTaskQueue(base: string): string {
  return socketTaskQueue(base, `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`);
}

export async function startSocketWorker(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  hub: SocketHub;
  circuits: Pick<CircuitStore, 'record'>;
  /** MAX_PAYLOAD_BYTES: the largest result an ack may carry to be kept. */
  maxResultBytes: number;
  /** TEMPORAL_TASK_QUEUE and the seal keys: only the gateway's own message runs may deliver (activities/caller-checks.ts). */
  gatewayTaskQueue: string;
  sealKeys: SealKeys;
}): Promise<RunningActivityWorker> {
  const { deliverOverSocket } = createSocketActivities({
    sockets: options.hub,
    circuits: options.circuits,
    now: Date.now,
    maxResultBytes: options.maxResultBytes,
  });
  const checks = callerChecks(new RunProvenance({ gatewayTaskQueue: options.gatewayTaskQueue }), options.sealKeys);
  return startActivityWorker({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: {
      deliverOverSocket: checked(
        (request: DeliverRequest) => checks.messageRun('deliverOverSocket', request.message),
        deliverOverSocket,
      ),
    },
  });
}
