/**
 * `sendMessage` (Temporal-native callers): the intake of a message started directly, as a local activity of the
 * worker. It validates the input with the api's own schema, checks the named target as the api does (the agent and
 * capability exist, the capability's ACL admits the caller) and builds the run's input with the api's own builder,
 * so the message then runs exactly as one posted to `POST /v1/messages`.
 *
 * Refusals are non-retryable ApplicationFailures: the run fails at once and nothing is delivered.
 */
import { ApplicationFailure, log } from '@temporalio/activity';
import type { AgentQueries } from '../catalogue/agent-queries';
import { SEND_FAILURES } from '../temporal-callers/contract';
import { chooseTarget, isRefusal, type TargetRefusal } from '../messages/choose-target';
import type { MessageInput } from '../messages/message';
import {
  bodyHashOf,
  buildMessageInput,
  messageMemoOf,
  messageSummaryOf,
  type IntakeConfig,
} from '../messages/message-input';
import { refusalBeforeTarget } from '../messages/intake-checks';
import type { MessageMemo } from '../messages/runs';
import type { Config } from '../platform/config';
import type { Router } from '../router/router';
import type { ApiKeyStore } from '../store/api-keys';
import { newTraceId } from '../rules/ids';
import { checkSealOf, sealInput, type Sealable, type SealKeys } from '../messages/seal';
import { messageWorkflowId } from '../messages/temporal';
import {
  asInputRefusal,
  directCaller,
  parseDirectInput,
  type DirectInput,
  type InputRefusal,
} from '../messages/direct-input';
import { chainCaller } from '../chains/chain-caller';
import { chainMessageIds } from '../chains/chain-service';
import { RUN_CHAIN_WORKFLOW, type RunChainInput } from '../chains/temporal';
import { SEND_MESSAGE_WORKFLOW } from '../temporal-callers/contract';
import type { RunProvenance, StartedRun } from './run-provenance';
import type { Caller } from '../rules/api-key';
import { endpointPolicy, type EndpointPolicy } from '../rules/endpoint-policy';

export interface PrepareMessageDeps {
  queries: Pick<AgentQueries, 'checkReach'>;
  config: IntakeConfig &
    Pick<Config, 'TEMPORAL_CALLERS_REQUIRE_KEY' | 'MAX_PAYLOAD_BYTES'> &
    Parameters<typeof endpointPolicy>[0];
  /** Where `reply_to` may point; from `config` when absent. */
  endpointPolicy?: EndpointPolicy;
  /** Chooses the target of intent-only messages; absent (the worker) → such inputs come back `needs_routing`. */
  router?: Pick<Router, 'route'>;
  /** Finds the caller of a `key_id`; absent → inputs with a `key_id` are refused. */
  keys?: Pick<ApiKeyStore, 'callerById' | 'callerByProof'>;
  /** Seals the input built (messages/seal.ts), as the api does. */
  sealKeys: SealKeys;
  now: () => number;
  /** Who scheduled it: `sendMessage` (locally, or for routing on the api's queue) or a chain (routing a step). */
  provenance: Pick<RunProvenance, 'isLocal' | 'schedulingRun' | 'run' | 'isGatewayRun' | 'currentRun'>;
}

/** What the run that asks says of itself (from its workflow info); read only of a local activity (our own code). */
export interface PrepareContext {
  /** A `sendMessage` run's parent. */
  parent?: { workflow_id: string; run_id: string };
  /** The run asking is the chain this message is a step (or compensation) of: it starts the message itself. */
  own_chain?: true;
}

export interface PreparedMessage {
  kind: 'prepared';
  input: MessageInput;
  memo: MessageMemo;
  /** What Temporal UI would show for a run the api started; set as the run's current details. */
  summary: { staticSummary: string; staticDetails: string };
}

/** What a worker without the router answers for an intent-only input: the workflow asks the api's routing queue. */
export interface NeedsRouting {
  kind: 'needs_routing';
}

