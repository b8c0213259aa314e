/**
 * OpenTelemetry tracing, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans of the api's workflow starts, of
 * workflow runs and of activities (Temporal's OpenTelemetry interceptors) are exported over OTLP/HTTP. The caller's
 * trace id (traceparent, X-Trace-Id, or the one we generate) is the OpenTelemetry trace id, so a message's spans and
 * its `trace_id` agree.
 */
import { context, propagation, trace, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { randomBytes } from 'node:crypto';

export interface Telemetry {
  exporter: SpanExporter;
  resource: Resource;
  shutdown(): Promise<void>;
}

/** Sets up the global tracer provider for `service`; undefined when no OTLP endpoint is configured. */
export function startTelemetry(service: string, endpoint: string | undefined): Telemetry | undefined {
  if (!endpoint) return undefined;
  const resource = new Resource({ 'service.name': `agent-reach-${service}` });
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 })],
  });
  // The context manager makes `context.with` carry the active span across awaits (the no-op default would drop it).
  provider.register({
    propagator: new W3CTraceContextPropagator(),
    contextManager: new AsyncLocalStorageContextManager().enable(),
  });
  return { exporter, resource, shutdown: () => provider.shutdown() };
}

/** An OpenTelemetry context whose parent is our trace id, so spans started in it belong to the message's trace. */
export function contextForTrace(traceId: string): Context {
  const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
  return propagation.extract(
    context.active(),
    { traceparent },
    { get: (carrier, key) => carrier[key as 'traceparent'], keys: () => ['traceparent'] },
  );
}

export { context, trace };
