import { certify } from './src/runner/certify.ts';
const patterns = (process.argv[2] ?? 'v8.contract.generated.*,v1.contract.generated.*').split(',');
const started = Date.now();
const { results, report } = await certify({ patterns, seed: 7 });
for (const r of results) {
  console.log(r.rule.id, r.verdict, (r.reason ?? '').slice(0, 300));
  for (const c of r.cases.slice(0, 12)) { console.log("   -", JSON.stringify(c).slice(0, 400)); const e = r.evidence[c.exchange]; if (e) console.log("     req", (e.request.body ?? "").slice(0, 600), "\n     res", (e.response?.body ?? "").slice(0, 300)); }
}
console.log('ms', Date.now() - started);
const obs = report.observations.filter((o: any) => /cases per endpoint|setup|not judged|expectation and answer/.test(o.subject));
for (const o of obs) console.log(o.subject, JSON.stringify(o.value).slice(0, 1500));
process.exit(0);