/** A catalogue refusal as the api's 404s and 403 say it. */
function refusalOf(
  refused: TargetRefusal,
  tenant: string,
  agentId: string,
  capability: string,
  keyId: string | undefined,
): ApplicationFailure {
  switch (refused.kind) {
    case 'unknown_agent':
      return refusal(SEND_FAILURES.unknownAgent, `no agent ${agentId} in tenant ${tenant}`);
    case 'unknown_capability':
      return refusal(SEND_FAILURES.unknownCapability, `agent ${agentId} has no capability ${capability}`);
    case 'forbidden':
      return refusal(
        SEND_FAILURES.forbidden,
        keyId
          ? `the ACL of ${capability} does not admit key ${keyId}`
          : `the ACL of ${capability} does not admit callers without a key_id (they hold only the send scope)`,
      );
  }
}

const refusal = (type: string, message: string, details?: unknown) =>
  ApplicationFailure.create({
    type,
    message,
    nonRetryable: true,
    ...(details === undefined ? {} : { details: [details] }),
  });

const refuseInput = (r: InputRefusal) => refusal(r.type, r.message, r.details);

/**
 * The chain run this message is a step (or compensation) of, as Temporal says: the run routing the step, the chain
 * run preparing it locally, or the parent of the `sendMessage` run, when it is a gateway chain. Undefined for any
 * other message.
 */
async function chainOf(
  provenance: PrepareMessageDeps['provenance'],
  context: PrepareContext | undefined,
): Promise<StartedRun | undefined> {
  let parent = context?.parent;
  if (!provenance.isLocal()) {
    const run = await provenance.schedulingRun('prepareMessage', [SEND_MESSAGE_WORKFLOW, RUN_CHAIN_WORKFLOW]);
    if (run.type === RUN_CHAIN_WORKFLOW) return firstChainRun(provenance, run);
    parent = run.parent;
  } else if (context?.own_chain) {
    return firstChainRun(provenance, await provenance.currentRun());
  }
  if (!parent) return undefined;
  return firstChainRun(provenance, await provenance.run(parent.workflow_id, parent.run_id));
}

/**
 * The chain's first run, whose input and start vouch for its caller (a chain that continued as new runs on under the
 * same workflow id); undefined unless it and `run` are gateway chains.
 */
async function firstChainRun(
  provenance: PrepareMessageDeps['provenance'],
  run: StartedRun,
): Promise<StartedRun | undefined> {
  if (!provenance.isGatewayRun(run, [RUN_CHAIN_WORKFLOW])) return undefined;
  if (!run.first_run_id) return run;
  const first = await provenance.run(run.workflow_id, run.first_run_id);
  return provenance.isGatewayRun(first, [RUN_CHAIN_WORKFLOW]) ? first : undefined;
}

/** The deps of a worker that takes direct starts; refused `not_configured` without them. */
function readyDeps(deps: Partial<PrepareMessageDeps>): PrepareMessageDeps {
  const { queries, config, now, sealKeys, provenance } = deps;
  if (!queries || !config || !now || !sealKeys || !provenance)
    throw refusal('not_configured', 'this worker does not take direct sendMessage starts');
  return { ...deps, queries, config, now, sealKeys, provenance };
}

/** A chain's message is sent as the chain's caller (chains/chain-caller.ts), if it is one of the chain's. */
async function chainStepCaller(
  deps: PrepareMessageDeps,
  chain: StartedRun,
  tenant: string,
  messageId: string,
): Promise<Caller> {
  const input = chain.input as RunChainInput;
  if (input?.tenant !== tenant || !chainMessageIds(input, input.chain_id).includes(messageId)) {
    throw refusal(SEND_FAILURES.forbidden, `message ${messageId} is not a message of chain ${input?.chain_id}`);
  }
  const found = await chainCaller(
    { config: deps.config, sealKeys: deps.sealKeys, ...(deps.keys ? { keys: deps.keys } : {}) },
    input,
    { workflowId: chain.workflow_id, startedAt: chain.started_at },
    messageId,
  );
  if ('refusal' in found) throw refusal(found.refusal.type, found.refusal.message);
  return found.caller;
}

/**
 * The token caller the gateway's Nexus handler vouched for: its seal, made for this run's workflow id when the
 * handler started it (messages/seal.ts), covers the whole input, caller included. A token's subject only: a key
 * caller proves itself with its key proof.
 */
