import { certify } from './src/runner/certify.ts';
for (const rule of ['v8.contract.generated.no-5xx', 'v1.contract.generated.no-5xx']) {
  const t = performance.now();
  const { results } = await certify({ patterns: [rule], seed: 3 });
  const r = results[0]!;
  console.log(rule, r.verdict, Math.round(performance.now() - t), 'ms', r.observations.filter(o => /requests sent|seed/.test(o.subject)).map(o => `${o.subject}=${o.value}`).join(' '));
}
