/**
 * The agent library of this repository (`ReachAgent`): import it from a checkout (`import { ReachAgent } from
 * './sdk'`). It is not a published package: it shares the wire protocol's types (`protocol/`) with the gateway.
 */
export {
  answersOf,
  InputRequiredError,
  MisroutedError,
  ReachAgent,
  type AgentCard,
  type Answer,
  type Delivery,
  type Handler,
  type ReachAgentOptions,
} from './agent';
export {
  FileStore,
  MemoryStore,
  type HandledMessage,
  type IdempotencyStore,
  type StoreWindow,
} from './idempotency-store';
