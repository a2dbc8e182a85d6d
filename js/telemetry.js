// memcore/telemetry: OpenTelemetry traces and metrics of memory operations through the host's own
// `@opentelemetry/api` (passed in, never imported), and the same counters as Prometheus text.
// The implementation and the helpers the operations share are in ./telemetry/core.js.
export { createTelemetry, Telemetry } from './telemetry/core.js';
