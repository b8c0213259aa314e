/**
 * `runChain` (chains started from Temporal, and by the api): the chain checked in full before any step starts, as
 * a local activity of the worker, with the api's own check (chains/check-chain.ts). A refusal is a non-retryable
 * ApplicationFailure whose type is the refusal's code and whose details name the step.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { capabilitySchemas, checkChain, type ChainCheckDeps } from '../chains/check-chain';
import type { RunChainInput } from '../chains/temporal';
import { plannedSteps, type PlannedStep } from '../chains/plan';
import type { ChainRunLimits } from '../chains/run-state';

export interface PreparedChain {
  steps: PlannedStep[];
  /** Absent in runs recorded before the limits: such a run applies none. */
  limits?: ChainRunLimits;
}

/** The `parameters` schema of a capability, for an intent step's check after routing; undefined when it declares none. */
export function createCapabilityParameters(deps: ChainCheckDeps | undefined) {
  return async function capabilityParameters(request: {
    tenant: string;
    agent_id: string;
    capability: string;
  }): Promise<Record<string, unknown> | undefined> {
    const found = await deps?.queries.get(request.tenant, request.agent_id);
    const capability = found?.agent.capabilities.find((c) => c.name === request.capability);
    return capability && capabilitySchemas(capability).parameters;
  };
}

/**
 * `sealChecked`: the input carries the gateway's seal and it checked out (activities/index.ts checks it first): the
 * api built it after checking the chain in full with this very code and the caller's ACLs, moments before the run
 * started, so the chain is not checked again (its steps' targets are checked again as each message starts).
 */
export function createPrepareChain(deps: ChainCheckDeps | undefined) {
  return async function prepareChain(input: RunChainInput, sealChecked = false): Promise<PreparedChain> {
    if (!deps) throw ApplicationFailure.nonRetryable('this worker does not run chains', 'not_configured');
    if (sealChecked) return { steps: plannedSteps(input), ...runLimits(deps) };
    const {
      tenant,
      chain_id: _chainId,
      key_id: _keyId,
      key_proof: _proof,
      key_proofs: _proofs,
      caller: _caller,
      seal: _seal,
      reply_retry_initial_ms: _retry,
      limits: _limits,
      ...body
    } = input;
    const checked = await checkChain(deps, tenant, body);
    if (!checked.ok) {
      const { refusal } = checked;
      const message = refusal.issues
        ? `invalid chain: ${refusal.issues.map((i) => `${i.location.replace(/^body\./, '')}: ${i.message}`).join('; ')}`
        : refusal.message;
      throw ApplicationFailure.create({ type: refusal.code, message, nonRetryable: true, details: [refusal] });
    }
    return { steps: checked.steps, ...runLimits(deps) };
  };
}

function runLimits(deps: ChainCheckDeps): Pick<PreparedChain, 'limits'> {
  const { maxMessageBytes, maxHistoryBytes } = deps.limits;
  return maxMessageBytes && maxHistoryBytes
    ? { limits: { max_message_bytes: maxMessageBytes, max_history_bytes: maxHistoryBytes } }
    : {};
}