async function sealedTokenCaller(
  deps: PrepareMessageDeps,
  request: unknown,
  sealed: { caller: Caller },
  tenant: string,
  messageId: string,
): Promise<Caller> {
  const run = await deps.provenance.currentRun();
  const verdict = checkSealOf(
    request as Sealable,
    deps.sealKeys,
    { workflowId: run.workflow_id, startedAt: run.started_at },
    messageWorkflowId(tenant, messageId),
  );
  if (!verdict.ok)
    throw refusal(
      SEND_FAILURES.invalidAccessToken,
      `the caller in this input was not vouched for by the gateway (${verdict.reason}); send access_token through Nexus`,
    );
  const { caller } = sealed;
  if (!caller?.subject || caller.tenant !== tenant || !Array.isArray(caller.scopes))
    throw refusal(SEND_FAILURES.invalidAccessToken, 'the sealed caller is not a token subject of this tenant');
  return caller;
}

/**
 * Who sends, as every way in asks first (messages/intake-checks.ts): the caller the gateway sealed, else a chain's
 * caller for a message of its own, else the key the input names.
 */
async function senderOf(
  deps: PrepareMessageDeps,
  request: unknown,
  input: DirectInput,
  messageId: string,
  chain: StartedRun | undefined,
): Promise<Caller> {
  const { tenant, keyId, keyProof, sealed, body } = input;
  if (sealed) return sealedTokenCaller(deps, request, sealed, tenant, messageId);
  if (chain && !keyId) return chainStepCaller(deps, chain, tenant, messageId);
  const found = await directCaller(
    { config: deps.config, ...(deps.keys ? { keys: deps.keys } : {}) },
    tenant,
    messageId,
    body,
    keyId,
    keyProof,
  );
  if ('refusal' in found) throw refuseInput(found.refusal);
  if (found.legacy)
    log.warn(
      'a key proof of the earlier kind (message id only) was accepted: rotate the key (GET /v1/keys shows proofs: legacy)',
      { key_id: keyId, message_id: messageId },
    );
  return found.caller;
}

export function createPrepareMessage(partialDeps: Partial<PrepareMessageDeps>) {
  return async function prepareMessage(
    request: unknown,
    context?: PrepareContext,
  ): Promise<PreparedMessage | NeedsRouting> {
    const deps = readyDeps(partialDeps);
    const chain = await chainOf(deps.provenance, context);
    const parsed = parseDirectInput(request);
    if ('refusal' in parsed) throw refuseInput(parsed.refusal);
    const { tenant: tenantName, keyId, accessToken, body } = parsed.input;
    if (!body.message_id) throw refusal(SEND_FAILURES.invalidInput, 'invalid input: message_id: required');
    // A token in a direct start's input would stay in the gateway's history, usable by whoever reads it.
    if (accessToken)
      throw refusal(
        SEND_FAILURES.invalidAccessToken,
        'access_token is taken on the Nexus operation only (a direct start keeps its input in history): use key_id and key_proof here',
      );
    // In the order of every way in (messages/intake-checks.ts): who sends, the checks before the target, the target.
    const caller = await senderOf(deps, request, parsed.input, body.message_id, chain);
    const now = new Date(deps.now());
    const refused = await refusalBeforeTarget(body, {
      config: deps.config,
      endpointPolicy: deps.endpointPolicy ?? endpointPolicy(deps.config),
      now,
    });
    if (refused) throw refuseInput(asInputRefusal(refused));
    // Routing needs the router, which lives in the api: the workflow asks the api's routing queue instead.
    if (!body.target?.capability && !deps.router) return { kind: 'needs_routing' };
    const chosen = await chooseTarget(
      { queries: deps.queries, ...(deps.router ? { router: deps.router } : {}) },
      caller,
      body,
    );
    if (isRefusal(chosen))
      throw refusalOf(chosen, tenantName, body.target?.agent_id ?? '', body.target?.capability ?? '', keyId);
    const built = buildMessageInput({
      tenant: tenantName,
      messageId: body.message_id,
      traceId: newTraceId(),
      body,
      chosen,
      caller,
      acceptedAt: now.toISOString(),
      config: deps.config,
    });
    const input = sealInput(built, deps.sealKeys.keys[0]!, now);
    return {
      kind: 'prepared',
      input,
      memo: messageMemoOf(input, bodyHashOf(body), body.session_id),
      summary: messageSummaryOf(input),
    };
  };
}
