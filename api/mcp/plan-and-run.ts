/**
 * `reach_plan_and_run` (docs/mcp.md, "Planning and running a chain"): one free-text request → the plan
 * `POST /v1/chains/plan` answers, run on the caller's confirmation. Only a runnable plan (every step accepted by the
 * router outright, nothing unplanned, the body checked) is ever offered to run; anything else is answered with
 * `started: false` and nothing runs.
 *
 * Confirmation, by what the client declared:
 * - a 2025-11-25 session whose client declared `elicitation`: the tool asks it (`elicitation/create`, a form with
 *   one boolean `run`, the plan in its message); accepted with `run: true` → the chain starts in the same call;
 * - a 2026-07-28 request whose client declared `elicitation`: an `input_required` result with the same form, and the
 *   plan in its (sealed) requestState; the client's second call with its answer starts it;
 * - any other client: the plan with a `plan_id`, and a second call `{confirm: true, plan: <chain>, plan_id}` starts
 *   exactly that body (plan-token.ts: bound to the key and the body, valid PLAN_TTL_MS). An edited plan goes to
 *   `POST /v1/chains`.
 * Every plan gets a chain id when planned, so a confirmation sent twice starts one chain.
 */
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { newChainId } from '../../chains/chain-service';
import type { Caller } from '../../rules/api-key';
import { requireScope } from '../caller-auth';
import {
  notRunnable,
  planText,
  proposePlan,
  spendOrRefuse,
  startPlannedChain,
  type PlanAnswer,
  type PlannedChain,
  type PlanningDeps,
} from '../chain-planning';
import { checkPlanId, planId } from '../plan-token';
import { chainLinks } from '../routes/chains';
import { chainPlanBody } from '../schemas';
import { parseInput } from '../validate';
import type { McpDeps, ToolCall } from './context';
import type { AgentInputRequired } from './mcp-results';
import type { ToolAnswer } from './send-and-wait';
import { inputSchemaOf, type ReachTool } from './reach-tool';
import { toolError, toolValue } from './tool-result';

export const PLAN_AND_RUN_TOOL = 'reach_plan_and_run';
/** The key of the confirmation in a 2026-07-28 input_required result. */
const CONFIRM_KEY = 'confirm_plan';

const planShape = chainPlanBody.shape;
/** Either a request to plan, or the confirmation of a plan shown. */
export function planAndRunArguments(maxWaitMs: number) {
  const waitMs = z
    .number()
    .int()
    .min(0)
    .max(maxWaitMs)
    .optional()
    .describe(`How long to wait for the chain to end once started, in ms (at most and by default ${maxWaitMs})`);
  return z.union([
    z.strictObject({ ...planShape, wait_ms: waitMs }),
    z.strictObject({
      confirm: z.literal(true).describe('Run the plan shown'),
      plan: z.record(z.string(), z.unknown()).describe('The `chain` of the plan, exactly as it was answered'),
      plan_id: z.string().max(200).describe('The `plan_id` answered with it'),
      wait_ms: waitMs,
    }),
  ]);
}

const confirmForm = (answer: PlanAnswer): ElicitRequestFormParams => ({
  mode: 'form',
  message: planText(answer),
  requestedSchema: {
    type: 'object',
    properties: { run: { type: 'boolean', title: 'Run this plan', description: 'Start the chain now' } },
    required: ['run'],
  },
});

/** Whether an elicitation's answer says to run. */
export function confirmed(result: { action: string; content?: Record<string, unknown> } | undefined): boolean {
  return result?.action === 'accept' && result.content?.run === true;
}

function planningDeps(deps: McpDeps): PlanningDeps {
  return {
    router: deps.router,
    queries: deps.catalogue.queries,
    chains: deps.chains,
    config: deps.config,
    metrics: deps.metrics,
  };
}

const spendFor = (deps: McpDeps, caller: Caller) => spendOrRefuse((units) => deps.limiter.take(caller.tenant, units));

