/**
 * The WebSocket channel for agents that cannot expose an HTTP endpoint. An agent connects out to any api replica at
 * `GET /v1/agents/:agent_id/ws?instance_id=…` with `Authorization: Bearer <secret>`. The open connection counts as
 * its heartbeat and records this replica's task queue on the instance, so deliveries reach this replica.
 *
 * Frames (JSON text): gateway → agent `{"type":"delivery", …envelope}`; agent → gateway
 * `{"type":"ack","message_id","attempt","status":"accepted|processed|failed|duplicate|refused","result?","error?"}`
 * within the attempt timeout, then `{"type":"receipt","message_id","status":"processed|failed","result?","error?"}`
 * (answered with `{"type":"receipt_result",…}`). Errors in frames are answered with `{"type":"error",…}`.
 *
 * One connection's trouble stays with it: a frame that is not valid UTF-8 or is larger than the limit closes that
 * socket (1007 / 1009), a failing frame handler answers an error frame, and a socket that misses a pong is
 * terminated, so a half-open connection stops beating for its instance.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { SocketSender } from '../../activities/deliver-socket';
import { ackFrame, type AckFrame, type ErrorFrame } from '../../protocol/frames';
import { callbackBody } from '../../protocol/receipt';
import type { Catalogue } from '../../catalogue/catalogue';
import { tooManyInstances, type HeartbeatResult } from '../../catalogue/heartbeats';
import type { ClientLimit } from '../client-limit';
import type { AgentDoc } from '../../store/agents';
import { AGENT_ID_PATTERN, instanceKey } from '../../rules/ids';
import { parseBearer } from '../agent-auth';
import type { MessageService } from '../../messages/message-service';

const PATH = /^\/v1\/agents\/([^/]+)\/ws$/;
const INSTANCE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Largest frame an agent may send; a larger one closes its socket with 1009. */
export const MAX_FRAME_BYTES = 1024 * 1024;

interface Connected {
  socket: WebSocket;
  agent: AgentDoc;
  instanceId: string;
  /** Whether the socket answered the last ping. */
  alive: boolean;
}

export interface SocketHubDeps {
  catalogue: Catalogue;
  messages: MessageService;
  /** This replica's task queue for socket deliveries. */
  taskQueue: string;
  /** The api's per-address limit before authentication: failed upgrades spend it too. */
  clients: Pick<ClientLimit, 'check' | 'chargeFailure'>;
  logger: Logger;
  /** How often each socket is pinged; one without a pong by the next ping is terminated. @default the heartbeat interval */
  pingIntervalMs?: number;
}

export class SocketHub implements SocketSender {
  private readonly connected = new Map<string, Connected>();
  private readonly pendingAcks = new Map<string, (ack: AckFrame) => void>();
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly pinger: NodeJS.Timeout;

  constructor(private readonly deps: SocketHubDeps) {
    this.pinger = setInterval(() => this.pingAll(), deps.pingIntervalMs ?? deps.catalogue.policy.intervalMs);
    this.pinger.unref();
  }

