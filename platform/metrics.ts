/**
 * Prometheus metrics. Each process has its own registry: the api serves its own at `GET /metrics`; the worker serves
 * its own on WORKER_METRICS_PORT. Counters are per process; Prometheus sums them over replicas.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createApiMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'reach_api_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'reach_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'reach_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
    routingDecisions: new Counter({
      name: 'reach_routing_decisions_total',
      help: 'Router decisions by outcome (routed, input_required, refused code) and deciding stage (explicit, match, session, llm, none)',
      labelNames: ['outcome', 'stage', 'dry_run'],
      registers: [registry],
    }),
    messagesSent: new Counter({
      name: 'reach_messages_sent_total',
      help: 'POST /v1/messages outcomes: accepted, duplicate, conflict, refused',
      labelNames: ['result'],
      registers: [registry],
    }),
    receipts: new Counter({
      name: 'reach_receipts_total',
      help: 'Receipts from agents: applied, duplicate, refused',
      labelNames: ['result'],
      registers: [registry],
    }),
    heartbeats: new Counter({ name: 'reach_heartbeats_total', help: 'Heartbeats received', registers: [registry] }),
    agentsOnline: new Gauge({
      name: 'reach_agents_online',
      help: 'Agents with at least one online instance',
      registers: [registry],
    }),
    instances: new Gauge({
      name: 'reach_instances',
      help: 'Instances by state and liveness',
      labelNames: ['state', 'online'],
      registers: [registry],
    }),
    circuitsOpen: new Gauge({
      name: 'reach_circuits_open',
      help: 'Agent instances whose circuit is open',
      registers: [registry],
    }),
    messagesByState: new Gauge({
      name: 'reach_messages',
      help: 'Messages by state (Temporal visibility)',
      labelNames: ['state'],
      registers: [registry],
    }),
  };
}
export type ApiMetrics = ReturnType<typeof createApiMetrics>;

export function createWorkerMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'reach_worker_' });
  return {
    registry,
    deliveryAttempts: new Counter({
      name: 'reach_delivery_attempts_total',
      help: 'Delivery attempts by outcome',
      labelNames: ['outcome', 'transport'],
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: 'reach_delivery_latency_seconds',
      help: 'Time an agent took to answer a delivery',
      labelNames: ['transport'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    retries: new Counter({
      name: 'reach_delivery_retries_total',
      help: 'Attempts after the first of a message',
      registers: [registry],
    }),
  };
}
export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
