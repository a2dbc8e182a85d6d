// Typings of memcore/telemetry: OpenTelemetry traces and metrics of memory operations, and the
// same counters as Prometheus text.

/** The options of `createTelemetry`. */
export interface TelemetryOptions {
  /** The host's `@opentelemetry/api` module (`import * as api from '@opentelemetry/api'`); without it only the Prometheus counters are kept. */
  api?: unknown;
  /** The prefix of every metric name (default `'memcore_'`), `[a-zA-Z_:][a-zA-Z0-9_:]*`. */
  prefix?: string;
  /** The name of the tracer and the meter (default `'memcore'`). */
  tracerName?: string;
}

/** The metrics recorded through one Telemetry. */
export interface TelemetryMetrics {
  /** The Prometheus text format, every name under the prefix. */
  prometheus(): string;
}

/** What memcore records; give it as `telemetry` to `ContextMemory` (hosts), `createMemoryTools`, `dream`, `createMemoryHandler`. */
export class Telemetry {
  private constructor();
  /** The metric name prefix. */
  readonly prefix: string;
  /** The metrics so far. */
  metrics(): TelemetryMetrics;
}

/**
 * A Telemetry over your OpenTelemetry API.
 * @example
 * import * as api from '@opentelemetry/api';
 * import { createTelemetry } from 'memcore/telemetry';
 * const telemetry = createTelemetry({ api });
 * const memory = new ContextMemory({ storage, model, telemetry });
 * app.get('/metrics', () => new Response(telemetry.metrics().prometheus()));
 */
export function createTelemetry(options?: TelemetryOptions): Telemetry;
