export { ReachAgent, type AgentCard, type Delivery, type Handler, type ReachAgentOptions } from './agent';
export { FileStore, MemoryStore, type HandledMessage, type IdempotencyStore, type StoreWindow } from './idempotency-store';
