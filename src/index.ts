/**
 * apicert as a library: `import { certify, rules } from 'apicert'`. The same functions the CLI,
 * the vitest suite and the fault matrix call; compiled to dist/lib by `npm run build:lib`.
 */
import './node-version.ts';
export { certify, CertifyOptionsError, HARNESS_VERSION, redactorFor, TargetUnreachable, type Certification, type CertifyOptions } from './runner/certify.ts';
export { RULES as rules } from './registry.ts';
export type { Level, Rule, RuleResult, Surface, Verdict } from './rule/index.ts';
export { EmptySelection, selectRules } from './runner/run.ts';
export { loadProfileFile, parseProfile, ProfileError, profileFromEnv } from './profile/load.ts';
export type { Credential, Profile, ProfileInput } from './profile/schema.ts';
export type { Report } from './reports/model.ts';
export { REPORT_FORMATS, renderReport, writeReports, type ReportFormat } from './reports/write.ts';
export { writeRunReports, type WrittenRun } from './reports/run-folder.ts';
export { FAULTS as faults, type FaultId } from './fake/faults/index.ts';
export { startFake, type FakeOptions, type RunningFake } from './fake/server.ts';
export { embeddedProfile } from './fake/embedded-profile.ts';
export { ContainerEngineUnavailable, ContainerStartFailed, startImageTarget, type ImageTargetOptions, type StartedImageTarget } from './container/image-target.ts';
