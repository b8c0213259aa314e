/**
 * The gateway's own A2A card (docs/a2a.md). Without a key: the public card, whose one skill sends by intent and which
 * says a fuller card comes with a key. With a key: every capability of the key's tenant that the key may reach (its
 * ACLs) as a skill `<agent_id>/<capability>`, after the `route` and `plan_and_run` skills. Pure.
 */
import { version } from '../../package.json';
import {
  A2A_FACE_PATH,
  agentFacePath,
  agentSkills,
  exportA2aCard,
  DEFAULT_INPUT_MODES,
  DEFAULT_OUTPUT_MODES,
  gatewayAccess,
  type A2aSpecVersion,
} from '../../catalogue/a2a';
import type { AgentDoc } from '../../store/agents';
import { canReach } from '../../rules/acl';
import type { Caller } from '../../rules/api-key';
import { PLAN_AND_RUN_SKILL_ID, ROUTE_SKILL_ID, SKILL_ID_SEPARATOR } from './send';
import type { Config } from '../../platform/config';
import type { TokenVerifier } from '../../identity/token-verifier';
import { withConfiguredSchemes } from '../oauth-resource';

/** Skills of one card at most (the route skill included); the rest are reachable all the same, by name or intent. */
export const MAX_CARD_SKILLS = 1000;

const ROUTE_SKILL = {
  id: ROUTE_SKILL_ID,
  name: 'Route by intent',
  description:
    'Say what you want in a text part (any language): Agent-Reach routes it to the agent capability that fits, or ' +
    'answers rejected (no route, ambiguous, or parameters missing). JSON-object data parts are the parameters.',
  tags: ['routing', 'gateway'],
  examples: ['refund order 1042', '订单2024090112要退款，退35元'],
};

/** The skill that plans a chain from one request and runs it on the caller's yes (plan-tasks.ts). */
const PLAN_AND_RUN_SKILL = {
  id: PLAN_AND_RUN_SKILL_ID,
  name: 'Plan and run a chain',
  description:
    'Say a multi-step request in a text part (zh or en; e.g. "check order 20240901, and if it has not shipped, cancel it, then ' +
    'tell me the result"): Agent-Reach splits it, routes each step and answers the plan as an input-required task (the plan ' +
    'as a data part). Reply on the same task "yes" (or a data part {"confirm": true}) to run it, "no" to cancel. A plan the ' +
    'router did not accept whole is rejected, and nothing runs.',
  tags: ['planning', 'chains', 'gateway'],
  examples: [
    'Check the status of order 20240901, and if it has not shipped yet, cancel the order, then tell me the result',
    '查一下订单20240901的状态，如果还没发货就帮我取消，然后告诉我结果',
  ],
};

function gatewayCardBase(publicUrl: string, specVersion: A2aSpecVersion) {
  return {
    name: 'Agent-Reach',
    description:
      'A gateway to the agents of this tenant: each message is delivered durably (retried, at most once in effect per ' +
      'message id) to the skill named in the message metadata, or to where the intent routes it.',
    version,
    documentationUrl: `${publicUrl}/docs`,
    ...gatewayAccess(`${publicUrl}${A2A_FACE_PATH}`, specVersion),
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true },
    defaultInputModes: DEFAULT_INPUT_MODES,
    defaultOutputModes: DEFAULT_OUTPUT_MODES,
  };
}

/** The card anyone may read: how to reach the gateway, and the route skill. */
export function publicGatewayCard(publicUrl: string, specVersion: A2aSpecVersion = '1.0') {
  return { ...gatewayCardBase(publicUrl, specVersion), skills: [ROUTE_SKILL] };
}

/** The card of one key: the route and plan_and_run skills and every capability the key may reach, up to MAX_CARD_SKILLS. */
export function gatewayCard(
  publicUrl: string,
  agents: readonly AgentDoc[],
  caller: Caller,
  specVersion: A2aSpecVersion = '1.0',
) {
  const skills: object[] = [ROUTE_SKILL, PLAN_AND_RUN_SKILL];
  for (const agent of agents) {
    const reachable = agentSkills(agent, (c) => canReach(caller, { tenant: agent.tenant, acl: c.acl }).allowed);
    for (const { capability, skill } of reachable) {
      if (skills.length >= MAX_CARD_SKILLS) break;
      skills.push({
        ...skill,
        id: `${agent._id}${SKILL_ID_SEPARATOR}${capability.name}`,
        name: `${agent.name}: ${String(skill.name)}`,
      });
    }
  }
  return { ...gatewayCardBase(publicUrl, specVersion), skills };
}

/**
 * An agent's card for anyone, without a key: the agent as its key's card shows it, but with only the capabilities
 * every caller of its tenant may reach (no ACL) and that the tenant did not mark `private`. A card needs a skill
 * (the spec requires them, the TCK a non-empty list): with none public, the one skill routes by intent.
 */
export function publicAgentCard(agent: AgentDoc, publicUrl: string, specVersion: A2aSpecVersion = '1.0') {
  const card = exportA2aCard(
    agent,
    `${publicUrl}${agentFacePath(agent._id)}`,
    specVersion,
    (c) => !c.acl && !c.private,
  );
  if ((card.skills as unknown[]).length > 0) return card;
  return {
    ...card,
    skills: [
      {
        ...ROUTE_SKILL,
        description: `Say what you want in a text part: Agent-Reach routes it among the skills of ${agent.name}, which a key's card lists.`,
      },
    ],
  };
}

/**
 * A card as the gateway serves it: `capabilities.pushNotifications` true where the face takes push configs (posts are
 * signed with CALLER_WEBHOOK_SECRET: without it, none is taken), and the identity provider's schemes where set.
 */
export async function servedCard<T extends Record<string, unknown>>(
  card: T,
  config: Pick<Config, 'AUTH_OIDC_ISSUER' | 'CALLER_WEBHOOK_SECRET'>,
  tokens?: TokenVerifier,
): Promise<T> {
  const capabilities = {
    ...(card.capabilities as Record<string, unknown> | undefined),
    pushNotifications: pushConfigsOffered(config),
  };
  return withConfiguredSchemes({ ...card, capabilities }, config, tokens);
}

/** Whether the face takes push notification configs: only where their posts can be signed. */
export function pushConfigsOffered(config: Pick<Config, 'CALLER_WEBHOOK_SECRET'>): boolean {
  return Boolean(config.CALLER_WEBHOOK_SECRET);
}
