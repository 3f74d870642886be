// k6 fetches this module at run time (https://grafana.com/docs/k6/latest/javascript-api/jslib/);
// only the function used is declared.
declare module 'https://jslib.k6.io/k6-summary/0.0.2/index.js' {
  export function textSummary(data: unknown, options?: { indent?: string; enableColors?: boolean }): string;
}
