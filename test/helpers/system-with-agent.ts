/** Fresh servers, a system on them and one fake agent registered: where many integration suites start. */
import { startFakeAgent, type Behaviour, type FakeAgent } from './fake-agent';
import { registerAgent } from './http';
import { startTestServers, type TestServers } from './servers';
import { startSystem, type TestSystem } from './system';

export interface SystemWithAgent {
  servers: TestServers;
  system: TestSystem;
  agent: FakeAgent;
  agentId: string;
  /** Stops the agent, the system and the servers, in that order. */
  stop(): Promise<void>;
}

export async function startSystemWithAgent(
  options: { env?: Record<string, string>; behaviour?: Behaviour; registration?: Record<string, unknown> } = {},
): Promise<SystemWithAgent> {
  const servers = await startTestServers();
  const system = await startSystem(servers, options.env);
  const agent = await startFakeAgent(options.behaviour);
  const registered = await registerAgent(system.baseUrl, agent.url, options.registration);
  agent.secret = registered.secret;
  const stop = async () => {
    await agent.stop();
    await system.stop();
    await servers.stop();
  };
  return { servers, system, agent, agentId: registered.agent_id, stop };
}