export async function planAndRun(deps: McpDeps, call: ToolCall, args: unknown, maxWaitMs: number): Promise<ToolAnswer> {
  const caller = requireScope(call.caller, 'send');
  const round = call.round;
  // A 2026-07-28 client's answer to the confirmation asked below: the plan comes back in its sealed requestState.
  if (round?.requestState !== undefined)
    return answerRound(
      deps,
      call,
      caller,
      round.requestState,
      round.inputResponses?.[CONFIRM_KEY] as ElicitResult | undefined,
    );
  const parsed = parseInput(planAndRunArguments(maxWaitMs), args ?? {}, 'arguments');
  const waitMs = parsed.wait_ms ?? maxWaitMs;
  if ('confirm' in parsed) {
    const check = checkPlanId(deps.sealKeys, caller, parsed.plan, parsed.plan_id);
    if (!check.ok) return toolError('plan_not_confirmable', planIdRefusal(check.why), { why: check.why });
    return run(deps, call, caller, parsed.plan as PlannedChain, waitMs);
  }
  const { wait_ms: _, ...body } = parsed;
  const answer = await proposePlan(
    planningDeps(deps),
    caller,
    { ...body, chain_id: body.chain_id ?? newChainId() },
    spendFor(deps, caller),
  );
  if (!answer.runnable) return toolValue({ ...answer, started: false, why: notRunnable(answer) });
  if (call.elicit) {
    const reply = await call.elicit(confirmForm(answer));
    if (!confirmed(reply))
      return toolValue({ ...answer, started: false, why: `You did not confirm (${reply.action}): nothing runs` });
    return run(deps, call, caller, answer.chain, waitMs, answer);
  }
  if (round?.clientCapabilities.elicitation) return askInRound(answer, waitMs);
  const id = planId(deps.sealKeys, caller, answer.chain);
  return toolValue({
    ...answer,
    started: false,
    plan_id: id,
    hint: `Nothing runs yet. To run this plan, call ${PLAN_AND_RUN_TOOL} with {"confirm": true, "plan": <chain>, "plan_id": "${id}"} within 10 minutes; to change it, edit chain and POST it to /v1/chains.`,
  });
}

/** The confirmation as a 2026-07-28 input_required result; the plan rides in the requestState (sealed by the face). */
function askInRound(answer: PlanAnswer, waitMs: number): AgentInputRequired {
  return {
    resultType: 'input_required',
    inputRequests: { [CONFIRM_KEY]: { method: 'elicitation/create', params: confirmForm(answer) } },
    requestState: JSON.stringify({ chain: answer.chain, wait_ms: waitMs }),
  } as AgentInputRequired;
}

async function answerRound(
  deps: McpDeps,
  call: ToolCall,
  caller: Caller,
  state: string,
  reply: ElicitResult | undefined,
): Promise<ToolAnswer> {
  const { chain, wait_ms } = JSON.parse(state) as { chain: PlannedChain; wait_ms: number };
  if (!confirmed(reply))
    return toolValue({
      chain,
      started: false,
      why: `You did not confirm (${reply?.action ?? 'no answer'}): nothing runs`,
    });
  return run(deps, call, caller, chain, wait_ms);
}

/** Starts the chain and waits up to `waitMs` for its end: its status with the aggregate, or where it stands. */
async function run(
  deps: McpDeps,
  call: ToolCall,
  caller: Caller,
  chain: PlannedChain,
  waitMs: number,
  plan?: PlanAnswer,
): Promise<ToolAnswer> {
  const started = await startPlannedChain(planningDeps(deps), caller, chain, spendFor(deps, caller));
  const { chain_id } = started.status;
  await call.log?.('info', `chain ${chain_id}: ${started.kind === 'duplicate' ? 'already started' : 'started'}`);
  const ended = await deps.chains.waitForEnd(caller.tenant, chain_id, waitMs, call.signal);
  const links = chainLinks(deps.config, caller.tenant, chain_id);
  const shown = { ...(plan ? { plan: { chain: plan.chain, steps: plan.steps } } : {}), started: true, links };
  if (ended) return toolValue({ ...shown, status: ended });
  const now = (await deps.chains.get(caller.tenant, chain_id).catch(() => undefined)) ?? started.status;
  return toolValue({
    ...shown,
    status: now,
    ended: false,
    hint: `Still running after ${waitMs} ms: read it at ${links.self} (GET, scope read)`,
  });
}

function planIdRefusal(why: 'malformed' | 'expired' | 'not_this_plan'): string {
  switch (why) {
    case 'malformed':
      return 'plan_id is not one this tool answered';
    case 'expired':
      return 'The plan was shown more than 10 minutes ago: plan again';
    case 'not_this_plan':
      return 'plan_id is not the id of this plan for this key: send the chain exactly as answered, or plan again (an edited plan goes to POST /v1/chains)';
  }
}

/** The tool as `tools/list` shows it (reach-tools.ts lists it). */
export function planAndRunTool(maxWaitMs: number): ReachTool {
  return {
    scope: 'send',
    definition: {
      name: PLAN_AND_RUN_TOOL,
      title: 'Plan a chain from one request, and run it when confirmed',
      description:
        'Splits one free-text request (zh or en; e.g. "check order 20240901, and if it has not shipped, cancel it, then tell me ' +
        'the result") into steps, routes each to an agent capability and answers the plan: the chain body, why each step is ' +
        'there, and what could not be planned. Nothing runs until you confirm: by the elicitation the tool asks, or by ' +
        'calling again with {"confirm": true, "plan": <chain>, "plan_id": <plan_id>}. A plan the router did not accept whole ' +
        'is never run. Once started, waits up to `wait_ms` and returns the chain status with `results` by step id.',
      inputSchema: inputSchemaOf(planAndRunArguments(maxWaitMs)),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    run: (deps, call, args) => planAndRun(deps, call, args, maxWaitMs),
  };
}
