/**
 * What one message run knows while it delivers, and the Temporal handlers that change it: the caller's status query
 * and cancel update, the agent's receipt update, an A2A agent's task-changed signal. Beside StatusRecord (what the
 * status says), it holds where the message goes now, which instances failed it, and its budget of tries and time.
 * Deterministic: `Date.now()` and `condition` are the workflow sandbox's.
 */
import { condition, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { DeliveryTarget } from '../catalogue/agent-queries';
import {
  isTerminal,
  type CancelInput,
  type MessageInput,
  type MessageState,
  type MessageStatus,
  type MessageTarget,
  type Reason,
  type ReceiptInput,
  type ReplyInput,
} from '../messages/message';
import {
  a2aTaskChangedSignal,
  cancelUpdate,
  receiptUpdate,
  replyUpdate,
  SA_STATE,
  statusQuery,
} from '../messages/temporal';
import { INVALID_ANSWERS, replyIssues, takeAnswers } from '../protocol/answers';
import type { Answer, CallerTurn, InputRequest, Turn } from '../protocol/turns';
import type { RerouteResult } from '../activities/reroute-message';
import { InstanceFailures, type Progress } from './next-step';
import { StatusRecord } from './status-record';

/**
 * A lean run waiting this long for a receipt shows `delivered` in the visibility store (`GET /v1/messages?state=
 * delivered` finds messages stuck there); receipts that come sooner cost no visibility write.
 */
export const RECEIPT_VISIBLE_AFTER_MS = 2_000;

/** The state a receipt moves the message to, as its update answers. */
const RECEIPT_STATE: Record<ReceiptInput['status'], MessageState> = {
  processed: 'processed',
  failed: 'failed',
  misrouted: 'routing',
  input_required: 'input_required',
};

/** The caller's words in an input (only what it has). */
function words(input: Pick<MessageInput, 'intent' | 'params' | 'payload'>): Omit<CallerTurn, 'role' | 'at'> {
  return {
    ...(input.intent === undefined ? {} : { intent: input.intent }),
    ...(input.params === undefined ? {} : { params: input.params }),
    ...(input.payload === undefined ? {} : { payload: input.payload }),
  };
}

export class MessageRun {
  readonly record: StatusRecord;
  readonly status: MessageStatus;
  readonly deadlineMs: number;
  /** The receipt that came and is not consumed yet (a redelivery's receipt can come after it is). */
  private pendingReceipt: ReceiptInput | undefined;
  private cancelled: CancelInput | undefined;
  /** An A2A agent's push notification: its task changed, read it now. */
  private taskChanged = false;
  /** A receipt came at some point (the settlement tells the circuit and the ranking). */
  private anyReceipt = false;
  /** The input carried no valid seal: the run ends rejected, nothing settled, nobody notified. */
  private noSeal = false;
  /** Where the message goes: the input's target until an agent answers `misrouted` and the router chooses again. */
  private target: MessageTarget;
  /** The parameters the router extracted for the rerouted capability. */
  private rerouted: Record<string, unknown> | undefined;
  private readonly misroutedCapabilities: string[] = [];
  /** Instances that failed this message twice (errors or missing receipts): the next attempts go elsewhere if they can. */
  private failed = new InstanceFailures();
  /** A redriven run numbers its attempts after the earlier runs' ones, with a fresh budget of attempts. */
  readonly earlierAttempts: number;
  /** The capability may set its own caps on attempts and on total delivery time. */
  private maxAttempts: number;
  private giveUpTime = Number.POSITIVE_INFINITY;
  private failure: Reason = { code: 'delivery_exhausted', message: 'no delivery was attempted' };
  /** Lean runs: a try that found every instance's circuit open, or the catalogue out, is not spent. */
  private sparedTries = 0;
  /** The delivery turn: 1, then one more after each reply of the caller to an agent's question. */
  private currentTurn = 1;
  /** The caller's reply that came and is not delivered yet (to several questions: once every one is answered). */
  private reply: ReplyInput | undefined;
  /** What the agent asked, as it asked it, while the message waits for the caller. */
  private asked: InputRequest | undefined;
  /** The answers given so far to several questions asked at once (protocol/answers.ts). */
  private answered: Record<string, Answer> = {};
  /** Tries spent on earlier turns: each turn has its own budget of attempts. */
  private triesBeforeTurn = 0;
  /** The task the latest delivery to an A2A agent started: a follow-up turn continues it. */
  private a2aTask: string | undefined;

  constructor(
    readonly input: MessageInput,
    readonly lean: boolean,
    readonly now: () => string,
  ) {
    this.record = new StatusRecord(input, now, (state) => {
      if (!lean || isTerminal(state)) this.showState(state);
    });
    this.status = this.record.status;
    this.deadlineMs = input.deadline ? Date.parse(input.deadline) : Number.POSITIVE_INFINITY;
    this.target = input.target;
    this.earlierAttempts = this.status.attempts.length;
    this.maxAttempts = input.policy.maxAttempts;
  }

  /** The caller's cancel request, once it came. */
  get cancelRequest(): CancelInput | undefined {
    return this.cancelled;
  }

  /** A receipt came and is not consumed yet. */
  get hasReceipt(): boolean {
    return this.pendingReceipt !== undefined;
  }

  /** A receipt came at some point of the run. */
  get receiptCame(): boolean {
    return this.anyReceipt;
  }

  /** The input carried no valid seal (see markUnsealed). */
  get unsealed(): boolean {
    return this.noSeal;
  }

  /** Where the message goes now. */
  get destination(): MessageTarget {
    return this.target;
  }

  /** The parameters the router extracted for the rerouted capability, after a misroute. */
  get reroutedParams(): Record<string, unknown> | undefined {
    return this.rerouted;
  }

  /** The capabilities that answered `misrouted`, in order. */
  get misroutedTo(): readonly string[] {
    return this.misroutedCapabilities;
  }

  /** When the capability's own limit on delivery time runs out (never, without one). */
  get giveUpAt(): number {
    return this.giveUpTime;
  }

  /** Why the latest try failed. */
  get lastFailure(): Reason {
    return this.failure;
  }

  /** The delivery turn. */
  get turn(): number {
    return this.currentTurn;
  }

  /** Instances this message should not go to now. */
  avoided(): string[] {
    return this.failed.excluded();
  }

  /** An instance failed this message (an error or a missing receipt). */
  blame(instanceId: string): void {
    this.failed.add(instanceId);
  }

  /** A try failed, and why. */
  noteFailure(failure: Reason): void {
    this.failure = failure;
  }

  /** A try that does not count against the budget (every circuit open, or the catalogue out). */
  spareTry(): void {
    this.sparedTries++;
  }

  /** The input carried no valid seal: the run ends rejected, nothing settled, nobody notified. */
  markUnsealed(): void {
    this.noSeal = true;
  }

  /** Time spent waiting for the caller does not count against the capability's limit on delivery time. */
  postponeGiveUp(ms: number): void {
    this.giveUpTime += ms;
  }

  /** The outcome of an A2A task stands as the receipt, unless one came already. */
  receiptFromTask(receipt: ReceiptInput): void {
    this.pendingReceipt ??= receipt;
  }

  /** Waits until a receipt, a cancel request or an A2A push comes, or `ms` pass; the push is consumed. */
  async taskNewsWithin(ms: number): Promise<void> {
    await condition(() => this.pendingReceipt !== undefined || this.cancelled !== undefined || this.taskChanged, ms);
    this.taskChanged = false;
  }

  /** Answers the status query, the cancel and receipt updates, and an A2A agent's push signal. */
  listen(): void {
    setHandler(a2aTaskChangedSignal, () => {
      this.taskChanged = true;
    });
    setHandler(statusQuery, () => this.status);
    this.listenForReplies();
    setHandler(cancelUpdate, (request) => {
      if (isTerminal(this.status.state)) return { cancelled: false, state: this.status.state };
      this.cancelled ??= request;
      return { cancelled: true, state: 'cancelled' };
    });
    setHandler(
      receiptUpdate,
      (r) => {
        // No delivery is out while the message waits for input, and a receipt for another turn is a late repeat.
        const notNow = this.status.state === 'input_required' || (r.turn ?? 1) !== this.currentTurn;
        if (this.pendingReceipt || isTerminal(this.status.state) || notNow)
          return { applied: false, state: this.status.state };
        this.pendingReceipt = r;
        return { applied: true, state: RECEIPT_STATE[r.status] };
      },
      {
        validator: (r) => {
          if (!this.status.agent || r.agent_id !== this.status.agent.agent_id) {
            throw new Error('not_your_message: this message was not delivered to the agent sending the receipt');
          }
        },
      },
    );
  }

  /** The caller's reply to the agent's question, taken only while the message waits for one. */
  private listenForReplies(): void {
    setHandler(
      replyUpdate,
      (reply) => {
        const taken = takeAnswers(this.asked ?? { message: '' }, this.answered, reply);
        this.answered = taken.answered;
        if (taken.open) {
          this.status.input_required = taken.open;
          this.status.updated_at = this.now();
          return { applied: true, state: 'input_required', turn: this.currentTurn };
        }
        this.reply = taken.reply;
        return { applied: true, state: 'delivering', turn: this.currentTurn + 1 };
      },
      {
        validator: (reply: ReplyInput) => {
          if (this.status.state !== 'input_required' || this.reply)
            throw new Error(`not_waiting_for_input: the message is ${this.status.state}, not waiting for input`);
          const issues = replyIssues(this.status.input_required ?? { message: '' }, reply);
          if (issues.length > 0)
            throw new Error(`${INVALID_ANSWERS}: ${issues.map((i) => `${i.location}: ${i.message}`).join('; ')}`);
        },
      },
    );
  }

  /** Writes the state to the visibility store (every change in classic runs; lean runs choose when). */
  showState(state: MessageState): void {
    upsertSearchAttributes([{ key: SA_STATE, value: state }]);
  }

  /** Where the message stands against its budget (of this turn); a spared try does not count. */
  progress(tries: number): Progress {
    return {
      tries: tries - this.sparedTries - this.triesBeforeTurn,
      maxAttempts: this.maxAttempts,
      lastFailure: this.failure,
    };
  }

  /** How many times the agent asked for input. */
  inputRequests(): number {
    return (this.status.turns ?? []).filter((t) => t.role === 'agent').length;
  }

  /** The agent asked the caller for input: the message waits in `input_required`, visibly. */
  askedForInput(input: InputRequest): void {
    this.asked = input;
    this.answered = {};
    this.status.input_required = input;
    this.addTurn({ role: 'agent', ...input, at: this.now() });
    this.record.moveTo('input_required');
    if (this.lean) this.showState('input_required');
  }

  /** Waits until the caller replies or `ms` pass, but never past the deadline or a cancel request; true if it came. */
  async replyWithin(ms: number): Promise<boolean> {
    const bounded = Math.max(0, Math.min(ms, this.deadlineMs - Date.now()));
    await condition(() => this.reply !== undefined || this.cancelled !== undefined, bounded);
    return this.reply !== undefined;
  }

  /** The caller replied after `tries` tries: the next turn is delivered, with a fresh budget of attempts. */
  replied(tries: number): void {
    const reply = this.reply!;
    this.reply = undefined;
    this.asked = undefined;
    delete this.status.input_required;
    this.addTurn({ role: 'caller', ...reply, at: this.now() });
    this.currentTurn += 1;
    this.triesBeforeTurn = tries - this.sparedTries;
    this.failed = new InstanceFailures();
    this.record.moveTo('delivering');
    if (this.lean) this.showState('delivering');
  }

  private addTurn(turn: Turn): void {
    this.status.turns = [...(this.status.turns ?? []), turn];
  }

  /** The receipt that came, consumed so that a redelivery's receipt can come too. */
  takeReceipt(): ReceiptInput {
    const taken = this.pendingReceipt!;
    this.pendingReceipt = undefined;
    this.anyReceipt = true;
    return taken;
  }

  /** The instance this attempt goes to, with its capability's own caps. */
  aimAt(target: DeliveryTarget): void {
    this.maxAttempts = target.max_attempts ?? this.input.policy.maxAttempts;
    if (target.max_delivery_ms) this.giveUpTime = Date.parse(this.input.accepted_at) + target.max_delivery_ms;
    this.record.deliveringTo(target);
  }

  /**
   * The input as delivered now: with the rerouted capability's parameters after a misroute; on a follow-up turn, with
   * the params of the caller's replies merged in (later ones win), the turn and the conversation so far.
   */
  deliveredInput(): MessageInput {
    const input = this.rerouted ? { ...this.input, params: this.rerouted } : this.input;
    const followUp = this.followUp();
    return followUp ? { ...input, ...followUp } : input;
  }

  /** A delivery to an A2A agent answered with its task: a follow-up turn goes to that task. */
  deliveredToA2aTask(taskId: string): void {
    this.a2aTask = taskId;
  }

  /**
   * On a follow-up turn: the turn, the conversation so far, the params with the replies' merged in (later ones win),
   * and the A2A task the reply continues (an A2A agent's).
   */
  followUp(): Pick<MessageInput, 'turn' | 'history' | 'params' | 'a2a_task_id'> | undefined {
    if (this.currentTurn === 1) return undefined;
    const input = this.rerouted ? { ...this.input, params: this.rerouted } : this.input;
    const first: CallerTurn = { role: 'caller', ...words(input), at: input.accepted_at };
    const history = [first, ...(this.status.turns ?? [])];
    const replied = history.flatMap((t) => (t.role === 'caller' && t.params ? [t.params] : []));
    const params = replied.length > 0 ? (Object.assign({}, ...replied) as Record<string, unknown>) : undefined;
    return {
      turn: this.currentTurn,
      history,
      ...(params ? { params } : {}),
      ...(this.a2aTask ? { a2a_task_id: this.a2aTask } : {}),
    };
  }

  /** The agent answered `misrouted`: note it, and the capability is never chosen again for this message. */
  misrouted(): string {
    const capability = `${this.target.agent_id}/${this.target.capability}`;
    this.misroutedCapabilities.push(capability);
    this.record.misroutedTo(capability);
    return capability;
  }

  /** The router chose another capability: deliver there from a clean slate of failed instances. */
  reroutedTo(next: Extract<RerouteResult, { kind: 'routed' }>): void {
    this.record.rerouted(next.target, next.params, next.routing);
    this.target = next.target;
    this.rerouted = next.params ?? {};
    this.a2aTask = undefined;
    this.failed = new InstanceFailures();
  }

  /** Waits until a receipt comes or `ms` pass, but never past the deadline or a cancel request; true if it came. */
  async receiptWithin(ms: number): Promise<boolean> {
    const bounded = Math.max(0, Math.min(ms, this.deadlineMs - Date.now()));
    await condition(() => this.pendingReceipt !== undefined || this.cancelled !== undefined, bounded);
    return this.pendingReceipt !== undefined;
  }

  /** As receiptWithin, after a delivery: a lean run shows `delivered` to the visibility store once the wait is long. */
  async receiptAfterDelivery(ms: number): Promise<boolean> {
    if (!this.lean || ms <= RECEIPT_VISIBLE_AFTER_MS) return this.receiptWithin(ms);
    const waitStarted = Date.now();
    if (await this.receiptWithin(RECEIPT_VISIBLE_AFTER_MS)) return true;
    if (this.cancelled || Date.now() >= this.deadlineMs) return false;
    if (this.status.state === 'delivered') this.showState('delivered');
    return this.receiptWithin(ms - (Date.now() - waitStarted));
  }
}