  attach(http: Server): void {
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Node removes its own error listener from an upgraded socket; a reset during authentication must not crash.
      socket.on('error', (error: Error) => this.deps.logger.debug({ err: error }, 'websocket upgrade socket error'));
      this.upgrade(req, socket, head).catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'websocket upgrade failed');
        refuse(socket, {
          status: 503,
          code: 'unavailable',
          message: 'The connection could not be set up; retry shortly',
        });
      });
    });
  }

  /**
   * An address whose upgrades keep failing (a malformed request, no or a wrong secret, an unknown agent) spends the
   * tokens of the api's per-address limit (api/client-limit.ts), and once they are spent is refused 429 before any
   * secret is checked. An instance past its agent's limit is refused 422 before the upgrade, so the agent backs off.
   */
  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const address = req.socket.remoteAddress;
    const allowed = this.deps.clients.check(address);
    if (!allowed.allowed) {
      const seconds = allowed.retryAfterSeconds;
      return refuse(
        socket,
        {
          status: 429,
          code: 'rate_limited',
          message: `Too many failed connections from this address; retry in ${seconds} s`,
          details: { retry_after_seconds: seconds },
        },
        { 'Retry-After': String(seconds) },
      );
    }
    const admitted = await this.admit(req);
    if ('status' in admitted) {
      this.deps.clients.chargeFailure(address);
      return refuse(socket, admitted);
    }
    const { agent, instanceId } = admitted;
    // The first heartbeat, before the upgrade: an instance the agent has no room for gets an HTTP answer, not a socket.
    const first = await this.beat(agent, instanceId);
    if (first.kind === 'too_many_instances')
      return refuse(socket, { status: 422, ...tooManyInstances(agent._id, instanceId, first.limit) });
    if (first.kind === 'unknown_instance')
      return refuse(socket, { status: 404, code: 'agent_not_found', message: `No agent ${agent._id}` });
    this.server.handleUpgrade(req, socket, head, (ws) => {
      this.connect(ws, agent, instanceId).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, agent_id: agent._id }, 'websocket connect failed');
        ws.terminate();
      });
    });
  }

  /** Who is knocking: the agent (by its secret) and the instance, or how to refuse. */
  private async admit(req: IncomingMessage): Promise<{ agent: AgentDoc; instanceId: string } | Refusal> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const agentId = PATH.exec(url.pathname)?.[1];
    const instanceId = url.searchParams.get('instance_id') ?? '';
    if (!agentId || !AGENT_ID_PATTERN.test(agentId) || !INSTANCE_ID.test(instanceId)) {
      return {
        status: 400,
        code: 'invalid_request',
        message: 'Connect to /v1/agents/<agent_id>/ws?instance_id=<1-64 of A-Z a-z 0-9 . _ ->',
      };
    }
    const secret = parseBearer(req.headers.authorization);
    if (!secret)
      return {
        status: 401,
        code: 'unauthenticated',
        message: 'Send the agent secret as "Authorization: Bearer <secret>"',
      };
    const auth = await this.deps.catalogue.store.authenticate(agentId, secret);
    if (auth.kind === 'unknown_agent') return { status: 404, code: 'agent_not_found', message: `No agent ${agentId}` };
    if (auth.kind !== 'ok')
      return { status: 401, code: 'invalid_secret', message: 'The agent secret is not valid for this agent' };
    return { agent: auth.agent, instanceId };
  }

  /** A heartbeat of the instance, recording this replica's task queue on it so its deliveries come here. */
  private beat(agent: AgentDoc, instanceId: string): Promise<HeartbeatResult> {
    return this.deps.catalogue.heartbeats.beat(agent, {
      instance_id: instanceId,
      transport: 'websocket',
      ws_task_queue: this.deps.taskQueue,
    });
  }

  /** Terminates the sockets that did not answer the previous ping, and pings the others. */
  private pingAll(): void {
    for (const entry of this.connected.values()) {
      if (!entry.alive) {
        this.deps.logger.info(
          { agent_id: entry.agent._id, instance_id: entry.instanceId },
          'websocket missed its pong: terminated',
        );
        entry.socket.terminate();
        continue;
      }
      entry.alive = false;
      entry.socket.ping();
    }
  }

  private async connect(socket: WebSocket, agent: AgentDoc, instanceId: string): Promise<void> {
    const key = instanceKey(agent._id, instanceId);
    // Without this listener, ws's 'error' for an invalid or oversized frame (it closes with 1007 / 1009) is fatal.
    socket.on('error', (error: Error) => this.deps.logger.info({ err: error, key }, 'websocket closed on a bad frame'));
    this.connected.get(key)?.socket.close(4000, 'replaced by a newer connection');
    const entry: Connected = { socket, agent, instanceId, alive: true };
    this.connected.set(key, entry);
    socket.on('pong', () => {
      entry.alive = true;
    });
    const beat = () =>
      this.beat(agent, instanceId).catch((error: unknown) =>
        this.deps.logger.warn({ err: error, key }, 'websocket heartbeat failed'),
      );
    const timer = setInterval(() => void beat(), this.deps.catalogue.policy.intervalMs);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      this.onFrame(agent, socket, data, isBinary).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, key }, 'websocket frame failed');
        reply(socket, { type: 'error', code: 'internal', message: 'the frame could not be handled; send it again' });
      });
    });
    socket.on('close', () => {
      clearInterval(timer);
      if (this.connected.get(key)?.socket === socket) this.connected.delete(key);
    });
    socket.send(JSON.stringify({ type: 'ready', agent_id: agent._id, instance_id: instanceId }));
  }

  private async onFrame(agent: AgentDoc, socket: WebSocket, data: RawData, isBinary: boolean): Promise<void> {
    if (isBinary)
      return reply(socket, { type: 'error', code: 'invalid_frame', message: 'frames are JSON text, not binary' });
    let frame: { type?: unknown } & Record<string, unknown>;
    try {
      frame = JSON.parse(data.toString()) as typeof frame;
    } catch {
      return reply(socket, { type: 'error', code: 'invalid_json', message: 'frames are JSON text' });
    }
    if (frame === null || typeof frame !== 'object')
      return reply(socket, { type: 'error', code: 'invalid_frame', message: 'a frame is a JSON object' });
    if (frame.type === 'ack') {
      const ack = ackFrame.safeParse(frame);
      if (!ack.success) return reply(socket, { type: 'error', code: 'invalid_frame', details: ack.error.issues });
      this.pendingAcks.get(`${agent._id}:${ack.data.message_id}#${ack.data.attempt}`)?.(ack.data as AckFrame);
      return;
    }
    if (frame.type === 'receipt') {
      const { type: _type, ...body } = frame;
      const receipt = callbackBody.safeParse(body);
      if (!receipt.success)
        return reply(socket, { type: 'error', code: 'invalid_frame', details: receipt.error.issues });
      const { message_id } = receipt.data;
      let result: Awaited<ReturnType<MessageService['receipt']>>;
      try {
        result = await this.deps.messages.receipt(agent, receipt.data);
      } catch (error) {
        this.deps.logger.warn({ err: error, message_id }, 'websocket receipt failed');
        return reply(socket, {
          type: 'error',
          code: 'receipt_failed',
          message_id,
          message: 'the receipt was not recorded; send it again',
        });
      }
      socket.send(JSON.stringify({ type: 'receipt_result', message_id, ...result }));
      return;
    }
    reply(socket, { type: 'error', code: 'unknown_frame', message: 'expected ack or receipt' });
  }

  async send(
    agentId: string,
    instanceId: string,
    envelope: object,
    timeoutMs: number,
  ): Promise<{ ack: AckFrame } | { failure: string }> {
    const entry = this.connected.get(instanceKey(agentId, instanceId));
    // A socket being closed (terminated for a missed pong, say) stays listed until its close event: it is not open.
    if (!entry || entry.socket.readyState !== WebSocket.OPEN)
      return { failure: 'the instance has no open socket on this replica' };
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
    clearInterval(this.pinger);
    for (const { socket } of this.connected.values()) socket.close(1001, 'gateway shutting down');
    this.server.close();
  }
}

function reply(socket: WebSocket, frame: ErrorFrame): void {
  socket.send(JSON.stringify(frame));
}

/** An upgrade refused, as the api's error answers. */
interface Refusal {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Answers the upgrade request with the error shape `{"error":{code,message,details?}}` and closes it. */
function refuse(socket: Duplex, refusal: Refusal, headers: Record<string, string> = {}): void {
  const { status, ...error } = refusal;
  const body = JSON.stringify({ error });
  const lines = Object.entries({
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines}\r\n${body}`);
}
