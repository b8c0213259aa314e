/** The `agent_instances` collection: where each running copy of an agent is reached, its state, load and last heartbeat. */
import { Schema } from 'mongoose';
import { TRANSPORTS, type Transport } from '../rules/transport';

export { TRANSPORTS, type Transport };
export const INSTANCE_STATES = ['healthy', 'busy', 'draining'] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];
export type Liveness = 'online' | 'offline';

export interface InstanceLoad {
  in_flight: number;
  qps: number;
}

export interface InstanceDoc {
  /** `${agent_id}/${instance_id}` */
  _id: string;
  agent_id: string;
  tenant: string;
  instance_id: string;
  transport: Transport;
  endpoint?: string;
  /** WebSocket instances: the task queue of the api replica holding the socket. */
  ws_task_queue?: string;
  state: InstanceState;
  load: InstanceLoad;
  last_heartbeat_at: Date;
  /** Marked by heartbeats (online) and the sweeper (offline); routing also derives it from the heartbeat age. */
  liveness: Liveness;
  liveness_changed_at: Date;
  created_at: Date;
}

export const instanceSchema = new Schema<InstanceDoc>(
  {
    _id: { type: String, required: true },
    agent_id: { type: String, required: true },
    tenant: { type: String, required: true },
    instance_id: { type: String, required: true },
    transport: { type: String, enum: TRANSPORTS, required: true },
    endpoint: String,
    ws_task_queue: String,
    state: { type: String, enum: INSTANCE_STATES, required: true },
    load: {
      in_flight: { type: Number, default: 0 },
      qps: { type: Number, default: 0 },
    },
    last_heartbeat_at: { type: Date, required: true },
    liveness: { type: String, enum: ['online', 'offline'], required: true },
    liveness_changed_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'agent_instances' },
);
instanceSchema.index({ agent_id: 1 });
instanceSchema.index({ liveness: 1, last_heartbeat_at: 1 });
