import { Router } from 'express';
import { agentView, type AgentStore } from '../../domain/agent-store';
import { ApiError } from '../errors';
import { agentIdParams, registerAgentBody } from '../schemas';
import { parseInput } from '../validate';

function duplicateNames(names: string[]): string[] {
  return [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
}

export function agentRoutes(deps: { agents: AgentStore; tenant: string }): Router {
  const router = Router();

  router.post('/v1/agents', async (req, res) => {
    const body = parseInput(registerAgentBody, req.body, 'body');
    const duplicates = duplicateNames(body.capabilities.map((c) => c.name));
    if (duplicates.length > 0) {
      throw new ApiError(422, 'duplicate_capability', 'Capability names must be unique within an agent', {
        names: duplicates,
      });
    }
    const result = await deps.agents.register(deps.tenant, body);
    if (result.kind === 'name_taken') {
      throw new ApiError(409, 'agent_name_taken', `An agent named "${body.name}" is already registered in this tenant`);
    }
    res
      .status(201)
      .location(`/v1/agents/${result.agent._id}`)
      .json({ agent_id: result.agent._id, secret: result.secret, agent: agentView(result.agent) });
  });

  router.get('/v1/agents/:agent_id', async (req, res) => {
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    const agent = await deps.agents.get(deps.tenant, agent_id);
    if (!agent) throw new ApiError(404, 'agent_not_found', `No agent ${agent_id}`);
    res.json(agentView(agent));
  });

  return router;
}
