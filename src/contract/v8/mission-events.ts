/**
 * The mission states and event types of the /v8 seed's tables, as plain data: the k6 scripts
 * (load/) judge streams with them and cannot bundle zod, so they live apart from missions.ts,
 * which re-exports them for everyone else.
 */

export const MISSION_STATUSES = ['running', 'waiting', 'succeeded', 'failed', 'cancelled'] as const;
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
export type MissionStatus = (typeof MISSION_STATUSES)[number];

export const MISSION_EVENT_TYPES = [
  'mission.started',
  'mission.step.started',
  'mission.step.completed',
  'mission.completed',
  'mission.failed',
  'mission.cancelled',
] as const;
export type MissionEventType = (typeof MISSION_EVENT_TYPES)[number];

/** The terminal events and the state each reports. */
export const TERMINAL_EVENT_STATUS: Record<string, MissionStatus> = {
  'mission.completed': 'succeeded',
  'mission.failed': 'failed',
  'mission.cancelled': 'cancelled',
};

/** Whether an event type is one of the three terminal ones (an own key: `constructor` is no event). */
export function isTerminalEventType(type: string | undefined): boolean {
  return type !== undefined && Object.prototype.hasOwnProperty.call(TERMINAL_EVENT_STATUS, type);
}
