/** A capability candidate for unit tests, named `agent_id/capability`, with no instances. */
import type { CapabilityCandidate } from '../../router/candidates';

export function testCandidate(
  key: string,
  capability: Partial<CapabilityCandidate['capability']> = {},
): CapabilityCandidate {
  const [agent_id, name] = key.split('/') as [string, string];
  return {
    key,
    agent_id,
    agent_name: agent_id,
    agent_description: '',
    agent_tags: [],
    capability: { name, description: '', tags: [], examples: [], ...capability },
    instances: [],
  };
}
