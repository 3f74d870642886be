import type { VariantDefinition } from '../types.ts';

export const v1UsageVariants = [
  {
    id: 'v1.usage/extra-properties',
    description: 'the usage readback carries unknown properties at every level (nested objects, arrays, nulls, odd names)',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the usage response: not shown.' },
  },
  {
    id: 'v1.usage/live-counters',
    description: 'the usage readback carries counters that move on their own: the microseconds elapsed in the period, and the events emitted by the tenant\'s runs so far',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the usage response: not shown.' },
  },
  {
    id: 'v1.usage/scope-beyond-runs',
    description: 'GET /v1/usage needs the scope usage:read, which the ordinary keys (runs:read and runs:write, as the profile lists them) lack: it refuses them 403 authorization_failed; only the two rate-limit keys hold it (listed in their scopes)',
    spec: { document: 'v1-execution-fabric.md', section: 'Authentication', quote: 'Scopes required by the other `/v1` endpoints: not shown.' },
    leavesUntestable: 'a scope the description does not show',
    excludes: ['v1.usage/scope-needed'],
  },
  {
    id: 'v1.usage/scope-needed',
    description: 'GET /v1/usage needs the scope usage:read, which the ordinary keys holding runs:read and runs:write hold (listed in their scopes) and the two rate-limit keys lack: it refuses those 403 authorization_failed before their limiter is asked',
    spec: { document: 'v1-execution-fabric.md', section: 'Authentication', quote: 'Scopes required by the other `/v1` endpoints: not shown.' },
    leavesUntestable: 'a scope the description does not show',
    excludes: ['v1.usage/scope-beyond-runs'],
  },
] as const satisfies readonly VariantDefinition[];
