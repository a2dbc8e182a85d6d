// The typings of memcore/telemetry (issue 24 part 4), compiled with --strict: one Telemetry given
// to every operation that takes one, and its Prometheus text.
import * as api from '@opentelemetry/api';
import { createTelemetry, type Telemetry, type TelemetryOptions } from 'memcore/telemetry';
import { ContextMemory, createMemoryTools, dream, DreamMetrics, InMemoryEntryStore } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { createMemoryHandler } from 'memcore/server';

export async function telemetry(): Promise<string> {
  const options: TelemetryOptions = { api, prefix: 'memcore_', tracerName: 'my-app-memory' };
  const t: Telemetry = createTelemetry(options);
  const counting = createTelemetry();
  const entries = new InMemoryEntryStore();
  const memory = new ContextMemory({ storage: new InMemoryProfileStorage(), entries, telemetry: t });
  await memory.load({ userId: 'u1', enabled: true });
  const tools = createMemoryTools({ store: entries, userId: 'u1', agentId: 'a', telemetry: t });
  await tools.call('recallMemories', {});
  const metrics = new DreamMetrics({ prefix: 'eddi_' });
  await dream({ store: entries, userId: 'u1', agentId: 'a', now: new Date(), metrics, telemetry: counting });
  createMemoryHandler({ entries, authenticate: () => null, telemetry: t });
  const prefix: string = t.prefix;
  return prefix + t.metrics().prometheus() + counting.metrics().prometheus() + metrics.prometheus();
}
