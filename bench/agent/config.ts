/** What the harness tells a simulated agent process (passed as JSON in BENCH_AGENT). */
import type { FaultPlan } from '../lib/faults';
import type { Role } from '../lib/pipeline';

export interface AgentConfig {
  mode: 'direct' | 'reach';
  role: Role;
  port: number;
  /** Folder of the ledgers (and, for Agent-Reach, the SDK's identity and handled-ids files). */
  dir: string;
  fault: FaultPlan;
  seed: number;
  /** Simulated work of one hop, in ms. */
  workMs: number;
  /** Direct HTTP: the next agent's URL. */
  nextUrl?: string;
  /** Agent-Reach: the next agent's id. */
  nextAgentId?: string;
  /** Agent-Reach: the api, its optional API key, and the capability's delivery knobs. */
  gateway?: string;
  apiKey?: string;
  ackTimeoutMs?: number;
  maxAttempts?: number;
  maxDeliveryMs?: number;
  /** A name unique to this run (the catalogue refuses two agents of one name). */
  name: string;
}

/** Sent over IPC once the agent listens (and, for Agent-Reach, is registered). */
export interface ReadyMessage {
  type: 'ready';
  agentId?: string;
}
