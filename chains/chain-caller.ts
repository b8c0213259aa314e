/**
 * Who a chain's messages are sent as, from the chain run's own input — never from a proof carried per message.
 *
 * - A chain the api starts carries the caller it authenticated (`caller`) under the gateway's seal
 *   (messages/seal.ts), made for this chain's workflow id and start: the gateway vouches for its own run. An API key
 *   is looked up again (below); a token's subject is taken as sealed (a token has nothing to look up again).
 * - A chain a Temporal-native caller starts carries `key_id` and one `key_proof` of the whole chain body
 *   (rules/key-proof.ts, kind `chain`): it proves that key sends this body under this chain id, and nothing else.
 * - Chains started before either (`key_proofs`: one id-only proof per message id) are honoured per message, as
 *   their proofs were.
 * - Without a proof (allowed unless TEMPORAL_CALLERS_REQUIRE_KEY): the key named by `key_id`, or the namespace
 *   caller (the `send` scope only), as for a direct start.
 * The key is looked up again for every message (revoked since → refused; scopes as they are now).
 *
 * Uses node:crypto (through the seal and the proofs): never import from workflows.
 */
import type { Config } from '../platform/config';
import { hasScope, namespaceCaller, type Caller } from '../rules/api-key';
import { provenBody } from '../rules/key-proof';
import { checkSealOf, type RunOfInput, type SealKeys } from '../messages/seal';
import type { ApiKeyStore } from '../store/api-keys';
import { chainWorkflowId, type RunChainInput } from './temporal';

export interface ChainCallerDeps {
  config: Pick<Config, 'TEMPORAL_CALLERS_REQUIRE_KEY'>;
  keys?: Pick<ApiKeyStore, 'callerById' | 'callerByProof'>;
  sealKeys: SealKeys;
}

export type ChainCaller = { caller: Caller } | { refusal: { type: string; message: string } };

const refused = (type: string, message: string): ChainCaller => ({ refusal: { type, message } });

/** The key's caller now: of the chain's tenant, not revoked, with the `send` scope. */
async function keyCaller(deps: ChainCallerDeps, tenant: string, keyId: string, proven?: Caller): Promise<ChainCaller> {
  const caller = proven ?? (await deps.keys?.callerById(keyId));
  if (!caller || caller.tenant !== tenant)
    return refused('unknown_key', `no API key ${keyId} in tenant ${tenant} (or it was revoked)`);
  if (!hasScope(caller, 'send')) return refused('insufficient_scope', `key ${keyId} lacks the send scope`);
  return { caller };
}

/**
 * A token caller, as the gateway validated its token when it started the chain (the seal vouches for it): a token
 * has no store to look up again, and a chain may outlive the token, as a message does.
 */
function tokenCaller(tenant: string, caller: Caller): ChainCaller {
  if (!caller.subject || caller.tenant !== tenant)
    return refused('invalid_seal', 'the sealed caller is neither an API key nor a token subject of this tenant');
  if (!hasScope(caller, 'send'))
    return refused('insufficient_scope', `subject ${caller.subject.sub} lacks the send scope`);
  return { caller };
}

/**
 * The caller of the chain run `run` whose input is `input`, for the message `messageId` of it (needed only by
 * chains of the earlier, per-message proofs).
 */
export async function chainCaller(
  deps: ChainCallerDeps,
  input: RunChainInput,
  run: RunOfInput,
  messageId?: string,
): Promise<ChainCaller> {
  const { tenant, chain_id: chainId } = input;
  if (input.seal) {
    const seal = checkSealOf(input, deps.sealKeys, run, chainWorkflowId(tenant, chainId));
    if (!seal.ok || !input.caller)
      return refused(
        'invalid_seal',
        `the chain was not started by the gateway (${seal.ok ? 'it names no caller' : seal.reason})`,
      );
    if (input.caller.key_id === namespaceCaller(tenant).key_id) return { caller: namespaceCaller(tenant) };
    if (input.caller.key_id) return keyCaller(deps, tenant, input.caller.key_id);
    return tokenCaller(tenant, input.caller);
  }
  if (input.key_id && input.key_proof) {
    const subject = { kind: 'chain' as const, tenant, id: chainId, body: provenBody('chain', { ...input }) };
    const proven = await deps.keys?.callerByProof(input.key_id, input.key_proof, subject);
    if (!proven || proven.legacy)
      return refused(
        'invalid_key_proof',
        `key_proof is not the proof of key ${input.key_id} for this body of chain ${chainId} in tenant ${tenant} (or the key was revoked)`,
      );
    return keyCaller(deps, tenant, input.key_id, proven.caller);
  }
  if (input.key_id && input.key_proofs) {
    const proof = messageId === undefined ? undefined : input.key_proofs[messageId];
    if (messageId === undefined) return keyCaller(deps, tenant, input.key_id);
    const proven = proof
      ? await deps.keys?.callerByProof(input.key_id, proof, { kind: 'message', tenant, id: messageId, body: {} })
      : undefined;
    if (!proven)
      return refused(
        'invalid_key_proof',
        `the chain holds no valid proof of key ${input.key_id} for message ${messageId}`,
      );
    return keyCaller(deps, tenant, input.key_id, proven.caller);
  }
  if (deps.config.TEMPORAL_CALLERS_REQUIRE_KEY)
    return refused(
      'key_required',
      'this deployment requires a key_id and its key_proof (an API key with the send scope) on chains started from Temporal',
    );
  // As for a direct start without a proof: the namespace is trusted to name its key (docs/security.md).
  return input.key_id ? keyCaller(deps, tenant, input.key_id) : { caller: namespaceCaller(tenant) };
}
