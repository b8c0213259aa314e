/**
 * How an instance is reached: `http` (our envelope, POSTed from any worker), `websocket` (over the socket held by
 * one api replica) or `a2a` (the A2A protocol, spoken to the instance's A2A interface from any worker).
 */
export const TRANSPORTS = ['http', 'websocket', 'a2a'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** Which way a delivery goes: over the WebSocket held by one api replica, or else from any worker. */
export function deliversOverSocket(target: { transport: Transport; ws_task_queue?: string }): boolean {
  return target.transport === 'websocket' && target.ws_task_queue !== undefined;
}

/** Whether the instance speaks A2A: delivered by an A2A client, its outcome learned from its task. */
export function speaksA2a(target: { transport: Transport }): boolean {
  return target.transport === 'a2a';
}
