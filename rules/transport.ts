/** Which way a delivery goes: over HTTP from any worker, or over the WebSocket held by one api replica. */
export function deliversOverSocket(target: { transport: 'http' | 'websocket'; ws_task_queue?: string }): boolean {
  return target.transport === 'websocket' && target.ws_task_queue !== undefined;
}
