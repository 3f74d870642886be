import fc from 'fast-check';
import { ENDPOINTS } from './src/contract/endpoints.ts';
import { casesOf, arbitraryOf } from './src/contract/schema-cases.ts';
for (const e of ENDPOINTS) for (const b of e.bodies) {
  const t = performance.now();
  const s = casesOf(b.schema);
  const valid = s.cases.filter(c=>c.valid).length;
  console.log(e.method, e.path, b.name, 'constraints', s.constraints.length, 'cases', s.cases.length, 'valid', valid, 'bytes', JSON.stringify(s.cases.map(c=>c.value)).length, Math.round(performance.now()-t), 'ms');
  const samples = fc.sample(arbitraryOf(b.schema), { seed: 1, numRuns: 20 });
  const bad = samples.filter(v => !b.schema.safeParse(v).success);
  if (bad.length) console.log('  invalid samples', bad.length, JSON.stringify(bad[0]).slice(0,300), JSON.stringify(b.schema.safeParse(bad[0]).error?.issues).slice(0,300));
}
const s = casesOf(ENDPOINTS[6]!.bodies[0]!.schema);
for (const c of s.cases) console.log(c.valid ? 'V' : 'I', c.constraint, '|', c.label);
