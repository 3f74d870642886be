/**
 * The rule kernel: what a rule is, how a check ends, what a check sees. It imports nothing of the
 * project but the profile's schema types, so every other layer can build on it.
 */
export type { CheckContext, Decider, PropertyOptions, ServiceKey, TargetInfo } from './context.ts';
export { RUN_MEMO, serviceKey } from './context.ts';
export { defineRule, section, type RuleBody, type RuleDeclaration, type SectionDefaults } from './define.ts';
export { CHECK_JOURNAL_LIMITS, isLatin1, Journal, keptBytes, linkCopy, originalOf, mediaType, pathOnly, type Exchange, type JournalLimits, type MissingPart } from './journal.ts';
export { credentialIn, cutShort, evidenceOfJournal, judgedRun, readerStopped, unreadParts, judgeOwnExchanges, lackingReason, RUN_JOURNAL, runJudgement, type Secret, type Judge, type JudgeOptions, type Judgement, type JudgementRun, type ShowExchange } from './judgement.ts';
export type { AfterEvent, EvidenceEntry, Http, ProbeRequest, ProbeResponse, RawRequest, ReadResult, SseEvent, StreamEnd, StreamRequest, StreamResponse } from './exchange.ts';
export { rawForm } from './exchange.ts';
export { CheckFailure, Inconclusive, JudgedInconclusive, NotApplicable, OwnBoundReached, TransportError, Untestable } from './outcome.ts';
export { describePrerequisite, type Prerequisite } from './prerequisite.ts';
export { reproduceLine, withRunCommand } from './reproduce.ts';
export type { RuleResult } from './result.ts';
export type { Rule } from './rule.ts';
export * from './types.ts';
