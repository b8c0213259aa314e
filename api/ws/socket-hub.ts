/**
 * The WebSocket channel for agents that cannot expose an HTTP endpoint. An agent connects out to any api replica at
 * `GET /v1/agents/:agent_id/ws?instance_id=…` with `Authorization: Bearer <secret>`. The open connection counts as
 * its heartbeat and records this replica's task queue on the instance, so deliveries reach this replica.
 *
 * Frames (JSON text): gateway → agent `{"type":"delivery", …envelope}`; agent → gateway
 * `{"type":"ack","message_id","attempt","status":"accepted|processed|failed|duplicate|refused","result?","error?"}`
 * within the attempt timeout, then `{"type":"receipt","message_id","status":"processed|failed","result?","error?"}`
 * (answered with `{"type":"receipt_result",…}`). Errors in frames are answered with `{"type":"error",…}`.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { SocketSender } from '../../activities/deliver-socket';
import { ackFrame, type AckFrame } from '../../protocol/frames';
import { callbackBody } from '../../protocol/receipt';
import type { Catalogue } from '../../catalogue/catalogue';
import type { AgentDoc } from '../../store/agents';
import { AGENT_ID_PATTERN, instanceKey } from '../../rules/ids';
import { parseBearer } from '../agent-auth';
import type { MessageService } from '../../messages/message-service';

const PATH = /^\/v1\/agents\/([^/]+)\/ws$/;
const INSTANCE_ID = /^[A-Za-z0-9._-]{1,64}$/;

interface Connected {
  socket: WebSocket;
  agent: AgentDoc;
  instanceId: string;
}

export interface SocketHubDeps {
  catalogue: Catalogue;
  messages: MessageService;
  /** This replica's task queue for socket deliveries. */
  taskQueue: string;
  logger: Logger;
}

export class SocketHub implements SocketSender {
  private readonly connected = new Map<string, Connected>();
  private readonly pendingAcks = new Map<string, (ack: AckFrame) => void>();
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  constructor(private readonly deps: SocketHubDeps) {}

  attach(http: Server): void {
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(req, socket, head).catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'websocket upgrade failed');
        refuse(socket, 503, 'Service Unavailable');
      });
    });
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const agentId = PATH.exec(url.pathname)?.[1];
    const instanceId = url.searchParams.get('instance_id') ?? '';
    if (!agentId || !AGENT_ID_PATTERN.test(agentId) || !INSTANCE_ID.test(instanceId)) return refuse(socket, 400, 'Bad Request');
    const secret = parseBearer(req.headers.authorization);
    if (!secret) return refuse(socket, 401, 'Unauthorized');
    const auth = await this.deps.catalogue.store.authenticate(agentId, secret);
    if (auth.kind === 'unknown_agent') return refuse(socket, 404, 'Not Found');
    if (auth.kind !== 'ok') return refuse(socket, 401, 'Unauthorized');
    this.server.handleUpgrade(req, socket, head, (ws) => void this.connect(ws, auth.agent, instanceId));
  }

  private async connect(socket: WebSocket, agent: AgentDoc, instanceId: string): Promise<void> {
    const key = instanceKey(agent._id, instanceId);
    this.connected.get(key)?.socket.close(4000, 'replaced by a newer connection');
    this.connected.set(key, { socket, agent, instanceId });
    const beat = () =>
      this.deps.catalogue.heartbeats
        .beat(agent, { instance_id: instanceId, transport: 'websocket', ws_task_queue: this.deps.taskQueue })
        .catch((error: unknown) => this.deps.logger.warn({ err: error, key }, 'websocket heartbeat failed'));
    const timer = setInterval(() => void beat(), this.deps.catalogue.policy.intervalMs);
    socket.on('message', (data: RawData) => void this.onFrame(agent, socket, data));
    socket.on('close', () => {
      clearInterval(timer);
      if (this.connected.get(key)?.socket === socket) this.connected.delete(key);
    });
    await beat();
    socket.send(JSON.stringify({ type: 'ready', agent_id: agent._id, instance_id: instanceId }));
  }

  private async onFrame(agent: AgentDoc, socket: WebSocket, data: RawData): Promise<void> {
    let frame: { type?: unknown } & Record<string, unknown>;
    try {
      frame = JSON.parse(data.toString()) as typeof frame;
    } catch {
      socket.send(JSON.stringify({ type: 'error', code: 'invalid_json', message: 'frames are JSON text' }));
      return;
    }
    if (frame.type === 'ack') {
      const ack = ackFrame.safeParse(frame);
      if (!ack.success) {
        socket.send(JSON.stringify({ type: 'error', code: 'invalid_frame', details: ack.error.issues }));
        return;
      }
      this.pendingAcks.get(`${agent._id}:${ack.data.message_id}#${ack.data.attempt}`)?.(ack.data as AckFrame);
      return;
    }
    if (frame.type === 'receipt') {
      const { type: _type, ...body } = frame;
      const receipt = callbackBody.safeParse(body);
      if (!receipt.success) {
        socket.send(JSON.stringify({ type: 'error', code: 'invalid_frame', details: receipt.error.issues }));
        return;
      }
      const result = await this.deps.messages.receipt(agent, receipt.data);
      socket.send(JSON.stringify({ type: 'receipt_result', message_id: receipt.data.message_id, ...result }));
      return;
    }
    socket.send(JSON.stringify({ type: 'error', code: 'unknown_frame', message: 'expected ack or receipt' }));
  }

  async send(agentId: string, instanceId: string, envelope: object, timeoutMs: number): Promise<{ ack: AckFrame } | { failure: string }> {
    const entry = this.connected.get(instanceKey(agentId, instanceId));
    if (!entry) return { failure: 'the instance has no open socket on this replica' };
    const { message_id, attempt } = envelope as { message_id: string; attempt: number };
    const key = `${agentId}:${message_id}#${attempt}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pendingAcks.delete(key);
        resolve({ failure: `no ack within ${timeoutMs} ms` });
      }, timeoutMs);
      this.pendingAcks.set(key, (ack) => {
        clearTimeout(timer);
        this.pendingAcks.delete(key);
        resolve({ ack });
      });
      entry.socket.send(JSON.stringify({ type: 'delivery', ...envelope }), (error) => {
        if (!error) return;
        clearTimeout(timer);
        this.pendingAcks.delete(key);
        resolve({ failure: `send failed: ${error.message}` });
      });
    });
  }

  close(): void {
    for (const { socket } of this.connected.values()) socket.close(1001, 'gateway shutting down');
    this.server.close();
  }
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
